"""The double itself: what the SDK sees from it, so other tests can trust it."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path

import anthropic
import httpx2
import pytest

from tests.double.server import ClaudeDouble, error, reply, text, thinking, tool_use

ROOT = Path(__file__).resolve().parents[2]


def client(double: ClaudeDouble, retries: int = 0) -> anthropic.Anthropic:
    return anthropic.Anthropic(api_key="test", base_url=double.url, max_retries=retries)


def ask(c: anthropic.Anthropic, **kw):
    return c.messages.create(model="claude-haiku-5-5", max_tokens=50, messages=[{"role": "user", "content": "hi"}], **kw)


def test_streams_every_block_kind(claude_double):
    claude_double.add(thinking("let me see", "sig-1"), text("Hello there."), tool_use("build", {"project": "Core"}, id="toolu_1"))
    with client(claude_double).messages.stream(model="claude-haiku-5-5", max_tokens=50, messages=[{"role": "user", "content": "hi"}]) as s:
        kinds = [e.type for e in s]
        final = s.get_final_message()
    assert kinds[0] == "message_start" and "message_stop" in kinds
    assert [b.type for b in final.content] == ["thinking", "text", "tool_use"]
    assert final.content[0].signature == "sig-1"
    assert final.content[2].input == {"project": "Core"}
    assert final.stop_reason == "tool_use"


def test_a_held_stream_sends_nothing_past_its_gate_until_the_test_opens_it(claude_double):
    gate = claude_double.gate(after=3)
    claude_double.add(reply("one two three four", chunk=4, hold=gate))
    seen: list[tuple[str, bool]] = []
    with client(claude_double).messages.stream(model="claude-haiku-5-5", max_tokens=50, messages=[{"role": "user", "content": "hi"}]) as s:
        for event in s:
            if event.type == "content_block_delta":
                seen.append((event.delta.text, gate.is_open))
                if len(seen) == 1:
                    assert gate.reached.wait(5)
                    # opened a moment later, from elsewhere: the next piece must wait for it
                    threading.Timer(0.3, gate.open).start()
        assert s.get_final_message().content[0].text == "one two three four"
    assert seen == [("one ", False), ("two ", True), ("thre", True), ("e fo", True), ("ur", True)]


def test_usage_and_non_streaming(claude_double):
    claude_double.add(reply("ok", usage={"input_tokens": 7, "output_tokens": 3, "cache_read_input_tokens": 100}))
    message = ask(client(claude_double))
    assert message.content[0].text == "ok"
    assert message.usage.cache_read_input_tokens == 100 and message.usage.input_tokens == 7


def test_errors_have_the_api_shape_and_are_retried(claude_double):
    claude_double.add(error(429), error(529), error(500), "finally")
    assert ask(client(claude_double, retries=3)).content[0].text == "finally"
    assert len(claude_double.requests) == 4
    claude_double.add(error(400, "messages.3: bad thing"))
    with pytest.raises(anthropic.BadRequestError) as raised:
        ask(client(claude_double, retries=3))
    assert "messages.3: bad thing" in str(raised.value)


def test_dropped_and_malformed_streams_fail_in_the_client(claude_double):
    claude_double.add(reply("a long enough text to split", drop_after=4), reply("x", malformed_after=2))
    with pytest.raises(httpx2.RemoteProtocolError):
        list(ask(client(claude_double), stream=True))
    with pytest.raises(ValueError):
        list(ask(client(claude_double), stream=True))


def test_empty_queue_is_a_loud_400_and_responder_sees_requests(claude_double):
    with pytest.raises(anthropic.BadRequestError):
        ask(client(claude_double))
    claude_double.responder = lambda r: reply(f"you said {r.last_user_text()}")
    assert ask(client(claude_double)).content[0].text == "you said hi"
    assert claude_double.requests[-1].headers["authorization"] == "Bearer test"


CALL = {"type": "tool_use", "id": "t1", "name": "build", "input": {}}
RESULT = {"type": "tool_result", "tool_use_id": "t1", "content": "ok"}
MARK = {"type": "ephemeral"}


@pytest.mark.parametrize(
    "messages, says",
    [
        ([{"role": "user", "content": "hi"}, {"role": "assistant", "content": [CALL]}, {"role": "user", "content": "and?"}], "without `tool_result`"),
        ([{"role": "user", "content": "hi"}, {"role": "assistant", "content": [CALL]}, {"role": "user", "content": [{"type": "text", "text": "x"}, RESULT]}], "without `tool_result`"),
        ([{"role": "user", "content": [RESULT]}], "unexpected `tool_use_id`"),
        ([{"role": "user", "content": "hi"}, {"role": "assistant", "content": []}, {"role": "user", "content": "again"}], "non-empty content"),
        ([{"role": "user", "content": [{"type": "text", "text": ""}]}], "must be non-empty"),
        ([{"role": "user", "content": [{"type": "text", "text": str(i), "cache_control": MARK} for i in range(5)]}], "maximum of 4"),
    ],
)
def test_a_history_the_api_would_refuse_is_a_400(claude_double, messages, says):
    claude_double.add("never sent")
    with pytest.raises(anthropic.BadRequestError) as raised:
        client(claude_double).messages.create(model="claude-haiku-5-5", max_tokens=50, messages=messages)
    assert says in str(raised.value)
    assert claude_double.pending() == 1, "a refused request takes no reply from the queue"


def test_a_valid_tool_round_trip_is_accepted(claude_double):
    claude_double.add("fine")
    messages = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": [CALL]}, {"role": "user", "content": [RESULT, {"type": "text", "text": "go on"}]}]
    answer = client(claude_double).messages.create(model="claude-haiku-5-5", max_tokens=50, messages=messages)
    assert answer.content[0].text == "fine"


def test_count_tokens(claude_double):
    claude_double.count_tokens = 1234
    c = client(claude_double)
    assert c.messages.count_tokens(model="claude-haiku-5-5", messages=[{"role": "user", "content": "hi"}]).input_tokens == 1234


def test_runs_in_its_own_process(tmp_path):
    script = {"replies": [reply("first")], "default": reply("again"), "rules": [{"contains": "build", "reply": reply("building")}]}
    (tmp_path / "s.json").write_text(json.dumps(script))
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.double.server", "--script", str(tmp_path / "s.json"),
         "--port-file", str(tmp_path / "port"), "--record", str(tmp_path / "rec.jsonl")],
        cwd=ROOT, stdout=subprocess.PIPE, text=True,
    )
    try:
        line = proc.stdout.readline()
        assert line.startswith("listening on http://127.0.0.1:")
        port = int((tmp_path / "port").read_text())
        c = anthropic.Anthropic(api_key="t", base_url=f"http://127.0.0.1:{port}", max_retries=0)
        said = [c.messages.create(model="claude-haiku-5-5", max_tokens=9, messages=[{"role": "user", "content": t}]).content[0].text
                for t in ("hello", "build it", "hello")]
        assert said == ["first", "building", "again"]
        assert len((tmp_path / "rec.jsonl").read_text().splitlines()) == 3
    finally:
        proc.terminate()
        proc.wait(timeout=10)
