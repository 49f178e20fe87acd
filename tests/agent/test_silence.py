"""A reply stream that goes quiet after it began: the turn ends with a sentence, soon."""

from __future__ import annotations

import time
from datetime import UTC, datetime

import pytest

from agent.events import AgentError
from agent.loop.session import Session
from agent.settings.config import AgentConfig
from tests.agent.toolkit import EchoTool
from tests.double.server import reply, tool_use

NOW = datetime(2026, 11, 9, 9, 0, tzinfo=UTC)


@pytest.mark.timeout(60)
@pytest.mark.slow
def test_a_stream_silent_after_it_began_ends_the_turn_with_a_sentence(claude_double, tmp_path, monkeypatch):
    import agent.loop.silence

    monkeypatch.setattr(agent.loop.silence, "SILENCE_SECONDS", 2.0)
    # The first event of the tool's input, then nothing for five minutes; nothing shown yet,
    # so a plain drop would be retried, each attempt waiting out the client's read timeout.
    claude_double.add(reply(tool_use("echo", {"text": "a long input in pieces"}, id="t1"), chunk=3, stall=300), "Later.")
    # The client's own read timeout, short here so that the code before the watch fails in seconds.
    session = Session(tmp_path, AgentConfig(memory_mode="none", request_timeout=8), tools=[EchoTool()], now=NOW)
    events: list = []
    began = time.monotonic()
    session.send("hi", events.append)
    took = time.monotonic() - began
    messages = [e.message for e in events if isinstance(e, AgentError)]
    assert took < 6, took
    assert len(messages) == 1 and "went silent for 2 s" in messages[0] and "Ask again" in messages[0]
    assert len(claude_double.messages_requests()) == 1  # not retried: each retry could stall as long
    events = []
    session.send("again", events.append)  # the session goes on
    assert events[-1].text == "Later."


def test_the_limit_stays_well_under_a_minute():
    import agent.loop.silence

    assert agent.loop.silence.SILENCE_SECONDS <= 30
