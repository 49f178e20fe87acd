"""The memory editor never throws typed text away without a confirmation."""

from __future__ import annotations

from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from textual.widgets import Input, OptionList, TextArea

from tests.tui.conftest import memory_text, wait_for, write_memory
from tui.screens.confirm import Confirm
from tui.screens.conflict import Conflict
from tui.screens.memory_editor import TEMPLATE, MemoryEditor, missing_fields

THEIRS = memory_text("Style", "how answers should sound", "Another session wrote this.")


@pytest.fixture
def style_memory(store) -> Path:
    return write_memory(store, "user_style.md", "Style", "how answers should sound", "Short answers.")


@asynccontextmanager
async def editing(make_app, key: str = "ctrl+e"):
    """The app with the editor open on the folder's one memory (or a new one with Ctrl+W)."""
    app = make_app()
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_for(pilot, lambda: len(app.memory_pane.names) >= (1 if key == "ctrl+e" else 0), 10, "the pane")
        app.query_one("#memory-list", OptionList).focus()
        await pilot.pause()
        await pilot.press(key)
        assert isinstance(app.screen, MemoryEditor)
        yield app, pilot, app.screen


def conflict_shown(app) -> bool:
    """The conflict question is up, its buttons mounted (a push comes before its compose)."""
    return isinstance(app.screen, Conflict) and bool(app.screen.query("#theirs"))


async def type_into_editor(pilot, editor, words: str) -> None:
    area = editor.query_one("#text", TextArea)
    area.focus()
    area.move_cursor(area.document.end)
    area.insert(words)
    await pilot.pause()


async def test_esc_with_unsaved_text_asks_and_keeps_it_on_no(make_app, style_memory, no_key):
    async with editing(make_app) as (app, pilot, editor):
        await type_into_editor(pilot, editor, "Mine.\n")
        await pilot.press("escape")
        assert isinstance(app.screen, Confirm)
        await pilot.press("escape")  # no: back to the editor, the text as it was
        assert app.screen is editor
        assert editor.text.endswith("Mine.\n")
        # a letter typed at the question answers no and stays out of the main prompt
        await pilot.press("escape")
        await pilot.press("x")
        assert app.screen is editor and app.prompt.value == ""
        # the discard button asks too
        editor.query_one("#discard").press()
        await pilot.pause()
        assert isinstance(app.screen, Confirm)
        await pilot.press("ctrl+d")
        await pilot.pause()
        assert not isinstance(app.screen, (Confirm, MemoryEditor))
        assert "Mine." not in style_memory.read_text()


async def test_esc_without_changes_closes_at_once(make_app, style_memory, no_key):
    async with editing(make_app) as (app, pilot, editor):
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, (Confirm, MemoryEditor))


async def test_ctrl_q_with_unsaved_text_asks_first(make_app, style_memory, no_key):
    async with editing(make_app) as (app, pilot, editor):
        await type_into_editor(pilot, editor, "Mine.\n")
        await pilot.press("ctrl+q")
        assert isinstance(app.screen, Confirm) and app.is_running
        await pilot.press("ctrl+q")  # a second Ctrl+Q is not the answer
        assert isinstance(app.screen, Confirm) and app.is_running
        await pilot.press("escape")
        assert app.screen is editor and editor.text.endswith("Mine.\n")
        await pilot.press("ctrl+q")
        await pilot.press("ctrl+d")
        await pilot.pause()
    assert app.return_code == 0


async def test_conflict_keep_mine_saves_over_theirs(make_app, style_memory, no_key):
    async with editing(make_app) as (app, pilot, editor):
        await type_into_editor(pilot, editor, "Mine.\n")
        style_memory.write_text(THEIRS)
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: conflict_shown(app), 20, "the conflict")
        assert style_memory.read_text() == THEIRS, "nothing is written before the choice"
        app.screen.query_one("#mine").press()
        await wait_for(pilot, lambda: not isinstance(app.screen, (Conflict, MemoryEditor)), 20, "the save")
        assert style_memory.read_text().endswith("Mine.\n")


async def test_conflict_keep_theirs_leaves_the_file(make_app, style_memory, no_key):
    async with editing(make_app) as (app, pilot, editor):
        await type_into_editor(pilot, editor, "Mine.\n")
        style_memory.write_text(THEIRS)
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: conflict_shown(app), 20, "the conflict")
        app.screen.query_one("#theirs").press()
        await wait_for(pilot, lambda: not isinstance(app.screen, (Conflict, MemoryEditor)), 20, "the editor to close")
        assert style_memory.read_text() == THEIRS


async def test_conflict_open_both_shows_theirs_beside_mine(make_app, style_memory, no_key):
    async with editing(make_app) as (app, pilot, editor):
        await type_into_editor(pilot, editor, "Mine.\n")
        style_memory.write_text(THEIRS)
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: conflict_shown(app), 20, "the conflict")
        # Esc on the question goes back to editing with nothing lost
        await pilot.press("escape")
        assert app.screen is editor and editor.text.endswith("Mine.\n")
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: conflict_shown(app), 20, "the conflict again")
        app.screen.query_one("#both").press()
        await wait_for(pilot, lambda: app.screen is editor and editor.query("#theirs"), 20, "theirs beside mine")
        theirs = editor.query_one("#theirs", TextArea)
        assert theirs.read_only and theirs.text == THEIRS
        assert editor.text.endswith("Mine.\n")
        # merged by hand, then saved over theirs
        await type_into_editor(pilot, editor, "Another session wrote this.\n")
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: not isinstance(app.screen, MemoryEditor), 20, "the save")
        assert style_memory.read_text().endswith("Mine.\nAnother session wrote this.\n")


async def test_conflict_on_a_deleted_file_can_write_it_again(make_app, style_memory, no_key):
    async with editing(make_app) as (app, pilot, editor):
        await type_into_editor(pilot, editor, "Mine.\n")
        style_memory.unlink()
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: conflict_shown(app), 20, "the conflict")
        assert app.screen.deleted and not app.screen.query("#both")
        app.screen.query_one("#mine").press()
        await wait_for(pilot, style_memory.exists, 20, "the file written again")
        assert style_memory.read_text().endswith("Mine.\n")


def test_a_new_memory_needs_a_name_and_a_description():
    assert "a name and a description" in missing_fields(TEMPLATE.format(name=""))
    assert "a description" in missing_fields(TEMPLATE.format(name="Tabs"))
    assert missing_fields(memory_text("Tabs", "the user indents with tabs", "Tabs.")) is None


async def test_the_untouched_template_is_not_saved(make_app, store, no_key):
    async with editing(make_app, "ctrl+w") as (app, pilot, editor):
        editor.query_one("#name", Input).value = "feedback_tabs"
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: editor.refusals, 20, "the refusal")
        assert "a name and a description" in editor.refusals[-1]
        assert not (Path(store.directory) / "feedback_tabs.md").exists()
        area = editor.query_one("#text", TextArea)
        area.text = TEMPLATE.format(name="Tabs").replace("one line on what this memory is for", "tabs, not spaces")
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: not isinstance(app.screen, MemoryEditor), 20, "the save")
        assert (Path(store.directory) / "feedback_tabs.md").exists()


async def test_ctrl_end_and_ctrl_home_move_in_the_text(make_app, style_memory, no_key):
    async with editing(make_app) as (app, pilot, editor):
        area = editor.query_one("#text", TextArea)
        area.focus()
        await pilot.press("ctrl+end")
        assert area.cursor_location == area.document.end
        await pilot.press("ctrl+home")
        assert area.cursor_location == (0, 0)


async def test_words_typed_above_the_frontmatter_are_not_saved_without_a_word(make_app, style_memory, no_key):
    before = style_memory.read_text()
    async with editing(make_app) as (app, pilot, editor):
        area = editor.query_one("#text", TextArea)
        area.focus()
        area.move_cursor((0, 0))
        area.insert("oops, typed here\n")
        await pilot.press("ctrl+s")
        await pilot.pause(0.3)
        assert app.screen is editor
        assert "above the first --- line" in str(editor.query_one("#verdict").render())
    assert style_memory.read_text() == before


async def test_a_new_memory_starts_as_a_project_memory(make_app, no_key):
    async with editing(make_app, "ctrl+w") as (app, pilot, editor):
        assert "type: project" in editor.text and "type: user" not in editor.text
