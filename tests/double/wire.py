"""A scripted reply as the API sends it: the SSE events of a stream, or one JSON message.

The usage a script leaves out is estimated from the request's size; what context
management made of the request (tests/double/context.py) comes first, and every
thinking block handed out is told to tests/double/rules.py.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

from tests.double import rules as double_rules
from tests.double.request import Request


def estimate_tokens(value: Any) -> int:
    return max(1, len(json.dumps(value, ensure_ascii=False)) // 4)


# Seconds between the pings of a stream that has nothing else to send (a test may set less).
PING_EVERY = 1.0


def eager(body: dict, name: str) -> bool:
    """Whether the request streams this tool's input as it is written (tests/double/rules.py, rule 14)."""
    return any(isinstance(t, dict) and t.get("name") == name and t.get("eager_input_streaming") is True
               for t in body.get("tools") or [])


def _pieces(value: str, size: int) -> list[str]:
    size = max(1, size)
    return [value[i : i + size] for i in range(0, len(value), size)] or [""]


def sse_events(rep: dict, request: Request, double: Any = None) -> list[tuple[str, dict]]:
    body = request.body if isinstance(request.body, dict) else {}
    content = rep.get("content", [])
    usage = dict(rep.get("usage") or {})
    view = request.context
    if view is not None:
        content = ([view.compaction] if view.compaction else []) + ([] if view.paused else content)
        usage.setdefault("input_tokens", view.input_tokens)
        usage.setdefault("cache_read_input_tokens", view.cache_read)
        usage.setdefault("cache_creation_input_tokens", view.cache_write)
    usage.setdefault("input_tokens", estimate_tokens(body.get("messages", [])))
    usage.setdefault("output_tokens", estimate_tokens(content))
    usage.setdefault("cache_read_input_tokens", 0)
    usage.setdefault("cache_creation_input_tokens", 0)
    stop = rep.get("stop_reason") or (
        "tool_use" if any(b.get("type") == "tool_use" for b in content) else "end_turn"
    )
    if view is not None and view.paused:
        stop = "compaction"
    content, stop = double_rules.within_budget(body, content, stop)
    if double is not None:
        content = double_rules.issue(double, body, content, stop)
    chunk = int(rep.get("chunk") or 12)
    events: list[tuple[str, dict]] = [
        (
            "message_start",
            {
                "type": "message_start",
                "message": {
                    "id": f"msg_{uuid.uuid4().hex[:24]}",
                    "type": "message",
                    "role": "assistant",
                    "model": body.get("model", "claude-double"),
                    "content": [],
                    "stop_reason": None,
                    "stop_sequence": None,
                    "usage": {
                        "input_tokens": usage["input_tokens"],
                        "output_tokens": 1,
                        "cache_read_input_tokens": usage["cache_read_input_tokens"],
                        "cache_creation_input_tokens": usage["cache_creation_input_tokens"],
                    },
                },
            },
        )
    ]
    if rep.get("ping"):
        events.append(("ping", {"type": "ping"}))
    for index, block in enumerate(content):
        kind = block["type"]
        delta = lambda d: ("content_block_delta", {"type": "content_block_delta", "index": index, "delta": d})  # noqa: E731,B023
        if kind == "text":
            start = {"type": "text", "text": ""}
            deltas = [delta({"type": "text_delta", "text": p}) for p in _pieces(block["text"], chunk)]
        elif kind == "tool_use":
            start = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
            raw = block["raw_input"] if "raw_input" in block else json.dumps(block.get("input", {}))
            if eager(body, block["name"]):
                deltas = [delta({"type": "input_json_delta", "partial_json": p}) for p in _pieces(raw, chunk)]
            else:
                # Buffered (rule 14): pings while the model writes it, then all of it at once.
                waits = int(float(rep.get("input_seconds") or 0) / float(rep.get("ping_every") or PING_EVERY))
                deltas = [("ping", {"type": "ping"})] * waits + [delta({"type": "input_json_delta", "partial_json": raw})]
        elif kind == "thinking":
            start = {"type": "thinking", "thinking": "", "signature": ""}
            deltas = [delta({"type": "thinking_delta", "thinking": p}) for p in _pieces(block["thinking"], chunk)]
            if block.get("signature"):
                # Cut off by max_tokens, a thinking block never gets its signature.
                deltas.append(delta({"type": "signature_delta", "signature": block["signature"]}))
        elif kind == "redacted_thinking":
            start = dict(block)
            deltas = []
        elif kind == "compaction":
            start = {"type": "compaction", "content": None, "encrypted_content": None, "signature": block.get("signature")}
            deltas = [delta({"type": "compaction_delta", "content": block.get("content"), "encrypted_content": block.get("encrypted_content")})]
        else:
            raise ValueError(f"the double cannot stream a {kind!r} block")
        events.append(("content_block_start", {"type": "content_block_start", "index": index, "content_block": start}))
        events.extend(deltas)
        events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
    final_usage = {
        "input_tokens": usage["input_tokens"],
        "output_tokens": usage["output_tokens"],
        "cache_read_input_tokens": usage["cache_read_input_tokens"],
        "cache_creation_input_tokens": usage["cache_creation_input_tokens"],
    }
    final: dict[str, Any] = {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None}, "usage": final_usage}
    if rep.get("stop_details"):
        final["delta"]["stop_details"] = rep["stop_details"]
    if view is not None:
        if view.compaction_usage is not None:
            final_usage["iterations"] = [view.compaction_usage, {"type": "message", **{k: final_usage[k] for k in list(final_usage)}}]
        if view.applied_edits is not None:
            final["context_management"] = {"applied_edits": view.applied_edits}
    events.append(("message_delta", final))
    events.append(("message_stop", {"type": "message_stop"}))
    return events


def json_message(rep: dict, request: Request, double: Any = None) -> dict:
    events = sse_events(rep, request)
    message = events[0][1]["message"]
    final = events[-2][1]
    view = request.context
    content = rep.get("content", [])
    if view is not None:
        content = ([view.compaction] if view.compaction else []) + ([] if view.paused else content)
        if "context_management" in final:
            message["context_management"] = final["context_management"]
    body = request.body if isinstance(request.body, dict) else {}
    content = double_rules.within_budget(body, content, rep.get("stop_reason") or "end_turn")[0]
    if double is not None:
        content = double_rules.issue(double, body, content, final["delta"]["stop_reason"])
    message["content"] = [{k: v for k, v in b.items() if k != "raw_input"} for b in content]
    if rep.get("stop_details"):
        message["stop_details"] = rep["stop_details"]
    message["stop_reason"] = final["delta"]["stop_reason"]
    message["usage"] = final["usage"]
    return message
