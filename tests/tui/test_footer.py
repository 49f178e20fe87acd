"""The key bar is rebuilt when the keys it shows change, and only then."""

from __future__ import annotations

from textual.widgets import OptionList

from tests.tui.conftest import screen_lines, wait_for, write_memory
from tui.widgets.footer import Footer
from tui.widgets.memory.pane import MemoryPane


async def test_the_key_bar_is_rebuilt_only_when_its_keys_change(make_app, store, no_key, monkeypatch):
    write_memory(store, "user_style.md", "Style", "how answers should sound", "Short answers.")
    built: list[int] = []
    rebuild = Footer.recompose

    async def counting(self: Footer) -> None:
        before = self.shown_keys
        await rebuild(self)
        if self.shown_keys is not before:
            built.append(1)

    monkeypatch.setattr(Footer, "recompose", counting)
    app = make_app()
    async with app.run_test(size=(160, 48)) as pilot:
        await wait_for(pilot, lambda: len(app.query_one(MemoryPane).names) == 1, 10, "the memory")
        await pilot.pause()
        bottom = screen_lines(app)[-1]
        assert "Help" in bottom and "Edit" not in bottom
        at_launch = len(built)
        assert at_launch <= 2  # Textual asks five times or more while the app starts

        # asked again with nothing changed (as focus moves and screens do): nothing rebuilt
        for _ in range(5):
            app.screen.refresh_bindings()
            await pilot.pause()
        assert len(built) == at_launch
        shown_again = len(built)

        # other keys: the memory list's own show up
        app.query_one("#memory-list", OptionList).focus()
        await wait_for(pilot, lambda: "Edit" in screen_lines(app)[-1], 5, "the memory keys")
        assert len(built) == shown_again + 1
        app.prompt.focus()
        await wait_for(pilot, lambda: "Edit" not in screen_lines(app)[-1], 5, "the prompt's keys")
