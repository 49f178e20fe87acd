"""The turns of a resumed session, as the conversation pane draws them: what the user asked
and what came back, without the tool calls in between (their results are in the session)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

# a long session's beginning stays in the session, not on screen
MAX_DRAWN = 20


def _blocks(message: dict[str, Any]) -> list[dict[str, Any]]:
    content = message.get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def earlier_turns(messages: list[dict[str, Any]], limit: int = MAX_DRAWN) -> list[tuple[str, str]]:
    """(question, reply) for each turn the user began, the last `limit` of them. A question
    is its message's last text: the date and the session's notes come before it."""
    turns: list[tuple[str, list[str]]] = []
    for message in messages:
        blocks = _blocks(message)
        if message.get("role") == "user":
            if any(b.get("type") == "tool_result" for b in blocks):
                continue
            texts = [str(b.get("text", "")) for b in blocks if b.get("type") == "text"]
            if texts:
                turns.append((texts[-1], []))
        elif message.get("role") == "assistant" and turns:
            turns[-1][1].extend(str(b.get("text", "")) for b in blocks if b.get("type") == "text")
    return [(question, "\n\n".join(t for t in reply if t.strip())) for question, reply in turns[-limit:]]


async def draw(conversation: Any, turns: Iterable[tuple[str, str]]) -> None:
    """The turns in the conversation pane, as they were shown when they were had."""
    for question, answer in turns:
        await conversation.add_user(question)
        if answer:
            await conversation.add_text(answer)
