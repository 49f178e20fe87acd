"""Small things a new user tripped over: ages, which screen item is newest, toasts, F8."""

from __future__ import annotations

import time

from tests.tui.conftest import notified, wait_for, write_memory
from tui import format as fmt


def test_ages_read_as_words():
    now = time.time()
    assert fmt.ago(now - 2, now) == "just now"
    assert fmt.ago(now - 300, now) == "5m ago"
    assert fmt.ago(now - 3 * 86400, now) == "3d ago"


async def test_a_memory_changed_a_moment_ago_says_just_now(make_app, store, no_key):
    write_memory(store, "user_style.md", "Style", "how answers should sound", "Short answers.")
    app = make_app()
    async with app.run_test(size=(160, 40)) as pilot:
        await wait_for(pilot, lambda: app.memory_pane.names == ["Style"], 10, "the memory")
        preview = str(app.query_one("#memory-text").render())
        assert "changed just now" in preview and "now ago" not in preview


async def test_toasts_do_not_cover_the_input_line(make_app, no_key):
    for size in ((80, 24), (160, 48)):
        app = make_app()
        async with app.run_test(size=size, notifications=True) as pilot:
            app.notify("A long notification that takes a few lines to say what it has to say, " * 2)
            await wait_for(pilot, lambda app=app: bool(app.screen.query("Toast")), 5, "the toast")
            await pilot.pause(0.2)
            toast = app.screen.query_one("Toast").region
            for widget in (app.prompt, app.status):
                assert not toast.overlaps(widget.region), (size, toast, widget.region)


async def test_f8_at_80_columns_says_why_it_does_nothing(make_app, no_key):
    app = make_app()
    messages = notified(app)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await pilot.pause()
        before = app.memory_pane.size.width
        for _ in range(4):
            await pilot.press("f8")
        await pilot.pause()
        assert app.memory_pane.size.width == before
        assert any("80 columns" in m and "wider terminal" in m for m in messages), messages
        # and F7 narrows at once, with no silent steps stored up by the F8s
        await pilot.press("f7")
        await pilot.pause()
        assert app.memory_pane.size.width < before
