"""The memory pane against a real store and a real folder watched by watchfiles."""

from __future__ import annotations

import asyncio
import contextvars
import os
import threading
import time
from contextlib import asynccontextmanager
from dataclasses import replace
from pathlib import Path

import pytest
from textual.widgets import Input, OptionList, TextArea

from tests.tui.conftest import memory_text, screen_lines, wait_for, write_memory
from tui.screens.confirm import Confirm
from tui.screens.memory_editor import MemoryEditor
from tui.widgets.memory.listing import option_prompt
from tui.widgets.memory.pane import MemoryPane


def pane(app) -> MemoryPane:
    return app.query_one(MemoryPane)


async def loaded(pilot, count: int) -> None:
    await wait_for(pilot, lambda: len(pane(pilot.app).names) == count, 10, f"{count} memories in the pane")


async def checked(pilot) -> None:
    """Until the evidence check that follows a listing has been shown too."""
    await wait_for(pilot, lambda: not any(w.group == "memory-load" and not w.is_finished for w in pilot.app.workers),
                   10, "the evidence check")
    await pilot.pause()


async def focus_list(pilot) -> None:
    pilot.app.query_one("#memory-list", OptionList).focus()
    await pilot.pause()


@pytest.fixture
def style_memory(store) -> Path:
    return write_memory(store, "user_style.md", "Style", "how answers should sound", "Short answers.")


@asynccontextmanager
async def one_memory_focused(make_app):
    """The app on a folder with one memory, the pane's list focused."""
    app = make_app()
    async with app.run_test(size=(160, 48)) as pilot:
        await loaded(pilot, 1)
        await focus_list(pilot)
        yield app, pilot


async def test_lists_name_type_description_size_age_and_total(make_app, store, no_key):
    write_memory(store, "feedback_cs1591.md", "CS1591 is noise", "missing XML doc warnings are ignored", "Ignore CS1591.", "feedback", age_days=3)
    write_memory(store, "user_voice.md", "Short spoken answers", "the user wants one-line replies", "Keep it short.", "user", age_days=0.02)
    app = make_app()
    async with app.run_test(size=(160, 48)) as pilot:
        await loaded(pilot, 2)
        memories = {m.name: m for m in pane(app).listing.memories}
        prompt = option_prompt(memories["CS1591 is noise"], None)
        left, right = [line.plain for line, _ in prompt.lines], [size.plain for _, size in prompt.lines]
        assert left[0] == "CS1591 is noise"
        assert left[1] == "feedback · missing XML doc warnings are ignored"
        assert right[0].endswith("· 3d")
        subtitle = str(pane(app).border_subtitle)
        assert f"/{6000 / 1000:.1f}k chars" in subtitle
        assert str(pane(app).border_title) == "Memory · 2"


async def test_outside_write_appears_and_delete_disappears(make_app, store, no_key):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await loaded(pilot, 0)
        await pilot.pause(0.2)  # the watcher is running
        path = write_memory(store, "project_rename.md", "Patch becomes Diff", "half-done rename", "ReviewOrchestrator still says Patch.", "project")
        await wait_for(pilot, lambda: pane(app).names == ["Patch becomes Diff"], 5, "the outside write")
        os.remove(path)
        await wait_for(pilot, lambda: pane(app).names == [], 5, "the outside delete")


async def test_an_outside_write_notes_each_stage_in_order_for_the_benchmark(make_app, store, no_key, tmp_path, monkeypatch):
    # benchmarks/memory_write.py reads these to say where the time goes
    from benchmarks.memory_write import STAGES

    trace = tmp_path / "trace"
    monkeypatch.setenv("DEVAGENT_MEMORY_TRACE", str(trace))
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await loaded(pilot, 0)
        await pilot.pause(0.2)  # the watcher is running
        trace.unlink(missing_ok=True)
        write_memory(store, "reference_tabs.md", "Tabs", "indent with tabs", "Tabs, not spaces.", "reference")
        await wait_for(pilot, lambda: pane(app).names == ["Tabs"], 5, "the outside write")
        await wait_for(pilot, lambda: "screen refreshed" in trace.read_text(), 5, "the refresh noted")
    noted = [line.rpartition(" ") for line in trace.read_text().splitlines()]
    stages = list(dict.fromkeys(stage for stage, _, _ in noted))
    assert stages[: len(STAGES)] == list(STAGES)
    moments = [float(dict((stage, moment) for stage, _, moment in reversed(noted))[name]) for name in STAGES]
    assert moments == sorted(moments)


async def test_selecting_shows_the_text(make_app, store, no_key):
    write_memory(store, "a_first.md", "First", "one", "Body of the first.", age_days=1)
    write_memory(store, "b_second.md", "Second", "two", "Body of the second.", age_days=1)
    app = make_app()
    async with app.run_test(size=(160, 48)) as pilot:
        await loaded(pilot, 2)
        await focus_list(pilot)
        preview = app.query_one("#memory-text")
        assert "Body of the first." in str(preview.render())
        await pilot.press("down")
        assert "Body of the second." in str(preview.render())
        await pilot.press("enter")
        assert app.focused.id == "memory-preview"


async def test_a_memory_citing_a_missing_file_is_marked_gone(make_app, store, repo, no_key):
    write_memory(store, "project_gone.md", "Gone file", "names a file that is not there", "See `src/Gone.cs:12` for the fix.", "project")
    app = make_app()
    async with app.run_test(size=(160, 48)) as pilot:
        await loaded(pilot, 1)
        await wait_for(pilot, lambda: pane(app).listing.trust is not None, 5, "the evidence marks")
        marks = pane(app).listing.trust.marks["/memories/project_gone.md"]
        assert marks.worst == "gone"
        assert "× 1 gone" in str(pane(app).border_subtitle)
        assert "src/Gone.cs:12 gone" in str(app.query_one("#memory-text").render())


async def test_edit_saves_through_the_store(make_app, style_memory, no_key):
    async with one_memory_focused(make_app) as (app, pilot):
        await pilot.press("ctrl+e")
        assert isinstance(app.screen, MemoryEditor)
        area = app.screen.query_one("#text", TextArea)
        area.text = area.text.replace("Short answers.", "Short answers, one line.")
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: not isinstance(app.screen, MemoryEditor), 5, "the editor to close")
        assert "Short answers, one line." in style_memory.read_text()
        await wait_for(pilot, lambda: "one line" in str(app.query_one("#memory-text").render()), 5, "the pane to reload")


async def test_refused_save_says_why_and_keeps_the_text(make_app, store, style_memory, no_key):
    before = style_memory.read_text()
    async with one_memory_focused(make_app) as (app, pilot):
        await pilot.press("ctrl+e")
        area = app.screen.query_one("#text", TextArea)
        too_long = before + "x" * (store.max_file_chars + 10)
        area.text = too_long
        await pilot.press("ctrl+s")
        editor = app.screen
        await wait_for(pilot, lambda: editor.refusals, 5, "the refusal")
        assert isinstance(app.screen, MemoryEditor)
        assert area.text == too_long
        assert style_memory.read_text() == before
        assert editor.query_one("#verdict").has_class("-shown")
        # a credential is refused by the store's secret filter, and the editor says so
        area.text = before + "aws_access_key_id = AKIAIOSFODNN7Q4W2ZLM\n"
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: len(editor.refusals) == 2, 5, "the second refusal")
        assert style_memory.read_text() == before
        # Esc after a refused save asks before the text goes
        await pilot.press("escape")
        assert isinstance(app.screen, Confirm)
        await pilot.press("ctrl+d")
        await pilot.pause()
        assert not isinstance(app.screen, (MemoryEditor, Confirm))


async def test_delete_asks_first(make_app, style_memory, no_key):
    async with one_memory_focused(make_app) as (app, pilot):
        await pilot.press("delete")
        assert isinstance(app.screen, Confirm)
        await pilot.press("escape")
        assert not isinstance(app.screen, Confirm)
        assert style_memory.exists()
        await focus_list(pilot)
        await pilot.press("delete")
        await pilot.press("ctrl+d")
        await wait_for(pilot, lambda: not style_memory.exists(), 5, "the delete")
        await loaded(pilot, 0)


async def test_new_memory(make_app, store, no_key):
    app = make_app()
    async with app.run_test(size=(160, 48)) as pilot:
        await loaded(pilot, 0)
        await focus_list(pilot)
        await pilot.press("ctrl+w")
        editor = app.screen
        assert isinstance(editor, MemoryEditor) and editor.is_new
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: editor.refusals, 5, "the missing name")
        editor.query_one("#name", Input).value = "feedback_tabs"
        editor.query_one("#text", TextArea).text = memory_text("Tabs", "the user indents with tabs", "Tabs, not spaces.", "feedback")
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: not isinstance(app.screen, MemoryEditor), 5, "the editor to close")
        assert (Path(store.directory) / "feedback_tabs.md").read_text().endswith("Tabs, not spaces.\n")
        await wait_for(pilot, lambda: pane(app).names == ["Tabs"], 5, "the new memory in the pane")
        # a second memory with the same file name is refused rather than overwriting
        await focus_list(pilot)  # focus went back to the prompt when the editor closed
        await pilot.press("ctrl+w")
        editor = app.screen
        editor.query_one("#name", Input).value = "feedback_tabs.md"
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: editor.refusals, 5, "the duplicate name")
        assert "exists" in editor.refusals[-1]


async def test_an_empty_folder_says_so_and_how_to_write_one(make_app, no_key):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: pane(app).loads >= 1, 10, "the first listing")
        text = str(app.query_one("#memory-text").render())
        assert "No memories yet" in text and "press Ctrl+W" in text
        assert pane(app).border_title == "Memory · 0"
        app.query_one("#memory-list", OptionList).focus()
        await pilot.press("ctrl+w")
        assert isinstance(app.screen, MemoryEditor)


async def test_the_list_keeps_its_height_as_memories_arrive_and_a_long_one_scrolls(make_app, store, no_key):
    # a list that grew with each memory laid the screen out again and moved the preview on
    # every outside write; now a write repaints the list alone
    app = make_app()
    async with app.run_test(size=(160, 48)) as pilot:
        await wait_for(pilot, lambda: pane(app).loads >= 1, 10, "the first listing")
        options = app.query_one("#memory-list", OptionList)
        preview = app.query_one("#memory-preview")
        assert not options.display, "with nothing to pick, the preview has the pane"
        shown: list[bool] = []

        def heard(value: bool) -> None:
            shown.append(value)

        app.watch(options, "show_vertical_scrollbar", heard, init=False)
        places = set()
        for count in range(1, 6):
            write_memory(store, f"user_note{count}.md", f"Note {count}", "a note", "Body.")
            await loaded(pilot, count)
            # the first memory shows the list, which takes its place at the next frame
            await wait_for(pilot, lambda: bool(options.region), 5, "the list on screen")
            await pilot.pause()
            places.add((options.region, preview.region))
        assert len(places) == 1, places
        assert options.display and options.region.height > options.virtual_size.height
        assert shown == [] and not options.show_vertical_scrollbar

        # past its height (half the pane), it scrolls
        for count in range(6, 30):
            write_memory(store, f"user_note{count}.md", f"Note {count}", "a note", "Body.")
        await loaded(pilot, 29)
        await wait_for(pilot, lambda: options.show_vertical_scrollbar, 5, "the scrollbar of a long list")
        assert (options.region, preview.region) in places
        assert options.region.height < options.virtual_size.height


async def test_a_memory_written_out_of_view_scrolls_into_view_unless_the_user_is_in_the_list(make_app, store, no_key):
    for count in range(20):
        write_memory(store, f"user_note{count:02}.md", f"Note {count:02}", "a note", "Body.")
    app = make_app()
    async with app.run_test(size=(160, 48)) as pilot:
        await loaded(pilot, 20)
        await checked(pilot)
        options = app.query_one("#memory-list", OptionList)
        memory = pane(app)
        assert options.show_vertical_scrollbar and app.focused is app.query_one("#prompt")
        highlighted = memory.selected_path

        def in_the_list(name: str) -> bool:
            shown = options.region
            return any(name in row[shown.x:shown.right]
                       for row in screen_lines(app)[shown.y:shown.bottom])

        # a memory changed elsewhere lists the folder again, and the list stays where it was
        options.scroll_end(animate=False, immediate=True)
        await pilot.pause()
        bottom, loads = options.scroll_y, memory.loads
        assert bottom > 0
        write_memory(store, "user_note05.md", "Note 05", "a note, changed", "Body.")
        await wait_for(pilot, lambda: memory.loads > loads, 10, "the changed memory")
        await checked(pilot)
        assert options.scroll_y == bottom and memory.selected_path == highlighted

        options.scroll_home(animate=False, immediate=True)
        await pilot.pause()
        assert not in_the_list("Zebra")
        write_memory(store, "user_zebra.md", "Zebra", "sorts last", "Body.")
        await loaded(pilot, 21)
        await checked(pilot)
        assert in_the_list("Zebra"), "a new memory below the fold comes into view"
        assert memory.selected_path == highlighted, "the highlight stays where it was"

        # a user moving through the list keeps their place
        options.focus()
        options.highlighted = 0
        options.scroll_home(animate=False, immediate=True)
        await pilot.pause()
        write_memory(store, "user_zz.md", "Zz last", "sorts last", "Body.")
        await loaded(pilot, 22)
        await checked(pilot)
        assert options.scroll_y == 0 and not in_the_list("Zz last")


async def test_a_memory_written_before_the_watcher_is_up_is_listed_too(make_app, store, no_key, monkeypatch):
    """A write that lands after the first listing but before the watcher has started is
    never heard; the pane lists the folder once more after the watcher's first quiet spell."""
    import watchfiles

    real_watch = watchfiles.watch
    app = make_app()

    def late_start(*args, **kwargs):
        # the first listing is on screen, and the watcher is not up yet: a write lands now
        deadline = time.monotonic() + 10
        while app.memory_pane.loads < 1 and time.monotonic() < deadline:
            time.sleep(0.01)
        write_memory(store, "user_early.md", "Early bird", "written as the pane started", "Body.")
        yield from real_watch(*args, **kwargs)

    monkeypatch.setattr(watchfiles, "watch", late_start)
    async with app.run_test(size=(160, 48)) as pilot:
        await wait_for(pilot, lambda: pane(app).loads >= 1, 10, "the first listing")
        await loaded(pilot, 1)
        assert pane(app).names == ["Early bird"]


async def test_an_evidence_check_that_ends_after_a_newer_listing_does_not_put_the_old_one_back(make_app, store, no_key, monkeypatch):
    """The check of the first listing runs git and reads the repository; a memory written
    meanwhile is listed and shown at once, and the late check must not undo that."""
    from memory import trust as memory_trust

    write_memory(store, "user_first.md", "First", "there at start", "Body.")
    real_load_trust = memory_trust.load_trust
    release, late_check_done = threading.Event(), threading.Event()
    calls = []

    def slow_first_check(*args, **kwargs):
        calls.append(1)
        if len(calls) == 1:
            release.wait(10)
            try:
                return real_load_trust(*args, **kwargs)
            finally:
                late_check_done.set()
        return real_load_trust(*args, **kwargs)

    monkeypatch.setattr(memory_trust, "load_trust", slow_first_check)
    app = make_app()
    async with app.run_test(size=(160, 48)) as pilot:
        await loaded(pilot, 1)
        await wait_for(pilot, lambda: len(calls) >= 1, 10, "the first check to start")
        write_memory(store, "user_second.md", "Second", "written during the check", "Body.")
        await loaded(pilot, 2)
        release.set()
        await asyncio.to_thread(late_check_done.wait, 10)
        await checked(pilot)
        await pilot.pause(0.2)
        assert pane(app).names == ["First", "Second"]


async def test_the_last_memory_deleted_hands_the_focus_to_the_preview(make_app, store, no_key):
    write_memory(store, "user_note.md", "Note", "a note", "Body.")
    app = make_app()
    async with app.run_test(size=(160, 48)) as pilot:
        await loaded(pilot, 1)
        options = app.query_one("#memory-list", OptionList)
        options.focus()
        await pilot.pause()
        (store.directory / "user_note.md").unlink()
        await loaded(pilot, 0)
        await pilot.pause()
        assert not options.display
        preview = app.query_one("#memory-preview")
        assert app.focused is preview, app.focused
        assert preview.region.y == pane(app).content_region.y and not preview.styles.border_top[0]
        assert "No memories yet" in str(app.query_one("#memory-text").render())


async def test_the_count_and_the_size_in_the_border_follow_the_folder(make_app, store, no_key):
    app = make_app()
    async with app.run_test(size=(160, 48)) as pilot:
        await loaded(pilot, 0)
        write_memory(store, "user_note.md", "Note", "a note", "Body of the note.")
        await loaded(pilot, 1)
        await pilot.pause()
        memory = pane(app)
        lines = screen_lines(app)
        top, bottom = (lines[y][memory.region.x:memory.region.right] for y in (memory.region.y, memory.region.bottom - 1))
        assert "Memory · 1" in top
        size = store.total_chars()
        assert f"{size}/" in bottom or f"{size / 1000:.1f}k/" in bottom, bottom


async def late_listing_is_dropped(make_app, in_the_apps_context: bool) -> None:
    """A worker's listing can land after the app has begun closing and the list it would fill
    is gone; it is dropped, not raised from the worker (which fails the whole app). Textual
    runs a thread worker with no context of its own (run_in_executor copies none), so the
    pane cannot find its app from the thread once it is removed; with the app's context it
    can, and the list is what is missing."""
    app = make_app()
    errors: list[BaseException] = []
    delivered = threading.Event()

    def late_worker(memory_pane: MemoryPane, the_list: OptionList, listing) -> None:
        # the same path a worker takes: wait until the close has removed the list, then hand
        # the pane a listing from this thread
        while the_list.is_running:
            threading.Event().wait(0.005)
        try:
            memory_pane._from_thread(memory_pane._apply, listing)
        except BaseException as exc:  # noqa: BLE001 - what the worker would have raised
            errors.append(exc)
        delivered.set()

    async with app.run_test(size=(120, 40)) as pilot:
        await loaded(pilot, 1)
        memory_pane = pane(app)
        the_list = app.query_one("#memory-list", OptionList)
        # unlike the one shown, so the pane cannot skip it as nothing new
        listing = replace(memory_pane._list_now(), memories=[])
        run = contextvars.copy_context().run if in_the_apps_context else contextvars.Context().run
        thread = threading.Thread(target=run, args=(late_worker, memory_pane, the_list, listing), daemon=True)
        thread.start()
    await asyncio.to_thread(delivered.wait, 10)
    assert delivered.is_set(), "the late listing was never handed over"
    assert errors == []


async def test_a_listing_that_arrives_while_the_app_closes_is_dropped(make_app, store, style_memory, no_key):
    await late_listing_is_dropped(make_app, in_the_apps_context=False)


async def test_a_listing_from_a_thread_in_the_apps_context_is_dropped_too(make_app, store, style_memory, no_key):
    await late_listing_is_dropped(make_app, in_the_apps_context=True)


async def test_the_ages_wait_while_the_user_types(make_app, style_memory, no_key, monkeypatch):
    """The periodic re-read that moves the ages on lays the list out again; while a question
    is being typed it waits for the pause, then runs."""
    from tui.widgets.memory import pane as memory_pane

    monkeypatch.setattr(memory_pane, "TYPING_RETRY_SECONDS", 0.2)
    app = make_app()
    async with app.run_test(size=(160, 48)) as pilot:
        await loaded(pilot, 1)
        memory_pane_widget = pane(app)
        reloads: list[tuple] = []
        monkeypatch.setattr(memory_pane_widget, "reload", lambda *args: reloads.append(args))

        memory_pane_widget._ages_move_on()
        assert reloads == [()], "with nobody typing the ages move on at once"

        app.prompt.focus()
        await pilot.press("h", "e", "l", "l", "o")
        assert app.typing_now()
        memory_pane_widget._ages_move_on()
        memory_pane_widget._ages_move_on()  # the next period while still typing
        await pilot.pause()
        assert reloads == [()], "re-read while the user was typing"

        await wait_for(pilot, lambda: len(reloads) == 2, 5, "the ages after the pause")
        assert not app.typing_now()
        await pilot.pause(0.5)
        assert len(reloads) == 2, "one re-read after the pause, however many periods were held"
