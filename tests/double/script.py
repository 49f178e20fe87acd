"""Replies for the Claude double to send, as plain dicts (a script file holds the same).

tests/double/server.py's docstring says what each field does; the builders are here so
that a test script reads as what the model answers.
"""

from __future__ import annotations

import threading
import uuid
from typing import Any


class Gate:
    """A point a scripted stream stops at until the test opens it: the window a test needs
    (a turn still running, text already on screen) without a delay that a loaded machine
    can outrun. `reached` is set when the stream arrives there; a gate left shut opens by
    itself after `timeout` seconds, or when its double stops, so no server thread is stuck.
    `after`: how many events of the stream go out before it (None: up to and with the
    first content_block_delta)."""

    def __init__(self, after: int | None = None, timeout: float = 120.0) -> None:
        self.after = after
        self.reached = threading.Event()
        self._opened = threading.Event()
        self.timeout = timeout

    def here(self, sent: int, name: str) -> bool:
        """Whether the stream, having sent `sent` events the last of which was `name`, is at the gate."""
        return sent == self.after if self.after is not None else name == "content_block_delta"

    def open(self) -> None:
        self._opened.set()

    @property
    def is_open(self) -> bool:
        return self._opened.is_set()

    def hold(self) -> None:
        """Called by the double's stream at the gate."""
        self.reached.set()
        self._opened.wait(self.timeout)


def text(value: str) -> dict:
    return {"type": "text", "text": value}


def tool_use(name: str, input: dict | None = None, id: str | None = None, raw_input: str | None = None) -> dict:
    block = {
        "type": "tool_use",
        "id": id or f"toolu_{uuid.uuid4().hex[:20]}",
        "name": name,
        "input": input or {},
    }
    if raw_input is not None:
        block["raw_input"] = raw_input
    return block


def thinking(value: str, signature: str = "sig-double") -> dict:
    return {"type": "thinking", "thinking": value, "signature": signature}


def redacted_thinking(data: str = "redacted") -> dict:
    return {"type": "redacted_thinking", "data": data}


def refusal(*blocks: dict | str, category: str | None = "cyber", explanation: str | None = None) -> dict:
    """A reply the model declined, as "Handling streaming refusals" shows it: no content
    unless given, stop_reason "refusal", stop_details on the message_delta event."""
    rep = reply(*blocks, stop_reason="refusal")
    rep["stop_details"] = {"type": "refusal", "category": category, "explanation": explanation}
    return rep


def reply(
    *blocks: dict | str,
    stop_reason: str | None = None,
    usage: dict | None = None,
    delay: float = 0.0,
    chunk: int = 12,
    ping: bool = False,
    drop_after: int | None = None,
    malformed_after: int | None = None,
    stall: float | None = None,
    error_after: int | None = None,
    error_type: str = "overloaded_error",
    error_message: str = "Overloaded",
    wait: float = 0.0,
    input_seconds: float = 0.0,
    ping_every: float | None = None,
    hold: Gate | list[Gate] | None = None,
) -> dict:
    content = [text(b) if isinstance(b, str) else b for b in blocks]
    return {
        "content": content,
        "stop_reason": stop_reason,
        "usage": usage or {},
        "delay": delay,
        "chunk": chunk,
        "ping": ping,
        "drop_after": drop_after,
        "malformed_after": malformed_after,
        "stall": stall,
        "error_after": error_after,
        "error_type": error_type,
        "error_message": error_message,
        "wait": wait,
        "input_seconds": input_seconds,
        "ping_every": ping_every,
        # in-process only (a script file cannot hold one)
        "hold": [hold] if isinstance(hold, Gate) else list(hold or []),
    }


_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
}


def error(
    status: int, message: str | None = None, type: str | None = None, retry_after_ms: int = 5
) -> dict:
    kind = type or _ERROR_TYPES.get(status, "api_error")
    return {
        "error": {
            "status": status,
            "type": kind,
            "message": message or f"{kind.replace('_', ' ')} (scripted)",
            "retry_after_ms": retry_after_ms,
        }
    }


def as_reply(item: Any) -> dict:
    if isinstance(item, str):
        return reply(item)
    if isinstance(item, dict) and ("content" in item or "error" in item):
        return item
    if isinstance(item, dict) and "type" in item:
        return reply(item)
    raise TypeError(f"not a scripted reply: {item!r}")
