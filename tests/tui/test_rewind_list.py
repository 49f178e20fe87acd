"""The rewind list in the app: Esc Esc when idle, the palette, and "go back to before the
rename" open it; parts are chosen after their preview; Enter goes back and the turn's words
return to the prompt; u undoes it."""

from __future__ import annotations

import pytest

from tests.double.server import reply, text, tool_use
from tests.tui.conftest import ask, wait_for
from tui.screens.rewind import RewindScreen
from tui.widgets.conversation.lines import UserTurn
from tui.widgets.prompt import Prompt

pytestmark = pytest.mark.usefixtures("claude_double")
EDITOR = "str_replace_based_edit_tool"


async def _two_turns(pilot, claude_double, repo):
    claude_double.add(tool_use(EDITOR, {"command": "create", "path": "notes.txt", "file_text": "one\n"}, id="e1"))
    claude_double.add(reply(text("Created.")))
    await ask(pilot, "start a notes file")
    claude_double.add(tool_use(EDITOR, {"command": "str_replace", "path": "README.md", "old_str": "# shop",
                                        "new_str": "# the shop"}, id="e2"))
    claude_double.add(reply(text("Renamed.")))
    await ask(pilot, "rename the heading of the readme")
    assert (repo / "notes.txt").exists() and (repo / "README.md").read_text() == "# the shop\n"


async def _list_open(pilot) -> RewindScreen:
    return await _list_open_with(pilot, 2)


async def _list_open_with(pilot, count: int) -> RewindScreen:
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, RewindScreen), 10, "the rewind list")
    screen = pilot.app.screen
    assert isinstance(screen, RewindScreen)
    await wait_for(pilot, lambda: len(screen.points) == count, 10, "the previews")
    return screen


async def test_escape_twice_opens_the_list_and_enter_goes_back_with_the_words_in_the_prompt(make_app, claude_double, repo):
    app = make_app(memory_mode="none", code_writes="auto")
    async with app.run_test(size=(120, 40)) as pilot:
        await _two_turns(pilot, claude_double, repo)
        await pilot.press("escape", "escape")
        screen = await _list_open(pilot)
        assert screen.points[0].turn == 2  # newest first, highlighted
        preview = str(screen.query_one("#preview").render())
        assert "README.md: back as it was (+1 −1)" in preview and "1 turn leave" in preview
        await pilot.press("down")  # turn 1
        await pilot.press("1")  # the conversation stays
        await pilot.press("enter")
        await wait_for(pilot, lambda: not isinstance(app.screen, RewindScreen), 10, "the rewind")
        await wait_for(pilot, lambda: not (repo / "notes.txt").exists(), 10, "the files back")
        assert (repo / "README.md").read_text() == "# shop\n"
        assert app.query_one("#prompt", Prompt).value == ""  # the conversation was not chosen
        # u undoes it
        await pilot.press("escape", "escape")
        await _list_open(pilot)
        await pilot.press("u")
        await wait_for(pilot, lambda: (repo / "notes.txt").exists(), 10, "the undo")
        assert (repo / "README.md").read_text() == "# the shop\n"


async def test_go_back_to_before_the_rename_opens_the_list_on_that_turn(make_app, claude_double, repo):
    app = make_app(memory_mode="none", code_writes="auto")
    async with app.run_test(size=(120, 40)) as pilot:
        await _two_turns(pilot, claude_double, repo)
        requests = len(claude_double.messages_requests())
        prompt = app.query_one("#prompt", Prompt)
        prompt.value = "go back to before the rename"
        await pilot.press("enter")
        screen = await _list_open(pilot)
        assert len(claude_double.messages_requests()) == requests  # not a question to the agent
        assert screen.query_one("#turns").highlighted == 0 and screen.points[0].turn == 2
        await pilot.press("enter")
        await wait_for(pilot, lambda: prompt.value == "rename the heading of the readme", 10, "the words back")
        assert (repo / "README.md").read_text() == "# shop\n" and (repo / "notes.txt").exists()
        assert len(app.turns.session.turns_to_rewind()) == 1
        # the question that left the conversation, and its reply, are drawn faint; the first is not
        asked = list(app.query(UserTurn))
        assert [turn.has_class("-rewound") for turn in asked] == [False, True]
        await pilot.press("escape", "escape")
        await _list_open_with(pilot, 1)
        await pilot.press("u")
        await wait_for(pilot, lambda: not any(t.has_class("-rewound") for t in app.query(UserTurn)), 10, "the undo")


async def test_the_palette_offers_rewind(make_app):
    app = make_app(memory_mode="none")
    async with app.run_test(size=(120, 40)) as pilot:
        assert "Rewind" in [c.title for c in app.get_system_commands(app.screen)]
        await pilot.pause()


async def test_a_spoken_go_back_opens_the_list_and_the_whole_utterance_replaces_it(make_app, claude_double, repo):
    app = make_app(memory_mode="none", code_writes="auto")
    async with app.run_test(size=(120, 40)) as pilot:
        await _two_turns(pilot, claude_double, repo)
        requests = len(claude_double.messages_requests())
        # the recorder sends the first sentence at once; the speaker goes on, so it is taken back
        await app.submit_tentative("go back to before the notes")
        await app.withdraw_turn("go back to before the notes")
        await app.submit_tentative("go back to before the notes file")
        await app.confirm_turn("go back to before the notes file")
        screen = await _list_open(pilot)
        assert screen.points[screen.query_one("#turns").highlighted].turn == 1
        assert len(app.screen_stack) == 2  # one list, not one a hearing
        assert len(claude_double.messages_requests()) == requests
