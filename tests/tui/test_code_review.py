"""A held code change in the app: its diff on the screen pane, Enter applies, Esc keeps
the file, a spoken "apply" applies; Ctrl+R undoes. Through the Claude double."""

from __future__ import annotations

import pytest

from agent.tools.text_editor import EDITOR_NAME
from tests.double.server import tool_use
from tests.tui.conftest import wait_for
from tui.widgets.conversation.code_review import CodeReviewBar, spoken_decision
from tui.widgets.prompt import Prompt

pytestmark = [pytest.mark.usefixtures("claude_double"), pytest.mark.slow]
SOURCE = "class ReviewOrchestrator {}\n"
RENAME = {"command": "str_replace", "path": "src/ReviewOrchestrator.cs", "old_str": "ReviewOrchestrator",
          "new_str": "ReviewCoordinator"}


async def held_change(pilot, app, claude_double) -> CodeReviewBar:
    claude_double.add(tool_use(EDITOR_NAME, RENAME))
    claude_double.add("Renamed the class.")
    prompt = app.query_one("#prompt", Prompt)
    prompt.focus()
    prompt.value = "Finish the rename."
    await pilot.press("enter")
    await wait_for(pilot, lambda: bool(app.query(CodeReviewBar)), 20, "the change to wait")
    # the bar is in the DOM a moment before its focus lands (Widget.focus is deferred):
    # the user's Enter comes once the bar is seen focused, and so does the test's
    await wait_for(pilot, lambda: isinstance(app.focused, CodeReviewBar), 5, "the bar to take the focus")
    return app.query_one(CodeReviewBar)


async def test_enter_applies_the_held_change(make_app, claude_double, repo):
    app = make_app()
    async with app.run_test(size=(160, 48)) as pilot:
        bar = await held_change(pilot, app, claude_double)
        assert app.focused is bar
        item = app.screen_pane.current
        assert item.format == "diff" and "+class ReviewCoordinator {}" in item.content
        assert app.panes.screen_shown
        assert "Enter apply" in str(bar.render())
        await wait_for(pilot, lambda: "Enter applies" in app.status.render().plain, 5, "the status to say what waits")
        assert (repo / "src" / "ReviewOrchestrator.cs").read_text() == SOURCE  # nothing written yet
        await pilot.press("enter")
        await wait_for(pilot, lambda: not app.running, 20, "the turn to finish")
        assert (repo / "src" / "ReviewOrchestrator.cs").read_text() == "class ReviewCoordinator {}\n"
        assert not app.query(CodeReviewBar)
        # the diff no longer says it waits
        assert app.screen_pane.current.title == "Applied: src/ReviewOrchestrator.cs (+1 −1)"
        assert "Applied: src/ReviewOrchestrator.cs" in str(app.screen_pane.border_title)
        from tui.widgets.conversation.lines import ToolLine

        assert "applied" in app.query_one(ToolLine).line().plain
        result = claude_double.messages_requests()[1].tool_results()[0]
        assert result["content"].startswith("The user applied the change.")
        # the palette lists the session's change set, and offers the undo
        def code_commands():
            commands = list(app.get_system_commands(app.screen))
            return commands[[c.title for c in commands].index("Undo code change"):]

        titles = [c.title for c in code_commands()]
        assert titles == ["Undo code change", "Code change 1: src/ReviewOrchestrator.cs (+1 −1)"]
        # Ctrl+R puts it back, and the palette then says it was undone
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: (repo / "src" / "ReviewOrchestrator.cs").read_text() == SOURCE, 10, "the undo")
        assert "undone" in [c.help for c in code_commands()][1]


async def test_undo_refuses_when_the_file_changed_since(make_app, claude_double, repo):
    app = make_app()
    async with app.run_test(size=(160, 48)) as pilot:
        await held_change(pilot, app, claude_double)
        await pilot.press("enter")
        await wait_for(pilot, lambda: not app.running, 20, "the turn to finish")
        (repo / "src" / "ReviewOrchestrator.cs").write_text("class ReviewCoordinator { int x; }\n")
        said: list[str] = []
        notify = app.notify
        app.notify = lambda message, **kw: (said.append(message), notify(message, **kw))
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: any(m.startswith("Not undone: src/ReviewOrchestrator.cs changed") for m in said), 10,
                       "the refusal")
        assert (repo / "src" / "ReviewOrchestrator.cs").read_text() == "class ReviewCoordinator { int x; }\n"


async def test_escape_keeps_the_file(make_app, claude_double, repo):
    app = make_app()
    async with app.run_test(size=(160, 48)) as pilot:
        await held_change(pilot, app, claude_double)
        await pilot.press("escape")
        await wait_for(pilot, lambda: not app.running, 20, "the turn to finish")
        assert (repo / "src" / "ReviewOrchestrator.cs").read_text() == SOURCE
        result = claude_double.messages_requests()[1].tool_results()[0]
        assert result["is_error"] and result["content"].startswith("Not applied: the user kept")
        assert app.screen_pane.current.title.startswith("Kept as it was, not applied: src/ReviewOrchestrator.cs")
        from tui.widgets.conversation.lines import ToolLine

        assert "kept as it was" in app.query_one(ToolLine).line().plain
        # the conversation says what happened in the user's words; the model's note stays in its tool result
        from tui.widgets.conversation.lines import Notice

        notices = " ".join(str(n.render()) for n in app.query(Notice))
        assert "you kept src/ReviewOrchestrator.cs as it was" in notices and "Ask what they want" not in notices


async def test_a_spoken_apply_applies_it(make_app, claude_double, repo):
    app = make_app()
    async with app.run_test(size=(160, 48)) as pilot:
        await held_change(pilot, app, claude_double)
        # what the voice controller hands the app once speech became text
        assert await app.submit_turn("Apply.")
        await wait_for(pilot, lambda: not app.running, 20, "the turn to finish")
        assert (repo / "src" / "ReviewOrchestrator.cs").read_text() == "class ReviewCoordinator {}\n"
        assert app.turns.next_queued() is None  # the word decided; it was not queued as a question


async def test_keys_and_words_decide_through_one_message_and_a_stale_one_is_dropped(make_app, claude_double, repo):
    """The bar holds only the change's id; Enter, "apply" and Esc each post `Decided` up, and
    the app hands it down to the turn by that id. One for a change no longer waiting
    (a key press that arrives late) is dropped and decides nothing."""
    from tui.decided import Decided

    app = make_app()
    handed: list[tuple[str, bool, bool]] = []
    async with app.run_test(size=(160, 48)) as pilot:
        decide = app.turns.decide
        app.turns.decide = lambda about, yes, **more: handed.append((about, yes, decide(about, yes, **more))) or handed[-1][2]
        bar = await held_change(pilot, app, claude_double)
        assert not [v for v in vars(bar).values() if type(v).__module__.startswith("agent.")]  # nothing of the agent's
        app.post_message(Decided("an-earlier-change", True))
        await wait_for(pilot, lambda: len(handed) == 1, 5, "the stale answer")
        await pilot.pause(0.3)
        assert handed == [("an-earlier-change", True, False)]
        assert (repo / "src" / "ReviewOrchestrator.cs").read_text() == SOURCE and app.running
        assert app.turns.session.decisions.waiting(bar.change_id)
        assert await app.submit_turn("Apply.")
        await wait_for(pilot, lambda: not app.running, 20, "the turn to finish")
        assert handed[1:] == [(bar.change_id, True, True)]
        assert (repo / "src" / "ReviewOrchestrator.cs").read_text() == "class ReviewCoordinator {}\n"
        # Enter on a bar that already decided posts nothing more
        assert not bar.decide(False) and len(handed) == 2


class HeardVoice:
    """A voice that keeps what it was given to say (the seam the real controller fills)."""

    def __init__(self) -> None:
        import threading

        self.said: list[str] = []
        self.loaded = threading.Event()
        self.loaded.set()

    def attach(self, app) -> None: ...
    def push_to_talk(self) -> None: ...
    def enter(self) -> bool:
        return False
    def cancel(self) -> bool:
        return False
    def toggle_mute(self) -> bool:
        return False
    def turn_started(self) -> None: ...
    def reply_delta(self, text: str) -> None:
        self.said.append(text)
    def reply_finished(self, cancelled: bool) -> None: ...
    def close(self) -> None: ...


async def test_the_voice_says_what_changed_and_how_to_apply_never_the_diff(repo, store, claude_double):
    from agent.settings.config import AgentConfig
    from agent.voice.speakable import SpeechFilter
    from tui.app import DevAgentApp

    voice = HeardVoice()
    app = DevAgentApp(repo, AgentConfig(thinking="off"), store=store, voice=voice, probe_voice=False)
    async with app.run_test(size=(160, 48)) as pilot:
        await held_change(pilot, app, claude_double)
        (sentence,) = [s for s in voice.said if "changed" in s]
        assert "src/ReviewOrchestrator.cs" in sentence and "say apply or press Enter" in sentence
        assert "ReviewCoordinator" not in sentence and "@@" not in sentence
        await pilot.press("enter")
        await wait_for(pilot, lambda: not app.running, 20, "the turn to finish")
    gate = SpeechFilter()
    assert [gate.accept(line) for line in ("@@ -1 +1 @@", "--- a/app.py", "+++ b/app.py")] == [None, None, None]


def test_spoken_decisions():
    assert spoken_decision("Apply.") is True and spoken_decision("yes") is True
    assert spoken_decision("No!") is False and spoken_decision("keep it") is False
    assert spoken_decision("why did you change that?") is None


async def test_at_80x24_the_diff_takes_the_screen_then_gives_the_conversation_back(make_app, claude_double, repo):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        assert not app.panes.screen_shown
        await held_change(pilot, app, claude_double)
        assert app.panes.screen_shown and app.screen_pane.current.format == "diff"
        await pilot.press("enter")
        await wait_for(pilot, lambda: not app.running, 20, "the turn to finish")
        assert not app.panes.screen_shown
        assert (repo / "src" / "ReviewOrchestrator.cs").read_text() == "class ReviewCoordinator {}\n"


async def test_a_tentative_spoken_apply_waits_until_the_recording_confirms_it(make_app, claude_double, repo):
    """Push-to-talk sends "Yes." at once and listens on: "yes, but rename it first" must
    not apply the change, so a decision waits for the confirmation (tui/app.py, its spoken turns)."""
    app = make_app()
    source = repo / "src" / "ReviewOrchestrator.cs"
    async with app.run_test(size=(160, 48)) as pilot:
        await held_change(pilot, app, claude_double)
        await app.submit_tentative("Yes.")
        await pilot.pause(0.3)
        assert source.read_text() == SOURCE and app.query(CodeReviewBar) and app.running
        await app.withdraw_turn("Yes.")  # the speaker went on: it decided nothing
        await pilot.pause(0.3)
        assert source.read_text() == SOURCE and app.query(CodeReviewBar) and app.running
        assert app.turns.next_queued() is None
        await app.submit_tentative("Apply.")
        await pilot.pause(0.3)
        assert source.read_text() == SOURCE
        await app.confirm_turn("Apply.")  # nothing more was said
        await wait_for(pilot, lambda: not app.running, 20, "the turn to finish")
        assert source.read_text() == "class ReviewCoordinator {}\n"


async def test_a_tentative_question_withdrawn_without_a_key_leaves_the_conversation(make_app, no_key):
    from tui.widgets.conversation.lines import UserTurn

    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await app.submit_tentative("Run the tests.")
        await wait_for(pilot, lambda: bool(app.query(UserTurn)), 5, "the question")
        await app.withdraw_turn("Run the tests.")
        await pilot.pause(0.2)
        assert not app.query(UserTurn)


def rename_then_the_tests(after_the_rename: dict):
    """A model that renames the class, says `after_the_rename` once the edit's result is in,
    and answers the whole question that follows a withdrawn one."""
    from tests.double.server import text

    def responder(request):
        if "run the tests" in request.last_user_text():
            return text("Two tests failed.")
        if request.tool_results():
            return after_the_rename
        return tool_use(EDITOR_NAME, RENAME)

    return responder


async def test_a_withdrawn_spoken_question_takes_back_what_it_wrote_in_auto_mode(make_app, claude_double, repo):
    """The speaker went on within the grace window: the question was never asked, so the
    files its turn wrote by itself (code writes `auto`) go back as they were."""
    from agent.tools.editor.journal import history
    from tests.double.server import reply, text
    from tui.widgets.conversation.lines import Notice

    source = repo / "src" / "ReviewOrchestrator.cs"
    # the turn is still running when taken back
    claude_double.responder = rename_then_the_tests(reply(text("Renamed the class."), wait=2.0))
    app = make_app(code_writes="auto")
    async with app.run_test(size=(160, 48)) as pilot:
        await app.submit_tentative("Rename the class.")
        await wait_for(pilot, lambda: source.read_text() != SOURCE, 20, "the auto write")
        assert source.read_text() == "class ReviewCoordinator {}\n"
        await app.withdraw_turn("Rename the class.")
        await wait_for(pilot, lambda: source.read_text() == SOURCE, 20, "the write to be taken back")
        await wait_for(pilot, lambda: any("taken back had changed files" in str(n.render()) for n in app.query(Notice)), 10,
                       "the notice")
        assert [c.state for c in history(repo)] == ["undone"]
        # the whole question follows, and the model sees the file as it is
        await app.submit_turn("Rename the class, then run the tests.")
        # (the status is cleared once the turn's end has been shown, just after it stops running)
        await wait_for(pilot, lambda: not app.running and app.status.info.activity == "", 20, "the next turn")
        assert "failed" in app.conversation.turn_reply_text
        sent = str(claude_double.messages_requests()[-1].body["messages"])
        assert "run the tests" in sent
        assert "ReviewCoordinator" not in sent
        assert source.read_text() == SOURCE


async def test_a_withdrawn_spoken_question_takes_its_held_change_away_unapplied(make_app, claude_double, repo):
    """Review mode: the question taken back never asked for the change it holds; the bar
    goes, the file stays as it was, and the next question is not held up by it."""
    from tests.double.server import text

    source = repo / "src" / "ReviewOrchestrator.cs"
    claude_double.responder = rename_then_the_tests(text("Renamed the class."))
    app = make_app()
    async with app.run_test(size=(160, 48)) as pilot:
        await app.submit_tentative("Rename the class.")
        await wait_for(pilot, lambda: isinstance(app.focused, CodeReviewBar), 20, "the change to wait")
        await app.withdraw_turn("Rename the class.")
        await wait_for(pilot, lambda: not app.query(CodeReviewBar), 10, "the bar to go")
        assert app.screen_pane.current.title.startswith("Not applied (the question was cancelled)")
        await wait_for(pilot, lambda: not app.running and app.status.info.activity == "", 10, "the turn's end")
        assert app.turns.code_change_waiting is None
        await app.submit_turn("Rename the class, then run the tests.")
        await wait_for(pilot, lambda: not app.running and app.status.info.activity == "", 20, "the next turn")
        assert "failed" in app.conversation.turn_reply_text
        assert source.read_text() == SOURCE
        assert "ReviewCoordinator" not in str(claude_double.messages_requests()[-1].body["messages"])


async def test_the_app_finishes_at_start_a_change_set_a_killed_devagent_left_half_written(make_app, claude_double, repo,
                                                                                          tmp_path):
    from tests.tools.test_editor_nothing_lost import (
        RENAMED,
        killed_between_two_files,
        rename_everywhere,
        strays,
        texts,
        twenty_files,
    )

    twenty_files(repo)
    rename_everywhere(claude_double)
    killed_between_two_files(repo, tmp_path)
    assert texts(repo)[0] == RENAMED[0] and texts(repo)[1] != RENAMED[1] and strays(repo)  # half written
    app = make_app()
    said: list[str] = []
    notify = app.notify
    app.notify = lambda message, **kw: (said.append(message), notify(message, **kw))  # type: ignore[method-assign]
    async with app.run_test(size=(160, 48)) as pilot:
        await wait_for(pilot, lambda: any("devagent stopped while applying a change to m00.py" in m for m in said), 20,
                       "the note that the change was finished")
        assert texts(repo) == RENAMED and strays(repo) == []
