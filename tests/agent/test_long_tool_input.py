"""A long tool input, as the API really sends it: room enough in max_tokens to arrive whole."""

from __future__ import annotations

from datetime import UTC, datetime

from agent.config import AgentConfig
from agent.events import AgentError, ToolFinished
from agent.session import Session
from tests.agent.toolkit import EchoTool
from tests.claude_double import reply, text, tool_use

NOW = datetime(2026, 11, 9, 9, 0, tzinfo=UTC)
# A file of a few hundred lines: about 12,000 tokens, more than the 8,000 of max_tokens.
LONG = "".join(f"def step_{n}(value):\n    return value + {n}  # one of many small steps\n\n" for n in range(700))


def test_a_tool_input_longer_than_max_tokens_arrives_whole(claude_double, tmp_path):
    session = Session(tmp_path, AgentConfig(model="claude-sonnet-5-5", memory_mode="none", max_retries=0), tools=[EchoTool()], now=NOW)
    claude_double.add(reply(tool_use("echo", {"text": LONG}, id="t1")), reply(text("Written.")))
    events: list = []
    session.send("Write the steps module.", events.append)
    assert [e.message for e in events if isinstance(e, AgentError)] == []
    assert [e.is_error for e in events if isinstance(e, ToolFinished)] == [False]
    first = claude_double.messages_requests()[0]
    assert first.body["max_tokens"] == 128_000  # Sonnet 5.5's own output budget
    assert events[-1].text == "Written."


def test_a_reply_without_tools_keeps_the_configured_budget(claude_double, tmp_path):
    from agent import claude

    params = claude.request_params(AgentConfig(model="claude-sonnet-5-5", max_tokens=4000), system=[], tools=[EchoTool().definition()],
                                   messages=[{"role": "user", "content": "hi"}], tool_choice={"type": "none"})
    assert params["max_tokens"] == 4000
