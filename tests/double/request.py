"""A request the Claude double received, with the helpers tests read it through."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any


def block_text(block: Any) -> str:
    if isinstance(block, str):
        return block
    if not isinstance(block, dict):
        return ""
    if block.get("type") == "text":
        return block.get("text", "")
    if block.get("type") == "tool_result":
        inner = block.get("content", "")
        if isinstance(inner, list):
            return "\n".join(block_text(b) for b in inner)
        return str(inner)
    return ""


def content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "\n".join(block_text(b) for b in content or [])


@dataclass
class Request:
    path: str
    method: str
    headers: dict[str, str]
    body: Any
    time: float = field(default_factory=time.time)
    # What the model saw after context management (tests/double/context.py), once prepared.
    context: Any = None
    # The client's (host, port): requests from one port came over one kept-alive connection.
    peer: Any = None

    @property
    def stream(self) -> bool:
        return bool(isinstance(self.body, dict) and self.body.get("stream"))

    @property
    def messages(self) -> list[dict]:
        return list(self.body.get("messages", [])) if isinstance(self.body, dict) else []

    def system_text(self) -> str:
        system = self.body.get("system", "") if isinstance(self.body, dict) else ""
        return content_text(system)

    def first_user_text(self) -> str:
        users = [m for m in self.messages if m.get("role") == "user"]
        return content_text(users[0]["content"]) if users else ""

    def last_user_text(self) -> str:
        users = [m for m in self.messages if m.get("role") == "user"]
        return content_text(users[-1]["content"]) if users else ""

    def tool_results(self) -> list[dict]:
        if not self.messages:
            return []
        content = self.messages[-1].get("content")
        if not isinstance(content, list):
            return []
        return [b for b in content if isinstance(b, dict) and b.get("type") == "tool_result"]

    def seen_messages(self) -> list[dict]:
        """The messages as the model saw them: after clearing, from the last compaction on."""
        return self.context.messages if self.context is not None else self.messages

    def tool_names(self) -> list[str]:
        tools = self.body.get("tools", []) if isinstance(self.body, dict) else []
        return [t.get("name", "") for t in tools]

    def to_json(self) -> dict:
        return {
            "path": self.path,
            "method": self.method,
            "headers": self.headers,
            "body": self.body,
            "time": self.time,
        }
