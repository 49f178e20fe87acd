"""A long tool input, as the API really sends it: room enough in max_tokens to arrive whole."""

from __future__ import annotations

from datetime import UTC, datetime

from agent.events import AgentError, ToolFinished
from agent.loop.session import Session
from agent.settings.config import AgentConfig
from tests.agent.toolkit import EchoTool
from tests.double.server import reply, text, tool_use

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
    from agent.loop import claude
    params = claude.request_params(AgentConfig(model="claude-sonnet-5-5", max_tokens=4000), system=[], tools=[EchoTool().definition()],
                                   messages=[{"role": "user", "content": "hi"}], tool_choice={"type": "none"})
    assert params["max_tokens"] == 4000


def events_of(claude_double, tools: list[dict], rep: dict) -> list[tuple[str, dict]]:
    """The SSE events of `rep`, as a request offering `tools` gets them."""
    from tests.double.server import Request
    from tests.double.wire import sse_events

    body = {"model": "claude-haiku-5-5", "max_tokens": 128_000, "messages": [], "tools": tools}
    return sse_events(rep, Request("/v1/messages", "POST", {}, body), claude_double)


def test_the_double_holds_a_tool_input_back_unless_it_streams_eagerly(claude_double):
    rep = reply(tool_use("write", {"file_text": LONG}, id="t1"), input_seconds=3.0, ping_every=0.5)
    buffered = events_of(claude_double, [{"name": "write", "input_schema": {"type": "object"}}], rep)
    kinds = [name for name, _ in buffered]
    deltas = [d for name, d in buffered if name == "content_block_delta"]
    assert kinds.count("ping") == 6 and len(deltas) == 1
    assert kinds.index("content_block_start") < kinds.index("ping") < kinds.index("content_block_delta")
    eager = events_of(claude_double, [{"name": "write", "input_schema": {"type": "object"}, "eager_input_streaming": True}], rep)
    assert [name for name, _ in eager].count("ping") == 0
    assert len([1 for name, _ in eager if name == "content_block_delta"]) > 100


def test_the_double_refuses_eager_streaming_on_a_tool_of_anthropics_schema(claude_double):
    import anthropic
    import pytest

    client = anthropic.Anthropic(api_key="k", base_url=claude_double.url, max_retries=0)
    tools = [{"type": "memory_20250818", "name": "memory", "eager_input_streaming": True}]
    with pytest.raises(anthropic.BadRequestError, match="eager_input_streaming: Extra inputs are not permitted"):
        client.messages.create(model="claude-haiku-5-5", max_tokens=50, messages=[{"role": "user", "content": "hi"}], tools=tools)


def test_user_defined_tools_stream_their_input_eagerly(claude_double, tmp_path):
    session = Session(tmp_path, AgentConfig(model="claude-haiku-5-5", memory_mode="on-demand", max_retries=0), tools=[EchoTool()], now=NOW)
    claude_double.add(reply(text("Hello.")))
    session.send("hi", lambda e: None)
    tools = {t["name"]: t for t in claude_double.messages_requests()[0].body["tools"]}
    assert tools["echo"]["eager_input_streaming"] is True
    assert "eager_input_streaming" not in tools["memory"]


def test_a_long_input_the_api_holds_back_is_waited_for_while_pings_come(claude_double, tmp_path, monkeypatch):
    import agent.loop.silence
    from agent.events import ToolInputArriving

    monkeypatch.setattr(agent.loop.silence, "SILENCE_SECONDS", 2.0)
    session = Session(tmp_path, AgentConfig(model="claude-haiku-5-5", memory_mode="on-demand", memory_writes="auto", max_retries=0),
                      tools=[EchoTool()], now=NOW)
    note = {"command": "create", "path": "/memories/steps.md", "file_text": LONG}
    # The memory tool takes no eager streaming: five seconds of pings, then the input whole.
    claude_double.add(reply(tool_use("memory", note, id="m1"), input_seconds=5.0, ping_every=0.5), reply(text("Saved.")))
    events: list = []
    session.send("Note the steps.", events.append)
    assert [e.message for e in events if isinstance(e, AgentError)] == []
    assert events[-1].text == "Saved."
    arriving = [e for e in events if isinstance(e, ToolInputArriving)]
    # Said as it began, then as the pings came (not for each one), and when it was whole.
    assert 4 <= len(arriving) <= 8, len(arriving)
    assert arriving[0].text == "writing memory… 0 s"
    assert arriving[-1].target == "/memories/steps.md" and arriving[-1].text.endswith(" KB")
