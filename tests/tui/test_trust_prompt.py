"""The trust dialog in the app: what would run, y/Enter and n/Esc, a spoken yes or no.

Through the Claude double on a repository whose .venv python and conftest.py drop a mark."""

from __future__ import annotations

import pytest

from agent.workspace_trust import TrustStore
from tests.double.server import tool_use
from tests.hostile_repos import dropped, python_repo
from tests.tui.conftest import wait_for
from tui.screens.trust import TYPED_AHEAD_SECONDS, TrustPrompt, spoken_trust
from tui.widgets.prompt import Prompt

# unsandboxed: the repository's .venv python and conftest.py mark what ran in a folder outside
# the repository, which build's sandbox keeps read-only; these tests are about the dialog
pytestmark = [pytest.mark.usefixtures("claude_double", "unsandboxed"), pytest.mark.slow]


def _app(repo, **voice):
    from agent.settings.config import AgentConfig
    from memory.store import MemoryStore
    from tui.app import DevAgentApp

    return DevAgentApp(repo, AgentConfig(thinking="off", memory_mode="none"), store=MemoryStore.for_repository(repo),
                       **voice)


async def _asked(pilot, app, claude_double) -> TrustPrompt:
    claude_double.add(tool_use("test", {}, id="t1"))
    claude_double.add("Done.")
    prompt = app.query_one("#prompt", Prompt)
    prompt.focus()
    prompt.value = "Run the tests."
    await pilot.press("enter")
    await wait_for(pilot, lambda: isinstance(app.screen, TrustPrompt), 20, "the trust dialog")
    await pilot.pause(TYPED_AHEAD_SECONDS + 0.1)
    return app.screen


def _still_asked(app, dialog) -> bool:
    """Nothing was answered: not in the dialog, and the turn still waits for the answer."""
    return dialog.decided is None and app.turns.session.decisions.waiting(dialog.request.id)


async def test_keys_answer_the_dialog_which_shows_what_would_run(tmp_path, claude_double):
    for key, trusted in (("y", True), ("enter", True), ("n", False), ("escape", False)):
        await _key_answers(tmp_path / key, claude_double, key, trusted)


async def _key_answers(root, claude_double, key, trusted):
    repo = python_repo(root)
    app = _app(repo)
    async with app.run_test(size=(80, 24)) as pilot:
        dialog = await _asked(pilot, app, claude_double)
        shown = dialog.query_one("#trust-details").render().plain
        command = dialog.request.run.commands[0]
        assert command.startswith(str(repo.resolve() / ".venv" / "bin" / "python") + " -m pytest")
        assert command.replace(" ", "") in shown.replace(" ", "").replace("\n", "")  # wrapped at 80 columns
        assert str(repo.resolve()) in shown.replace("\n", "")
        assert dropped(root) == []
        await pilot.press(key)
        await wait_for(pilot, lambda: not app.running, 30, "the turn to finish")
        assert not isinstance(app.screen, TrustPrompt)
        assert ("conftest" in dropped(root)) is trusted
        assert TrustStore().decision(repo).trusted is trusted
        assert app.focused is app.query_one("#prompt", Prompt)


async def test_keys_typed_as_it_opens_decide_nothing(tmp_path, claude_double, monkeypatch):
    import tui.screens.trust

    monkeypatch.setattr(tui.screens.trust, "TYPED_AHEAD_SECONDS", 5.0)  # a slow machine's moment
    root = tmp_path / "sandbox"
    repo = python_repo(root)
    app = _app(repo)
    async with app.run_test(size=(160, 48)) as pilot:
        claude_double.add(tool_use("test", {}, id="t1"), "Done.")
        prompt = app.query_one("#prompt", Prompt)
        prompt.focus()
        prompt.value = "Run the tests."
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, TrustPrompt), 20, "the trust dialog")
        await pilot.press("y")  # typed for the prompt the dialog just covered
        await pilot.pause(0.2)
        assert isinstance(app.screen, TrustPrompt) and _still_asked(app, app.screen)
        app.screen.opened -= 5.0
        await pilot.press("n")
        await wait_for(pilot, lambda: not app.running, 30, "the turn to finish")
        assert dropped(root) == []


async def test_a_spoken_answer_decides_once_the_recording_confirms_it(tmp_path, claude_double):
    for said, trusted in (("Yes.", True), ("No.", False)):
        await _spoken_answers(tmp_path / said[:-1], claude_double, said, trusted)


async def _spoken_answers(root, claude_double, said, trusted):
    repo = python_repo(root)
    app = _app(repo)
    async with app.run_test(size=(160, 48)) as pilot:
        dialog = await _asked(pilot, app, claude_double)
        await app.submit_tentative(said)
        await pilot.pause(0.3)
        assert _still_asked(app, dialog)  # the speaker may still go on
        await app.withdraw_turn(said)  # and did: "yes, but only the fast ones" decided nothing
        await pilot.pause(0.3)
        assert _still_asked(app, dialog) and isinstance(app.screen, TrustPrompt)
        await app.submit_tentative(said)
        await app.confirm_turn(said)
        await wait_for(pilot, lambda: not app.running, 30, "the turn to finish")
        assert ("conftest" in dropped(root)) is trusted


def test_spoken_words():
    assert spoken_trust("Yes, trust it.") is True and spoken_trust("Don't trust it!") is False
    assert spoken_trust("yes but only the tests") is None


def _voice(unavailable: str | None = None):
    """A voice whose microphone is a second of silence (or that has none: `unavailable`); its
    speech model is never loaded, as nothing is said."""
    import numpy as np

    from agent.voice.controller import VoiceController
    from agent.voice.push_to_talk import PushToTalk
    from agent.voice.recorder import Recorder, WavSource
    from agent.voice.stack import VoiceStack
    from agent.voice.stt import Transcriber

    def factory(repo_path, sink):
        push_to_talk = PushToTalk(Recorder(WavSource(samples=np.zeros(16000, np.float32))), Transcriber("tiny.en"), sink)
        if unavailable:
            push_to_talk.set_unavailable(unavailable)
        return VoiceStack(push_to_talk, None, unavailable)

    return VoiceController(stack_factory=factory)


async def test_the_dialog_asks_for_a_spoken_answer_only_when_the_voice_can_hear(tmp_path, claude_double):
    for hearing in ("off", "no device", "hears"):
        await _asks_to_say(tmp_path / hearing.replace(" ", "-"), claude_double, hearing)


async def _asks_to_say(root, claude_double, hearing):
    repo = python_repo(root)
    controller = None
    if hearing == "off":
        app = _app(repo, probe_voice=False, voice_off="turned off (--no-voice)")
    else:
        controller = _voice("no audio input device" if hearing == "no device" else None)
        app = _app(repo, voice=controller)
    async with app.run_test(size=(80, 24)) as pilot:
        if controller is not None:
            await wait_for(pilot, controller.loaded.is_set, 20, "the voice to load")
        dialog = await _asked(pilot, app, claude_double)
        await pilot.pause(0.6)  # the dialog looks again every half second
        say = dialog.query_one("#trust-say")
        assert say.display is (hearing == "hears")
        assert (say.region.height > 0) is (hearing == "hears")  # on the screen, or not at all
        await pilot.press("n")
        await wait_for(pilot, lambda: not app.running, 30, "the turn to finish")


async def test_an_answer_kept_under_the_old_key_is_asked_again_and_the_dialog_says_why(tmp_path, claude_double):
    from tests.agent.test_borrowed_trust import kept_under_the_old_key

    root = tmp_path / "sandbox"
    repo = python_repo(root)
    kept_under_the_old_key(repo)
    app = _app(repo)
    async with app.run_test(size=(80, 24)) as pilot:
        dialog = await _asked(pilot, app, claude_double)
        said = dialog.query_one("#trust-why").render().plain.replace("\n", " ")
        assert "old key" in said and "Asked again" in said
        shown = dialog.query_one("#trust-details").render().plain.replace("\n", "")
        assert "trusted on 2026-11-01" in shown and str((repo / ".git").resolve()) in shown.replace(" ", "")
        assert dialog.query_one("#trust-yes").region.bottom <= 24  # the buttons still fit at 80x24
        await pilot.press("y")
        await wait_for(pilot, lambda: not app.running, 30, "the turn to finish")
        assert TrustStore().trusted(repo) and "conftest" in dropped(root)
