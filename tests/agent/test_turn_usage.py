"""A turn's usage counts every call it made once, whatever ended the turn: a reply, a retry,
a tool loop, a failure, a refusal or a cancel; and the session's total is its turns' sum."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from agent.cancel import Cancellation
from agent.events import TextDelta, TurnFinished
from agent.loop import faults
from agent.loop.session import Session
from agent.settings.config import AgentConfig
from tests.agent.toolkit import EchoTool
from tests.double.server import refusal, reply, tool_use

NOW = datetime(2026, 11, 9, 9, 0, tzinfo=UTC)
CALL = {"input_tokens": 100, "output_tokens": 10, "cache_read_input_tokens": 1000, "cache_creation_input_tokens": 50}
# What message_start reports before the reply is written (the double's first event).
STARTED = dict(CALL, output_tokens=1)


def make(tmp_path: Path) -> Session:
    return Session(tmp_path, AgentConfig(memory_mode="none", max_retries=2), tools=[EchoTool()], now=NOW)


def declined() -> dict:
    rep = refusal("I will not")
    rep["usage"] = CALL
    return rep


CASES = {
    "a reply": ([reply("Fine.", usage=CALL)], [CALL]),
    "a tool loop": ([reply(tool_use("echo", {"text": "a"}), usage=CALL), reply("Done.", usage=CALL)], [CALL, CALL]),
    "a drop before the words, retried": ([reply("never", usage=CALL, drop_after=1), reply("Made it.", usage=CALL)], [STARTED, CALL]),
    "an error after the words": ([reply("Half of a reply", chunk=4, error_after=4, error_type="api_error", usage=CALL)], [STARTED]),
    "a refusal": ([declined()], [CALL]),
}


def total(calls: list[dict]) -> tuple[int, int, int, int, int]:
    return (
        sum(c["input_tokens"] for c in calls),
        sum(c["output_tokens"] for c in calls),
        sum(c["cache_read_input_tokens"] for c in calls),
        sum(c["cache_creation_input_tokens"] for c in calls),
        len(calls),
    )


def counted(usage) -> tuple[int, int, int, int, int]:
    return (usage.input_tokens, usage.output_tokens, usage.cache_read_tokens, usage.cache_write_tokens, usage.api_calls)


@pytest.mark.parametrize("case", list(CASES))
def test_every_call_of_a_turn_is_counted_once(claude_double, tmp_path, case):
    replies, calls = CASES[case]
    claude_double.add(*replies)
    session = make(tmp_path)
    events: list = []
    returned = session.send("go", events.append)
    finished = events[-1]
    assert isinstance(finished, TurnFinished)
    assert counted(finished.usage) == total(calls)
    assert finished.usage.cost_usd > 0
    assert returned == finished.usage
    assert counted(session.usage) == total(calls)


def test_a_cancelled_call_counts_what_it_had_spent(claude_double, tmp_path):
    claude_double.add(reply("word " * 200, chunk=5, delay=0.01, usage=CALL), reply("Next.", usage=CALL))
    session = make(tmp_path)
    cancel = Cancellation()
    events: list = []

    def sink(event) -> None:
        events.append(event)
        if isinstance(event, TextDelta):
            cancel.cancel()

    session.send("go", sink, cancel)
    first = events[-1]
    assert first.cancelled and counted(first.usage) == total([STARTED])
    later: list = []
    session.send("again", later.append)
    # the session's total is its turns', each counted once
    assert counted(session.usage) == total([STARTED, CALL])
    assert session.usage.cost_usd == pytest.approx(first.usage.cost_usd + later[-1].usage.cost_usd)


def test_a_fault_carries_no_usage_the_turn_counts_it():
    # Usage is a value the turn owns (agent.loop.turn); an exception says what went wrong only.
    for fault in (faults.TurnCancelled(), faults.TurnFailed("x"), faults.TurnDeclined()):
        assert not hasattr(fault, "usage")
