"""The stream accumulator, fed one event at a time, and the mapping of stream faults.

The events are the ones the Claude double streams, read into the SDK's own event types, so
the accumulator sees here exactly what it sees from a live stream.
"""

from __future__ import annotations

import time

import anthropic
import httpx2
import pydantic
import pytest
from anthropic.types import RawMessageStreamEvent

from agent.events import Usage
from agent.loop.faults import (
    DROPPED_BEFORE_REPLY,
    DROPPED_MID_REPLY,
    StreamBroken,
    TurnCancelled,
    TurnFailed,
    stream_fault,
)
from agent.loop.stream import StreamAccumulator
from tests.double.server import Request, reply, text, thinking, tool_use
from tests.double.wire import sse_events

EVENTS = pydantic.TypeAdapter(RawMessageStreamEvent)


def events_of(rep: dict) -> list:
    request = Request("/v1/messages", "POST", {}, {"model": "claude-haiku-5-5", "messages": []})
    return [EVENTS.validate_python(data) for _, data in sse_events(rep, request)]


def fed(rep: dict) -> tuple[StreamAccumulator, list]:
    heard: list = []
    acc = StreamAccumulator(on_text=lambda t, new: heard.append((t, new)), on_thinking=lambda: heard.append("thinking"))
    for event in events_of(rep):
        acc.feed(event)
    return acc, heard


def test_blocks_text_and_partial_json_one_event_at_a_time():
    acc, heard = fed(reply(
        thinking("Weigh it.", signature="s1"),
        text("Checking."),
        tool_use("echo", {"text": "a long input that arrives in pieces"}, id="t1"),
        chunk=5,
        usage={"input_tokens": 100, "output_tokens": 20, "cache_read_input_tokens": 50},
    ))
    assert acc.finished and acc.stop_reason == "tool_use"
    assert heard[0] == "thinking"
    assert [h for h in heard[1:]] == [("Check", True), ("ing.", False)]
    assert acc.shown == "Checking."
    result = acc.reply()
    assert result.content == [
        {"type": "thinking", "thinking": "Weigh it.", "signature": "s1"},
        {"type": "text", "text": "Checking."},
        {"type": "tool_use", "id": "t1", "name": "echo", "input": {"text": "a long input that arrives in pieces"}},
    ]
    assert [b["id"] for b in result.tool_uses] == ["t1"]
    usage = acc.usage("claude-haiku-5-5", time.monotonic())
    assert (usage.input_tokens, usage.output_tokens, usage.cache_read_tokens) == (100, 20, 50)
    assert usage.api_calls == 1 and usage.time_to_first_token is not None


def test_input_that_is_not_json_and_input_that_is_not_unicode():
    acc, _ = fed(reply(tool_use("echo", raw_input='{"text": "cut'), tool_use("echo", {"text": "x\ud800"}, id="t2")))
    result = acc.reply()
    bad_id = result.content[0]["id"]
    assert result.bad_inputs == {bad_id: '{"text": "cut'} and result.content[0]["input"] == {}
    assert result.replaced_inputs == {"t2": 1} and result.content[1]["input"] == {"text": "x\ufffd"}


def test_a_delta_before_its_block_is_a_broken_stream():
    events = events_of(reply("hello"))
    acc = StreamAccumulator()
    acc.feed(events[0])
    with pytest.raises(StreamBroken):
        acc.feed(events[2])  # the text delta, its block never started


def test_no_usage_before_message_start():
    assert StreamAccumulator().usage("m", time.monotonic()) == Usage()


def test_cancelled_carries_the_words_shown():
    stop = TurnCancelled("half")
    assert stop.shown == "half"
    assert TurnCancelled().shown == ""


def _status_error(status: int, kind: str) -> anthropic.APIStatusError:
    request = httpx2.Request("POST", "http://127.0.0.1/v1/messages")
    response = httpx2.Response(status, request=request, headers={"request-id": "req_1"})
    body = {"type": "error", "error": {"type": kind, "message": "scripted"}}
    return anthropic.APIStatusError("scripted", response=response, body=body)


def test_stream_fault_maps_each_kind():
    after_cancel = stream_fault(ValueError("socket shut"), cancelled=True, shown="so far")
    assert isinstance(after_cancel, TurnCancelled) and after_cancel.shown == "so far"

    overloaded = stream_fault(_status_error(529, "overloaded_error"), cancelled=False, shown="")
    assert isinstance(overloaded, TurnFailed) and overloaded.cause is not None and not overloaded.refused

    refused = stream_fault(_status_error(400, "invalid_request_error"), cancelled=False, shown="")
    assert isinstance(refused, TurnFailed) and refused.refused

    seen = stream_fault(_status_error(529, "overloaded_error"), cancelled=False, shown="words")
    assert seen.cause is None, "words were shown: no retry"

    early = stream_fault(StreamBroken("ended"), cancelled=False, shown="")
    late = stream_fault(httpx2.RemoteProtocolError("peer closed"), cancelled=False, shown="words")
    assert (early.message, late.message) == (DROPPED_BEFORE_REPLY, DROPPED_MID_REPLY)
    assert early.cause is not None and late.cause is None

    unreadable = stream_fault(KeyError("delta"), cancelled=False, shown="")
    assert isinstance(unreadable, TurnFailed) and "could not be read (KeyError)" in unreadable.message

    assert stream_fault(ZeroDivisionError(), cancelled=False, shown="") is None, "a bug is not hidden"
