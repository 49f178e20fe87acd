"""A reply whose only words are whitespace: the API refuses such a text block sent back
("messages: text content blocks must contain non-whitespace text"), so it never stays in the
history, and a saved session that holds one is repaired when it is resumed."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest

from agent.conversation import transcripts
from agent.events import AgentError
from agent.loop.resume import open_saved
from agent.loop.session import Session
from agent.settings.config import AgentConfig
from tests.agent.toolkit import EchoTool
from tests.double.server import reply, text, thinking, tool_use

NOW = datetime(2026, 11, 9, 9, 0, tzinfo=UTC)


def blank_texts(messages: list[dict]) -> list[str]:
    return [
        b["text"]
        for m in messages
        if isinstance(m.get("content"), list)
        for b in m["content"]
        if b.get("type") == "text" and not b["text"].strip()
    ]


def test_the_double_refuses_a_text_block_of_whitespace_alone(claude_double):
    import anthropic

    client = anthropic.Anthropic(api_key="k", base_url=claude_double.url, max_retries=0)
    messages = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [{"type": "text", "text": "\n\n"}]},
        {"role": "user", "content": "and now?"},
    ]
    with pytest.raises(anthropic.BadRequestError, match="text content blocks must contain non-whitespace text"):
        client.messages.create(model="claude-haiku-5-5", max_tokens=50, messages=messages)


@pytest.mark.parametrize("answer", [
    reply(text("\n\n")),
    reply(thinking("Nothing to add.", "sig-b1"), text(" \n")),
    reply(text("\n"), tool_use("echo", {"text": "x"}, id="t1")),
])
def test_a_blank_reply_does_not_poison_the_next_turn(claude_double, repo, answer):
    session = Session(repo, AgentConfig(model="claude-haiku-5-5", memory_mode="none", max_retries=0), tools=[EchoTool()], now=NOW)
    claude_double.add(answer)
    if answer["content"][-1]["type"] == "tool_use":
        claude_double.add(reply(text("\n\n")))
    session.send("Anything?", lambda e: None)
    assert blank_texts(session.messages) == []
    claude_double.add(reply(text("Yes: the shop sells shoes.")))
    events: list = []
    session.send("Tell me again.", events.append)
    assert [e for e in events if isinstance(e, AgentError)] == []
    assert events[-1].text == "Yes: the shop sells shoes."
    assert blank_texts(claude_double.messages_requests()[-1].messages) == []
    # The saved copy holds no blank block either.
    saved = transcripts.load(session.transcript.path)
    assert blank_texts([m.message for m in saved.messages]) == []


def test_a_saved_session_with_a_blank_block_is_repaired_on_resume(claude_double, repo):
    config = AgentConfig(model="claude-haiku-5-5", memory_mode="none", max_retries=0)
    first = Session(repo, config, now=NOW)
    claude_double.add(reply(text("The shop sells shoes.")))
    first.send("What does the shop sell?", lambda e: None)
    # A blank reply saved as an older devagent saved it.
    first.transcript.add_message({"role": "user", "content": [{"type": "text", "text": "And hats?"}]}, turn=2, time=NOW)
    first.transcript.add_message({"role": "assistant", "content": [{"type": "text", "text": "\n\n"}]}, turn=2, time=NOW)
    first.transcript.add_turn(2, {}, time=NOW)
    assert blank_texts([m.message for m in transcripts.load(first.transcript.path).messages]) == ["\n\n"]

    resumed, _ = open_saved(repo, config, None, now=NOW + timedelta(hours=1))
    assert blank_texts(resumed.messages) == []
    claude_double.add(reply(text("Hats too.")))
    events: list = []
    resumed.send("Hats?", events.append)
    assert [e for e in events if isinstance(e, AgentError)] == []
    sent = claude_double.messages_requests()[-1].messages
    assert blank_texts(sent) == [] and "And hats?" in json.dumps(sent)
