"""The tool-use loop over real HTTP: what the agent sends, and what it reports."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from agent.events import (
    AgentError,
    ShowOnScreen,
    TextDelta,
    ThinkingStarted,
    ToolFinished,
    ToolStarted,
    TurnFinished,
    TurnStarted,
)
from agent.loop.session import Session
from agent.settings.config import AgentConfig
from tests.agent.toolkit import CrashTool, EchoTool, ScreenTool
from tests.double.server import reply, text, thinking, tool_use
from tests.marked_text import unmarked

FRIDAY = datetime(2026, 11, 6, 17, 30, tzinfo=UTC)


def make(tmp_path: Path, tools=None, **config) -> Session:
    config.setdefault("memory_mode", "none")
    return Session(
        tmp_path,
        AgentConfig(**config),
        tools=tools if tools is not None else [EchoTool(), CrashTool(), ScreenTool()],
        now=FRIDAY,
    )


def run(session: Session, text_: str) -> list:
    events: list = []
    session.send(text_, events.append)
    return events


def test_streams_text_as_deltas_and_finishes(claude_double, tmp_path):
    claude_double.add(reply("The build is red because of one error.", chunk=5))
    events = run(make(tmp_path), "Why is the build red?")
    assert isinstance(events[0], TurnStarted) and events[0].text == "Why is the build red?"
    deltas = [e.text for e in events if isinstance(e, TextDelta)]
    assert len(deltas) > 3 and "".join(deltas) == "The build is red because of one error."
    finished = events[-1]
    assert isinstance(finished, TurnFinished) and not finished.cancelled
    assert finished.text == "The build is red because of one error."
    assert finished.usage.api_calls == 1 and finished.usage.time_to_first_token is not None
    assert all(e.turn == 1 for e in events)


def test_tool_round_trip_sends_results_back_until_end_turn(claude_double, tmp_path):
    claude_double.add(thinking("I should echo."), text("One moment."), tool_use("echo", {"text": "hi"}, id="toolu_a"))
    claude_double.add(tool_use("show", {}, id="toolu_b"))
    claude_double.add("Done.")
    events = run(make(tmp_path), "go")
    kinds = [type(e).__name__ for e in events]
    assert kinds.count("ToolStarted") == 2 and kinds.count("ToolFinished") == 2
    assert any(isinstance(e, ThinkingStarted) for e in events)
    started = next(e for e in events if isinstance(e, ToolStarted))
    assert (started.tool_id, started.name, started.summary) == ("toolu_a", "echo", "hi")
    screen = next(e for e in events if isinstance(e, ShowOnScreen))
    assert (screen.title, screen.format) == ("Errors", "markdown")

    first, second, third = claude_double.messages_requests()
    [result] = second.tool_results()
    assert unmarked(result.pop("content"))[2] == "echo: hi"
    assert result == {"type": "tool_result", "tool_use_id": "toolu_a", "cache_control": {"type": "ephemeral"}}
    # The assistant turn goes back exactly, thinking and its signature included.
    assistant = second.messages[1]
    assert assistant["role"] == "assistant"
    assert assistant["content"][0] == {"type": "thinking", "thinking": "I should echo.", "signature": "sig-double"}
    assert assistant["content"][2]["input"] == {"text": "hi"}
    assert third.tool_results()[0]["tool_use_id"] == "toolu_b"
    assert events[-1].usage.api_calls == 3
    assert events[-1].text == "One moment.\n\nDone."


def test_tool_failures_go_back_as_text(claude_double, tmp_path):
    claude_double.add(tool_use("crash", {}, id="t1"), tool_use("no_such_tool", {"x": 1}, id="t2"))
    claude_double.add("Both failed.")
    events = run(make(tmp_path), "try")
    finished = [e for e in events if isinstance(e, ToolFinished)]
    assert [f.is_error for f in finished] == [True, True]
    results = claude_double.messages_requests()[1].tool_results()
    assert results[0]["is_error"] is True and "disk on fire" in results[0]["content"]
    assert "no tool named 'no_such_tool'" in results[1]["content"] and "echo" in results[1]["content"]
    assert not any(isinstance(e, AgentError) for e in events)


def test_malformed_tool_input_is_an_error_result(claude_double, tmp_path):
    # The tool must not run with half an input; the model hears why.
    claude_double.add(tool_use("echo", id="t1", raw_input='{"text": "unfinished'), "Sorry.")
    events = run(make(tmp_path), "x")
    finished = next(e for e in events if isinstance(e, ToolFinished))
    assert finished.is_error
    result = claude_double.messages_requests()[1].tool_results()[0]
    assert result["is_error"] is True and "not valid JSON" in result["content"]
    # What goes back as the assistant's tool_use must still be a valid request.
    assert claude_double.messages_requests()[1].messages[1]["content"][0]["input"] == {}


def test_request_carries_model_effort_thinking_and_cache_breakpoints(claude_double, tmp_path):
    claude_double.add("Hello.")
    run(make(tmp_path, model="claude-sonnet-5-5", effort="medium"), "hi")
    body = claude_double.requests[0].body
    assert body["model"] == "claude-sonnet-5-5"
    assert body["output_config"] == {"effort": "medium"}
    # The notes Sonnet 5.5 writes between tool calls come back as text only when asked for.
    assert body["thinking"] == {"type": "adaptive", "display": "updates"}
    assert "thinking-display-updates-2026-08-18" in claude_double.requests[0].headers["anthropic-beta"]
    assert body["stream"] is True
    assert body["tools"][-1]["cache_control"] == {"type": "ephemeral"}
    assert all("cache_control" not in t for t in body["tools"][:-1])
    assert body["system"][0]["cache_control"] == {"type": "ephemeral"}
    assert body["messages"][-1]["content"][-1]["cache_control"] == {"type": "ephemeral"}
    breakpoints = 1 + len(body["system"]) + 1
    assert breakpoints <= 4, "the API allows four cache breakpoints"
    headers = claude_double.requests[0].headers
    assert headers["authorization"] == "Bearer sk-ant-test-double-key"
    assert "anthropic-version" in headers


def test_date_is_in_the_first_user_message_only(claude_double, tmp_path):
    claude_double.add("One.", "Two.")
    session = make(tmp_path)
    run(session, "first")
    run(session, "second")
    first, second = claude_double.messages_requests()
    assert "Friday, 06 November 2026 (2026-11-06)" in first.first_user_text()
    assert "2026-11-06" not in first.system_text() and "Friday" not in first.system_text()
    assert "2026" not in second.last_user_text()
    assert second.first_user_text() == first.first_user_text()


def test_history_only_grows_at_its_end(claude_double, tmp_path):
    claude_double.add(thinking("a"), tool_use("echo", {"text": "1"}), "x")
    claude_double.add("y")
    claude_double.add("z")
    session = make(tmp_path)
    run(session, "one")
    run(session, "two")
    requests = claude_double.messages_requests()

    def bare(messages):
        # cache markers move to the newest message; they are not part of the conversation
        return [{**m, "content": [{k: v for k, v in b.items() if k != "cache_control"} for b in m["content"]]} for m in messages]

    for earlier, later in zip(requests, requests[1:]):
        assert bare(later.messages)[: len(earlier.messages)] == bare(earlier.messages)
        assert earlier.body["system"] == later.body["system"]
        assert earlier.body["tools"] == later.body["tools"]


def test_usage_counts_cache_and_cost(claude_double, tmp_path):
    usage = {"input_tokens": 100, "output_tokens": 20, "cache_read_input_tokens": 1000, "cache_creation_input_tokens": 200}
    claude_double.add(reply(tool_use("echo", {"text": "a"}), usage=usage), reply("b", usage=usage))
    events = run(make(tmp_path), "x")
    total = events[-1].usage
    assert (total.input_tokens, total.output_tokens, total.cache_read_tokens, total.cache_write_tokens) == (200, 40, 2000, 400)
    # claude-haiku-5-5: $0.10 in, $0.50 out per million; cache write 1.25x, read 0.1x
    expected = 2 * (100 * 0.10 + 200 * 0.125 + 1000 * 0.01 + 20 * 0.50) / 1_000_000
    assert total.cost_usd == pytest.approx(expected)
    assert total.total_time >= total.time_to_first_token > 0


def test_a_sink_that_raises_does_not_break_the_turn(claude_double, tmp_path):
    claude_double.add("fine")

    def sink(event):
        raise RuntimeError("display broke")

    usage = make(tmp_path).send("x", sink)
    assert usage.api_calls == 1


def test_max_tokens_stop_is_reported(claude_double, tmp_path):
    claude_double.add(reply("cut he", stop_reason="max_tokens"))
    events = run(make(tmp_path), "x")
    assert any(isinstance(e, AgentError) and "cut short" in e.message for e in events)


def test_endless_tool_loop_is_stopped(claude_double, tmp_path):
    claude_double.default = reply(tool_use("echo", {"text": "again"}))
    events = run(make(tmp_path, max_api_calls_per_turn=3), "loop")
    assert len(claude_double.messages_requests()) == 3
    assert any(isinstance(e, AgentError) and "3 calls" in e.message for e in events)


def test_a_tool_call_cut_off_by_max_tokens_gets_a_result_before_the_next_turn(claude_double, tmp_path):
    claude_double.add(reply(text("Let me"), tool_use("echo", {"text": "a"}, id="cut"), stop_reason="max_tokens"), "ok")
    session = make(tmp_path)
    events = run(session, "one")
    assert not any(isinstance(e, ToolStarted) for e in events)
    run(session, "two")
    results, closed, asked = claude_double.messages_requests()[-1].messages[-3:]
    assert results["content"][0]["tool_use_id"] == "cut" and results["content"][0]["is_error"] is True
    assert closed["content"][-1]["text"].startswith("[This turn stopped here, unfinished: The reply hit the output limit")
    assert [b["text"] for b in asked["content"]] == ["two"]
