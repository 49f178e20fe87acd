"""Text from the model, a memory, a tool or a file name reaches the terminal as text."""

from __future__ import annotations

import re

from textual.widgets import OptionList, TextArea

from agent.events import ShowOnScreen, ToolFinished, ToolStarted, TurnFinished, TurnStarted, Usage
from tests.double.server import text
from tests.tui.conftest import screen_lines, wait_for, write_memory
from tui import format as fmt
from tui.screens.confirm import Confirm
from tui.screens.memory_editor import MemoryEditor

CLEAR = "\x1b[2J"
TITLE = "\x1b]0;pwned\x07"
HOSTILE = f"before{CLEAR}middle{TITLE}after\x9b6n\u202eevil"
# what a terminal acts on: C0 but tab and newline, DEL, C1, bidi controls
ACTIVE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def test_sanitize_shows_escapes_and_drops_colour_and_bidi():
    shown = fmt.sanitize(HOSTILE + " \x1b[1;31mred\x1b[0m\r\n\tnext")
    assert not ACTIVE.search(shown)
    assert "␛[2J" in shown and "␛]0;pwned␇" in shown
    assert "\\x9b6n" in shown
    assert "evil" in shown and "\u202e" not in shown
    assert " red\n\tnext" in shown, "colour codes go, line endings and tabs stay"
    assert fmt.sanitize("plain text\nwith lines") == "plain text\nwith lines"


def test_one_line_sanitizes_too():
    assert fmt.one_line(f"a{CLEAR}b", 40) == "a␛[2Jb"


def shown(app) -> str:
    return "\n".join(screen_lines(app))


def assert_screen_is_text(app) -> None:
    for row in screen_lines(app):
        assert not ACTIVE.search(row), repr(row)


async def test_a_reply_with_escape_sequences_is_shown_as_text(make_app, claude_double):
    claude_double.add(text(f"Here it comes: {CLEAR} and {TITLE} done."))
    app = make_app()
    async with app.run_test(size=(120, 30)) as pilot:
        app.prompt.value = f"my own paste {CLEAR}"
        await pilot.press("enter")
        await wait_for(pilot, lambda: not app.running and "done" in app.conversation.turn_reply_text, 120, "the reply")
        await wait_for(pilot, lambda: "␛]0;pwned␇" in shown(app), 10, "the reply on screen")
        assert "␛[2J" in shown(app)
        assert_screen_is_text(app)


async def test_tool_lines_screen_items_and_toasts_are_shown_as_text(make_app, no_key):
    app = make_app()
    async with app.run_test(size=(160, 40), notifications=True) as pilot:
        await app.conversation.add_user("q")
        token = app.turns.begin()
        for event in [
            TurnStarted(1, "q"),
            ToolStarted(1, "t1", f"build{CLEAR}", f"src/{TITLE}.cs"),
            ToolFinished(1, "t1", "build", 1.0, True, f"1 error {CLEAR}", f"log {CLEAR} line"),
            ShowOnScreen(1, f"Title {TITLE}", f"# Heading\n\nbody {CLEAR}", "markdown"),
            TurnFinished(1, Usage(), "", False),
        ]:
            await app.main_screen.show(token, event)
        app.notify(f"[b]not markup[/] {CLEAR} [/unbalanced]", title=TITLE)
        await wait_for(pilot, lambda: "[/unbalanced]" in shown(app), 10, "the toast")
        assert "␛[2J" in shown(app)
        assert_screen_is_text(app)
        await pilot.press("ctrl+l")  # the tool's log on the screen pane
        await wait_for(pilot, lambda: "log ␛[2J line" in shown(app), 10, "the log")
        assert_screen_is_text(app)


async def test_a_memory_with_escape_sequences_is_shown_as_text(make_app, store, no_key):
    write_memory(store, "user_evil.md", f"Evil{CLEAR}name", f"desc{TITLE}", f"Body {CLEAR} text [/b] more")
    app = make_app()
    async with app.run_test(size=(160, 40)) as pilot:
        await wait_for(pilot, lambda: len(app.memory_pane.names) == 1, 10, "the memory")
        await wait_for(pilot, lambda: "Body ␛[2J text [/b] more" in shown(app), 10, "the preview")
        assert "Evil␛[2Jname" in shown(app)
        assert_screen_is_text(app)
        app.query_one("#memory-list", OptionList).focus()
        await pilot.press("delete")
        assert isinstance(app.screen, Confirm)
        await pilot.pause(0.1)
        assert "Evil␛[2Jname" in "\n".join(screen_lines(app))
        assert_screen_is_text(app)
        await pilot.press("escape")
        app.query_one("#memory-list", OptionList).focus()
        await pilot.press("ctrl+e")
        assert isinstance(app.screen, MemoryEditor)
        assert "␛[2J" in app.screen.query_one("#text", TextArea).text
        await wait_for(pilot, lambda: "control characters" in shown(app), 10, "the editor's warning")
        assert_screen_is_text(app)


async def test_a_repository_named_with_an_escape_is_shown_as_text(tmp_path, user_dirs, no_key):
    from agent.settings.config import AgentConfig
    from memory.store import MemoryStore
    from tui.app import DevAgentApp

    folder = tmp_path / f"repo{CLEAR}x"
    folder.mkdir()
    app = DevAgentApp(folder, AgentConfig(), store=MemoryStore.for_repository(folder), probe_voice=False)
    async with app.run_test(size=(120, 30)) as pilot:
        await wait_for(pilot, lambda: "repo␛[2Jx" in screen_lines(app)[-2] + screen_lines(app)[-3], 10, "the status line")
        assert_screen_is_text(app)
