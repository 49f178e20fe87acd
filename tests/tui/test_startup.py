"""What the first turn needs is started at launch, and a turn that waits for it says for what."""

from __future__ import annotations

import threading

from tests.double.server import text
from tests.tui.conftest import screen_lines, wait_for
from tui.widgets.conversation.lines import ThinkingLine
from tui.widgets.conversation.reply import Reply


async def test_the_session_and_its_client_are_ready_before_any_question(make_app, claude_double):
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: app.turns.session is not None, 120, "the session")
        # the client the first turn uses exists already: nothing is left for the first turn to build
        assert app.turns.session._client is not None
        assert app.turns.loading_stage is None and app.turns.waiting_for() is None


def hold_the_session(monkeypatch) -> threading.Event:
    """The real session, held back (as a slow machine would hold it) until the event is set."""
    import agent.loop.session

    gate = threading.Event()

    class SlowToStart(agent.loop.session.Session):
        def __init__(self, *args, **kwargs) -> None:
            gate.wait(60)
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(agent.loop.session, "Session", SlowToStart)
    return gate


async def test_a_question_typed_at_once_says_what_it_waits_for(make_app, claude_double, monkeypatch):
    gate = hold_the_session(monkeypatch)
    claude_double.add(text("Here now."))
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        app.prompt.value = "first question"
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.turns.loading_stage == "the session to start (memory, tools)", 30, "the stage")
        await wait_for(pilot, lambda: "waiting for the session to start" in app.status.info.activity, 10, "the activity")
        (thinking,) = app.query(ThinkingLine)
        assert thinking.label == "waiting for the session to start (memory, tools)"
        gate.set()
        # the status is cleared once the turn's end has been shown, just after it stops running
        await wait_for(pilot, lambda: not app.running and app.status.info.activity == "", 60, "the turn's end")
        assert "Here now." in app.query_one(Reply).source


async def test_what_can_wait_waits_for_the_first_answer_to_a_question_asked_at_launch(make_app, claude_double, monkeypatch):
    from tests.double.server import reply

    # the session starts only once the question is in, as on a slow machine: in a test run
    # whose earlier tests imported everything, it could otherwise be up before the key
    asked = hold_the_session(monkeypatch)
    # the answer starts two seconds after the question reaches the model
    claude_double.add(reply(text("Here it is."), wait=2.0))
    app = make_app()
    # whether the answer was written when the refresh that ends the wait was asked for, and
    # drawn when it came: asked for any earlier, that refresh can be one that only took the
    # waiting line away, and the imports then share the interpreter with drawing the answer
    written_when_asked: list[bool] = []
    shown_when_settled: list[bool] = []
    async with app.run_test(size=(100, 30)) as pilot:
        answered, after_refresh = app.turns.answered, app.call_after_refresh

        def noting_what_is_shown() -> None:
            shown_when_settled.append("Here it is." in "\n".join(screen_lines(app)))
            answered()

        def noting_what_is_written(callback, *args, **kwargs):
            if callback is noting_what_is_shown:
                written_when_asked.append("Here it is." in "".join(r.source for r in app.query(Reply)))
            return after_refresh(callback, *args, **kwargs)

        app.turns.answered = noting_what_is_shown
        app.call_after_refresh = noting_what_is_written
        app.prompt.value = "first question"
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.turns.running, 10, "the question")
        asked.set()
        await wait_for(pilot, lambda: app.turns.ready.is_set(), 120, "the session")
        await wait_for(pilot, lambda: len(claude_double.requests) == 1, 30, "the question to reach the model")
        # the session is up, but the question still waits for its answer: the memory
        # checks, Markdown and the voice wait with it
        assert not app.turns.settled.is_set()
        await pilot.pause(0.5)
        assert app.memory_pane.listing.trust is None
        await wait_for(pilot, lambda: "Here it is." in "".join(r.source for r in app.query(Reply)), 30, "the answer")
        # once the answer has been drawn (the refresh after it), not before
        await wait_for(pilot, lambda: app.turns.settled.is_set(), 5, "what waited, after the answer")
        assert written_when_asked and all(written_when_asked), written_when_asked
        assert shown_when_settled and all(shown_when_settled), shown_when_settled
        await wait_for(pilot, lambda: app.memory_pane.listing.trust is not None, 30, "the memory checks")


async def test_without_a_question_what_can_wait_goes_once_the_session_is_up(make_app, claude_double):
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: app.turns.ready.is_set(), 120, "the session")
        await wait_for(pilot, lambda: app.turns.settled.is_set(), 5, "the rest of the start-up")
        await wait_for(pilot, lambda: app.memory_pane.listing.trust is not None, 30, "the memory checks")


async def test_once_the_session_is_up_old_transcripts_go_but_not_a_resumed_one(repo, store, claude_double):
    from datetime import UTC, datetime

    from agent.settings.config import AgentConfig
    from tests.agent.test_sessions import age, write_session
    from tui.app import DevAgentApp

    start = datetime(2026, 1, 2, 9, 30, tzinfo=UTC)
    ancient = write_session(repo, start, ["a question from long ago"])
    resumed = write_session(repo, start.replace(day=3), ["the one to go on with"])
    for path in (ancient, resumed):
        age(path, 400)
    app = DevAgentApp(repo, AgentConfig(thinking="off"), store=store, probe_voice=False, resume=resumed.name.split(".")[0])
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: app.turns.session is not None, 120, "the session")
        await wait_for(pilot, lambda: not ancient.exists(), 10, "the old transcript to go")
        assert resumed.exists()  # the session writes on into it
        assert app.turns.session.transcript.path == resumed


def test_a_turn_that_ends_leaves_what_waited_to_the_refresh_that_draws_its_end(tmp_path):
    from agent.settings.config import AgentConfig
    from tui.turns.driver import TurnDriver

    # a short reply comes with its end in one batch: ending the turn must not release what
    # waited before the refresh that draws the reply has come
    # begin and finish run nothing off the UI thread: no worker is asked for
    driver = TurnDriver(tmp_path, AgentConfig(thinking="off"), store=None, wake=lambda: None, spawn=lambda work, name: None)
    driver.ready.set()
    driver.begin()
    driver.finish()
    assert not driver.running
    assert not driver.settled.is_set()
    driver.answered()
    assert driver.settled.is_set()
