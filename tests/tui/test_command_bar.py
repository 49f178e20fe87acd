"""The command bar in the app: the exact command and its reason, once / always / no by keys, an
edit before running, a spoken yes or no, the output on the screen pane, Esc ending a running
command, and the palette's list of "always" answers.

Through the Claude double on a fresh trusted repository for each case; what ran is read
from the files the command leaves in the repository.
"""

from __future__ import annotations

import pytest

from agent.command_consent import AllowedCommands
from agent.workspace_trust import TrustStore
from tests.double.server import tool_use
from tests.repos import git_repo
from tests.system_packages import needs
from tests.tui.conftest import wait_for
from tui.screens.allowed_commands import AllowedCommandsScreen
from tui.screens.command import TYPED_AHEAD_SECONDS, CommandPrompt, spoken_command
from tui.widgets.prompt import Prompt

pytestmark = [pytest.mark.usefixtures("claude_double"), pytest.mark.slow, needs("bubblewrap")]
MAKE = "echo made > made.txt"


def _repo(root):
    repo = git_repo(root / "shop", {"app.py": "print('hi')\n"}, commit=True)
    TrustStore().remember(repo, True)
    return repo


def _app(repo):
    from agent.settings.config import AgentConfig
    from memory.store import MemoryStore
    from tui.app import DevAgentApp

    return DevAgentApp(repo, AgentConfig(thinking="off", memory_mode="none"), store=MemoryStore.for_repository(repo))


async def _asked(pilot, app, claude_double, command=MAKE) -> CommandPrompt:
    claude_double.add(tool_use("run_command", {"command": command, "reason": "to make the file"}))
    claude_double.add("Done.")
    prompt = app.query_one("#prompt", Prompt)
    prompt.focus()
    prompt.value = "Make the file."
    await pilot.press("enter")
    await wait_for(pilot, lambda: isinstance(app.screen, CommandPrompt), 20, "the command bar")
    await pilot.pause(TYPED_AHEAD_SECONDS + 0.1)
    return app.screen


async def test_keys_answer_once_always_or_no_and_the_bar_shows_the_command_and_why(tmp_path, claude_double):
    for key, ran, kept in (("enter", True, False), ("y", True, False), ("a", True, True), ("n", False, False),
                           ("escape", False, False)):
        repo = _repo(tmp_path / key)
        app = _app(repo)
        async with app.run_test(size=(80, 24)) as pilot:
            bar = await _asked(pilot, app, claude_double)
            assert bar.text == MAKE
            assert "to make the file" in bar.query_one("#command-why").render().plain
            assert "no network" in bar.query_one("#command-where").render().plain
            await pilot.press(key)
            await wait_for(pilot, lambda app=app: not app.running, 30, "the turn to finish")
            assert (repo / "made.txt").exists() is ran, key
            assert [a.command for a in AllowedCommands().listing(repo)] == ([MAKE] if kept else []), key
            assert app.focused is app.query_one("#prompt", Prompt)
            if ran:  # its output and how it ended are on the screen pane
                assert "exit code 0" in app.screen_pane.current.title


async def test_the_user_edits_the_command_and_allows_the_network_before_it_runs(tmp_path, claude_double):
    repo = _repo(tmp_path)
    app = _app(repo)
    async with app.run_test(size=(160, 48)) as pilot:
        bar = await _asked(pilot, app, claude_double)
        await pilot.press("w")
        assert "with the network" in bar.query_one("#command-where").render().plain
        await pilot.press("e")
        for _ in MAKE[MAKE.index("made.txt"):]:
            await pilot.press("backspace")
        await pilot.press(*"edited.txt")
        await pilot.press("enter")
        await wait_for(pilot, lambda app=app: not app.running, 30, "the turn to finish")
        assert (repo / "edited.txt").exists() and not (repo / "made.txt").exists()
        result = claude_double.messages_requests()[-1].tool_results()[0]["content"]
        assert "after editing it from" in result and "with the network" in result


async def test_a_spoken_answer_decides_once_the_recording_confirms_it(tmp_path, claude_double):
    for said, ran in (("Yes.", True), ("No.", False), ("Always.", True)):
        repo = _repo(tmp_path / said[:-1])
        app = _app(repo)
        async with app.run_test(size=(160, 48)) as pilot:
            bar = await _asked(pilot, app, claude_double)
            await app.submit_tentative(said)
            await pilot.pause(0.3)
            assert bar.decided is None  # the speaker may still go on
            await app.withdraw_turn(said)
            await pilot.pause(0.3)
            assert bar.decided is None and isinstance(app.screen, CommandPrompt)
            await app.submit_tentative(said)
            await app.confirm_turn(said)
            await wait_for(pilot, lambda app=app: not app.running, 30, "the turn to finish")
            assert (repo / "made.txt").exists() is ran, said
            assert bool(AllowedCommands().listing(repo)) is (said == "Always."), said


async def test_esc_ends_a_running_command_and_the_pane_says_so(tmp_path, claude_double):
    repo = _repo(tmp_path)
    app = _app(repo)
    async with app.run_test(size=(160, 48)) as pilot:
        await _asked(pilot, app, claude_double, "echo started; sleep 600")
        await pilot.press("enter")
        await wait_for(pilot, lambda: "started" in (app.screen_pane.current.content if app.screen_pane.current else ""),
                       30, "the output on the screen pane")
        assert app.screen_pane.current.title.startswith("Running: $ echo started")
        await pilot.press("escape")
        await wait_for(pilot, lambda: not app.running, 30, "the turn to end")
        await wait_for(pilot, lambda: "cancelled" in app.screen_pane.current.title, 30, "the pane to say it ended")


async def test_the_palette_lists_the_always_answers_and_takes_one_back(tmp_path):
    repo = _repo(tmp_path)
    AllowedCommands().remember(repo, "npm run lint", False)
    AllowedCommands().remember(repo, "make check", True)
    app = _app(repo)

    def listed() -> int | None:
        found = app.screen.query("OptionList") if isinstance(app.screen, AllowedCommandsScreen) else None
        return found.first().option_count if found else None

    async with app.run_test(size=(80, 24)) as pilot:
        app.main_screen.action_allowed_commands()
        await wait_for(pilot, lambda: listed() == 2, 10, "the list")
        await pilot.press("delete")  # the first: make check
        await wait_for(pilot, lambda: listed() == 1, 10, "the list again, shorter")
        assert [a.command for a in AllowedCommands().listing(repo)] == ["npm run lint"]
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.focused is app.query_one("#prompt", Prompt), 10, "the prompt")


def test_spoken_words():
    assert spoken_command("Yes, run it.") == "once" and spoken_command("Always!") == "always"
    assert spoken_command("No thanks.") == "no" and spoken_command("yes but with the network") is None


async def test_the_bar_invites_a_spoken_answer_only_while_the_voice_hears(tmp_path, claude_double):
    repo = _repo(tmp_path)
    app = _app(repo)
    async with app.run_test(size=(80, 24)) as pilot:
        bar = await _asked(pilot, app, claude_double)
        keys = bar.query_one("#command-keys")
        assert "say" not in keys.render().plain  # --no-voice here: nothing hears
        app.main_screen.hears = True  # the voice came up while the bar asks
        await pilot.pause(0.1)
        assert 'say "yes", "always" or "no"' in keys.render().plain
        await pilot.press("n")
        await wait_for(pilot, lambda: not app.running, 30, "the turn to finish")
