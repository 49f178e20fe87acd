"""What the API can do wrong, and how a session lives through it."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest

from agent.cancel import Cancellation
from agent.conversation.history import FAILED_NOTE
from agent.events import AgentError, TextDelta, TurnFinished
from agent.loop.session import Session
from agent.settings.config import AgentConfig, api_key_problem
from tests.agent.toolkit import EchoTool
from tests.double.server import error, reply, text, thinking, tool_use

NOW = datetime(2026, 11, 9, 9, 0, tzinfo=UTC)


def make(tmp_path: Path, **config) -> Session:
    config.setdefault("memory_mode", "none")
    return Session(tmp_path, AgentConfig(**config), tools=[EchoTool()], now=NOW)


def run(session: Session, text: str) -> list:
    events: list = []
    session.send(text, events.append)
    return events


def errors(events) -> list[str]:
    return [e.message for e in events if isinstance(e, AgentError)]


def test_429_529_and_500_are_retried(claude_double, tmp_path):
    claude_double.add(error(429), error(529), error(500), reply("Made it."))
    events = run(make(tmp_path), "hi")
    assert errors(events) == []
    assert events[-1].text == "Made it."
    assert len(claude_double.messages_requests()) == 4
    assert events[-1].usage.api_calls == 1, "refused attempts are not counted as calls"


def test_retries_wait_as_long_as_the_server_asks(claude_double, tmp_path):
    claude_double.add(error(529, retry_after_ms=400), "ok")
    began = time.monotonic()
    assert errors(run(make(tmp_path), "hi")) == []
    first, second = claude_double.messages_requests()
    assert second.time - first.time >= 0.4
    assert time.monotonic() - began < 5


def test_cancel_interrupts_the_wait_between_retries(claude_double, tmp_path):
    claude_double.add(error(529, retry_after_ms=30_000), "never sent")
    cancel = Cancellation()
    threading.Timer(0.5, cancel.cancel).start()
    events: list = []
    began = time.monotonic()
    make(tmp_path).send("hi", events.append, cancel)
    assert events[-1].cancelled and time.monotonic() - began < 5
    assert len(claude_double.messages_requests()) == 1


def test_retries_give_up_with_a_sentence_and_the_session_goes_on(claude_double, tmp_path):
    claude_double.add(*[error(529, "Overloaded")] * 3, "Back again.")
    session = make(tmp_path, max_retries=2)
    events = run(session, "hi")
    assert errors(events) == ["Claude API error 529 overloaded_error: Overloaded"]
    assert isinstance(events[-1], TurnFinished)
    events = run(session, "and now?")
    assert errors(events) == [] and events[-1].text == "Back again."
    # The failed turn is closed as such; the new words are a message of their own.
    asked, closed, again = claude_double.messages_requests()[-1].messages
    assert "hi" in asked["content"][-1]["text"]
    assert closed["content"][-1]["text"] == FAILED_NOTE.format(reason="Claude API error 529 overloaded_error: Overloaded")
    assert [b["text"] for b in again["content"]] == ["and now?"]


def test_a_400_is_shown_as_the_api_wrote_it(claude_double, tmp_path):
    message = (
        "messages.3.content.2: Invalid `signature` in `thinking` block. The block is bound to a "
        "different conversation."
    )
    claude_double.add(error(400, message))
    events = run(make(tmp_path), "hi")
    assert errors(events) == [f"Claude API error 400 invalid_request_error: {message}"]
    assert len(claude_double.messages_requests()) == 1, "a 400 is not retried"


def test_a_dropped_stream_ends_the_turn_and_the_session_goes_on(claude_double, tmp_path):
    claude_double.add(reply("This answer will never fin", chunk=4, drop_after=5), "Second try worked.")
    session = make(tmp_path)
    events = run(session, "hi")
    assert any("dropped" in m for m in errors(events))
    assert isinstance(events[-1], TurnFinished) and not events[-1].cancelled
    assert events[-1].usage.api_calls == 1
    events = run(session, "again")
    assert errors(events) == [] and events[-1].text == "Second try worked."
    # What the user saw of the half reply is kept, closed with why it stopped.
    asked, closed, again = claude_double.messages_requests()[-1].messages
    assert closed["role"] == "assistant" and closed["content"][0]["text"] == "This answer "
    assert closed["content"][1]["text"].startswith("[This turn stopped here, unfinished: The connection to Claude dropped")
    assert [b["text"] for b in again["content"]] == ["again"]


@pytest.mark.parametrize(
    "dropped",
    [
        reply("Never shown.", drop_after=0),  # right after the headers
        reply("Never shown.", drop_after=1),  # after message_start
        reply("Never shown.", drop_after=2),  # a text block started, no words yet
        reply(thinking("Let me think about this at length.", signature="s1"), "Never shown.", chunk=5, drop_after=4),
        reply(tool_use("echo", {"text": "a long input to stream"}, id="t0"), chunk=5, drop_after=4),
    ],
    ids=["after-headers", "after-message-start", "empty-text-block", "mid-thinking", "mid-tool-input"],
)
def test_a_drop_before_the_first_words_is_retried(claude_double, tmp_path, dropped):
    claude_double.add(dropped, reply("The retry answered."))
    session = make(tmp_path)
    events = run(session, "hi")
    assert errors(events) == []
    assert events[-1].text == "The retry answered."
    assert [e.text for e in events if isinstance(e, TextDelta)] == ["The retry an", "swered."]
    assert len(claude_double.messages_requests()) == 2
    assert claude_double.messages_requests()[1].messages == claude_double.messages_requests()[0].messages
    # The next turn sees one clean exchange: nothing of the dropped attempt was kept.
    claude_double.add("Next.")
    assert run(session, "again")[-1].text == "Next."
    roles = [m["role"] for m in claude_double.messages_requests()[-1].messages]
    assert roles == ["user", "assistant", "user"]


@pytest.mark.slow
def test_drops_before_the_first_words_give_up_after_the_retries(claude_double, tmp_path):
    claude_double.add(*[reply("x", drop_after=1)] * 3, "Back.")
    session = make(tmp_path, max_retries=2)
    events = run(session, "hi")
    assert errors(events) == ["The connection to Claude dropped before the reply began; the turn stopped. Ask again."]
    assert len(claude_double.messages_requests()) == 3
    assert run(session, "again")[-1].text == "Back."


def test_only_the_words_of_the_dropped_call_count(claude_double, tmp_path):
    """Words an earlier call of the same turn showed do not stop a retry; this call's do."""
    claude_double.add(
        reply(text("Checking."), tool_use("echo", {"text": "a"}, id="t1")),
        reply("never shown", drop_after=2),
        reply(text("Once more."), tool_use("echo", {"text": "b"}, id="t2")),
        reply("Half an ans", chunk=4, drop_after=3),
        "unused",
    )
    events = run(make(tmp_path), "hi")
    assert [e.text for e in events if isinstance(e, TextDelta)] == ["Checking.", "\n\n", "Once more.", "\n\n", "Half"]
    assert errors(events) == ["The connection to Claude dropped in the middle of the reply; the turn stopped there. Ask again."]
    assert len(claude_double.messages_requests()) == 4


def test_a_malformed_event_ends_the_turn_and_the_session_goes_on(claude_double, tmp_path):
    claude_double.add(reply("Hello there", malformed_after=3), "Fine now.")
    session = make(tmp_path)
    events = run(session, "hi")
    assert any("could not be read" in m for m in errors(events))
    assert run(session, "again")[-1].text == "Fine now."


def test_a_drop_after_a_tool_call_keeps_the_history_valid(claude_double, tmp_path):
    claude_double.add(tool_use("echo", {"text": "a"}, id="t1"), reply("partial answer here", drop_after=4), "ok")
    session = make(tmp_path)
    run(session, "one")
    run(session, "two")
    roles = [m["role"] for m in claude_double.messages_requests()[-1].messages]
    assert roles == ["user", "assistant", "user", "assistant", "user"]
    messages = claude_double.messages_requests()[-1].messages
    assert messages[2]["content"][0]["type"] == "tool_result"
    assert messages[3]["content"][0]["text"] == "partial answer here"
    assert [b["text"] for b in messages[4]["content"]] == ["two"]


def test_no_api_key_is_one_sentence(claude_double, tmp_path, monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    problem = api_key_problem()
    assert problem and "ANTHROPIC_API_KEY" in problem and problem.count(". ") == 0
    events = run(make(tmp_path), "hi")
    assert errors(events) == [problem]
    assert claude_double.requests == []


def test_a_refused_key_says_to_check_it(claude_double, tmp_path):
    claude_double.add(error(401, "invalid x-api-key"))
    assert any("ANTHROPIC_API_KEY" in m and "invalid x-api-key" in m for m in errors(run(make(tmp_path), "hi")))


def test_unreachable_api_is_a_sentence(claude_double, tmp_path, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:9")  # discard port: nothing listens
    events = run(make(tmp_path, max_retries=0), "hi")
    assert errors(events) == ["Could not reach http://127.0.0.1:9; check the network and ask again."]


@pytest.mark.e2e
def test_base_url_is_honoured_in_another_process(claude_double, tmp_path):
    claude_double.add("From the double.")
    code = (
        "from pathlib import Path; from agent.loop.session import Session; from agent.settings.config import AgentConfig;"
        "s = Session(Path('.'), AgentConfig(memory_mode='none'), tools=[], save_transcript=False);"
        "s.send('hi', lambda e: print(e.text, end='') if type(e).__name__ == 'TextDelta' else None)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=Path(__file__).parents[2])
    assert out.stdout == "From the double.", out.stderr
    assert len(claude_double.requests) == 1


def test_an_overload_inside_the_stream_before_any_block_is_retried(claude_double, tmp_path):
    claude_double.add(reply("never", error_after=1), reply("Second stream worked."))
    events = run(make(tmp_path), "hi")
    assert errors(events) == [] and events[-1].text == "Second stream worked."
    assert events[-1].usage.api_calls == 2


def test_an_error_event_after_text_ends_the_turn_with_its_words(claude_double, tmp_path):
    claude_double.add(reply("Half of a", chunk=4, error_after=4, error_type="api_error", error_message="Internal server error"), "ok")
    session = make(tmp_path)
    events = run(session, "hi")
    assert errors(events) == ["Claude stopped in the middle of the reply (api_error): Internal server error. Ask again."]
    assert [e.text for e in events if isinstance(e, TextDelta)] == ["Half", " of "]
    assert run(session, "again")[-1].text == "ok"


def test_every_fault_leaves_a_history_the_api_accepts(claude_double, tmp_path):
    """The double refuses what the API would (a tool_use without its result, an empty
    message), so each next turn answering proves the history stayed valid."""
    claude_double.add(
        reply(text("Looking."), tool_use("echo", {"text": "a"}, id="t1"), drop_after=6),  # drops inside a tool call
        "one",
        reply(),  # an empty reply
        "two",
        reply(tool_use("echo", {"text": "b"}, id="t2"), malformed_after=4),
        "three",
        reply(tool_use("echo", {"text": "c"}, id="t3"), stop_reason="max_tokens"),
        "four",
        tool_use("echo", {"text": "d"}, id="t4"),
        error(400, "scripted refusal"),
        "five",
    )
    session = make(tmp_path)
    answers = [run(session, f"turn {n}")[-1].text for n in range(10)]
    assert answers[1::2] == ["one", "two", "three", "four", "five"]
    assert claude_double.pending() == 0
