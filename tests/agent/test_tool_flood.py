"""A reply that asks for a flood of tool calls runs a bounded number of them."""

from __future__ import annotations

from datetime import UTC, datetime

from agent.events import ToolStarted
from agent.loop.session import Session
from agent.settings.config import AgentConfig
from tests.agent.toolkit import EchoTool
from tests.double.server import reply, tool_use

NOW = datetime(2026, 11, 9, 9, 0, tzinfo=UTC)
MAX_TOOLS_PER_REPLY, MAX_TOOLS_PER_TURN = 20, 100  # agent/loop/tool_calls.py


def _results(request) -> list[dict]:
    return [b for b in request.messages[-1]["content"] if b.get("type") == "tool_result"]


def test_a_reply_of_a_thousand_tool_calls_runs_only_the_first_few(claude_double, tmp_path):
    blocks = [tool_use("echo", {"text": f"n{i}"}, id=f"toolu_{i:05d}") for i in range(1000)]
    claude_double.add(reply(*blocks, chunk=4000), "Done.")
    session = Session(tmp_path, AgentConfig(memory_mode="none"), tools=[EchoTool()], now=NOW)
    events: list = []
    session.send("flood", events.append)
    assert events[-1].text == "Done."
    assert len([e for e in events if isinstance(e, ToolStarted)]) == MAX_TOOLS_PER_REPLY
    # Every tool_use has its tool_result, in order, so the request stays valid (the double checks).
    results = _results(claude_double.messages_requests()[-1])
    assert [r["tool_use_id"] for r in results] == [f"toolu_{i:05d}" for i in range(1000)]
    ran, refused = results[:20], results[20:]
    assert all(not r.get("is_error") for r in ran)
    assert all(r["is_error"] and "at most 20 run per reply" in str(r["content"]) for r in refused)


def test_a_turn_runs_at_most_its_cap_of_tools_across_replies(claude_double, tmp_path):
    per_reply = MAX_TOOLS_PER_REPLY
    replies = MAX_TOOLS_PER_TURN // per_reply + 2
    for n in range(replies):
        claude_double.add(reply(*[tool_use("echo", {"text": "x"}, id=f"toolu_{n}_{i}") for i in range(per_reply)]))
    claude_double.add("Done.")
    session = Session(tmp_path, AgentConfig(memory_mode="none"), tools=[EchoTool()], now=NOW)
    events: list = []
    session.send("flood", events.append)
    assert len([e for e in events if isinstance(e, ToolStarted)]) == MAX_TOOLS_PER_TURN
    assert all(r["is_error"] for r in _results(claude_double.messages_requests()[-1]))
