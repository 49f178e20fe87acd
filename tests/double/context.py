"""Context management for the Claude double: what the API does to a request before the model.

The double (tests/double/server.py) calls `prepare(double, request)` for every messages and
count_tokens request. It returns a `Refusal` (a 400 the API would send) or a `View`: the
messages the model sees once the request's `context_management` edits are applied, their
token counts, the edits that applied, and a compaction block when one was made. The shapes
come from the SDK's beta types: `BetaContextManagementConfigParam` and its edits in,
`BetaClearToolUses20250919EditResponse` / `BetaClearThinking20251015EditResponse` in
`context_management.applied_edits` out, `BetaCompactionBlock` (streamed as a
`content_block_start` and one `compaction_delta`), `stop_reason: "compaction"`, and
`usage.iterations` with a `compaction` entry.

Tokens are counted as characters of JSON over four (`tokens`), the same count everywhere,
so thresholds can be tested exactly.

Assumptions about the API that the SDK does not write down
---------------------------------------------------------
1. Betas: a `clear_*` edit needs `context-management-2025-06-27` in `anthropic-beta`, a
   `compact_20260112` edit needs `compact-2026-01-12`. With neither, `context_management` is
   an unknown field (400 "context_management: Extra inputs are not permitted"); with only
   one, the edit that lacks its beta is refused by name. A `compaction` block in `messages`
   without the compact beta is an unknown block type (400, "Input tag 'compaction' ...").
2. A model can refuse context management altogether: the models in
   `double.refuse_context_management` get a 400 invalid_request_error naming the model.
3. Token counts: input tokens = (characters of the JSON of system + tools + the messages the
   model sees) // 4. Triggers compare with this count; an edit fires when the count is
   above its trigger (`>`), and each edit sees the count left by the edits before it, in
   the order given.
4. clear_tool_uses_20250919: defaults trigger 100,000 input tokens and keep 3 tool uses.
   When it fires, every tool use but the most recent `keep` is cleared, oldest first: its
   tool_result content becomes the text `CLEARED` (is_error and the id stay); with
   `clear_tool_inputs` (true, or a list naming the tool) the tool_use input becomes {}.
   Tools in `exclude_tools` are neither cleared nor counted in `keep`. With `clear_at_least`,
   nothing is cleared unless clearing frees at least that many tokens. The API is
   stateless: each request is edited afresh from the full history the client sends.
5. clear_thinking_20251015: keep defaults to 1 thinking turn; a turn is everything the
   assistant said between two user messages that are not only tool results. Older turns
   lose their thinking and redacted_thinking blocks. It needs thinking enabled (enabled or
   adaptive) and must be the first edit when there are several (400 otherwise).
6. applied_edits lists only the edits that cleared something, in the order applied; it is
   `[]` when context_management was sent and nothing applied, and absent without it. It is
   reported in `message_delta.context_management` when streaming and in the message's
   `context_management` otherwise. count_tokens answers the edited count and
   `context_management.original_input_tokens`.
7. compact_20260112: trigger defaults to 150,000 (as the SDK's docstring says). When the
   count after the other edits is above it, everything the model would see is summarised
   into one compaction block; the reply is generated from that block alone and the block
   comes first in the reply's content. With `pause_after_compaction` the reply is only the
   block, stop_reason "compaction", and no scripted reply is used. The block's `signature`
   is sent in `content_block_start`; `content` and `encrypted_content` in one
   `compaction_delta`. The summary text is the double's own (`summarise`), or
   `double.compaction_summary(messages)`.
8. A request whose messages hold a compaction block with content: the model sees nothing
   before the last such block (the client need not drop earlier messages). A block whose
   signature is not one the double issued for its content is refused (400), so a client
   must send the block back as it came. A block with `content: null` is a no-op.
9. usage: the top-level counts are the reply's sampling iteration; with a compaction,
   `usage.iterations` is [compaction entry, message entry] and the compaction entry's
   tokens are not in the top-level counts.
10. A request whose edited input is over the model's window (`double.context_window`,
    200,000 by default) is refused: 400 "prompt is too long: N tokens > W maximum".
11. Prompt caching (only with `double.simulate_cache = True`): a request reads from the cache
    the longest prefix, in whole tools, system blocks and messages, without cache_control
    markers, that an earlier
    request marked with a breakpoint, writes up to its own last breakpoint, and pays full
    input for the rest. No minimum cacheable length, no expiry.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from dataclasses import dataclass, field
from typing import Any

BETA_CONTEXT = "context-management-2025-06-27"
BETA_COMPACT = "compact-2026-01-12"
CLEARED = "[Tool result cleared to save context]"
DEFAULT_WINDOW = 200_000
CLEAR_TRIGGER = 100_000
CLEAR_KEEP = 3
COMPACT_TRIGGER = 150_000
_EDIT_BETAS = {
    "clear_tool_uses_20250919": BETA_CONTEXT,
    "clear_thinking_20251015": BETA_CONTEXT,
    "compact_20260112": BETA_COMPACT,
}
_KEY = b"claude-double-compaction"


def chars(value: Any) -> int:
    return len(json.dumps(value, ensure_ascii=False))


def tokens(value: Any) -> int:
    return chars(value) // 4


@dataclass
class Refusal:
    message: str
    status: int = 400
    type: str = "invalid_request_error"


@dataclass
class View:
    """What the model gets from one request, after the API's edits."""

    messages: list[dict]
    input_tokens: int
    original_tokens: int
    applied_edits: list[dict] | None = None
    compaction: dict | None = None
    compaction_usage: dict | None = None
    paused: bool = False
    cache_read: int = 0
    cache_write: int = 0
    # Each message's JSON: a day's history is megabytes, encoded once a request.
    texts: list[str] = field(default_factory=list)


@dataclass
class ContextState:
    """The double's memory across requests: issued signatures and cached prefixes."""

    issued: set[str] = field(default_factory=set)
    cached: set[str] = field(default_factory=set)


def betas(headers: dict[str, str]) -> set[str]:
    raw = headers.get("anthropic-beta", "")
    return {part.strip() for part in raw.split(",") if part.strip()}


def prepare(double: Any, body: dict, headers: dict[str, str]) -> Refusal | View:
    """The request as the model would see it, or why the API refuses it."""
    state: ContextState = double.context_state
    on = betas(headers)
    config = body.get("context_management")
    edits: list[dict] = []
    if config is not None:
        refused = _check_config(config, on, body, double)
        if refused is not None:
            return refused
        edits = list(config.get("edits") or [])
    messages = body.get("messages") or []
    start = _compaction_start(messages, on, state)
    if isinstance(start, Refusal):
        return start
    # Edits replace the messages they change and never touch the request's own.
    seen = _from_compaction(messages, start)
    fixed = chars(body.get("system", "")) + chars(body.get("tools", []))
    texts = [_json(m) for m in seen]
    original = _count(fixed, texts)
    view = View(messages=seen, input_tokens=original, original_tokens=original, applied_edits=[] if config is not None else None, texts=texts)
    for edit in edits:
        kind = edit.get("type")
        if kind == "clear_thinking_20251015":
            _clear_thinking(view, edit, fixed)
        elif kind == "clear_tool_uses_20250919":
            _clear_tool_uses(view, edit, fixed)
        elif kind == "compact_20260112":
            _compact(view, edit, fixed, body, double)
    window = getattr(double, "context_window", DEFAULT_WINDOW)
    if view.input_tokens > window:
        return Refusal(f"prompt is too long: {view.input_tokens} tokens > {window} maximum")
    if getattr(double, "simulate_cache", False):
        _cache(view, body, state)
    return view


# --- validation ---------------------------------------------------------------------------


def _check_config(config: Any, on: set[str], body: dict, double: Any) -> Refusal | None:
    if not on & {BETA_CONTEXT, BETA_COMPACT}:
        return Refusal("context_management: Extra inputs are not permitted")
    if not isinstance(config, dict) or not isinstance(config.get("edits", []), list):
        return Refusal("context_management.edits: Input should be a valid list")
    model = str(body.get("model", ""))
    if model in getattr(double, "refuse_context_management", ()):
        return Refusal(f"context_management: context management is not supported for model `{model}`")
    edits = config.get("edits") or []
    for i, edit in enumerate(edits):
        kind = edit.get("type") if isinstance(edit, dict) else None
        if kind not in _EDIT_BETAS:
            return Refusal(f"context_management.edits.{i}.type: Input tag '{kind}' does not match any of the expected tags")
        if _EDIT_BETAS[kind] not in on:
            return Refusal(f"context_management.edits.{i}: `{kind}` requires the `{_EDIT_BETAS[kind]}` beta header")
        if kind == "clear_thinking_20251015":
            if i != 0:
                return Refusal(f"context_management.edits.{i}: `clear_thinking_20251015` must be the first edit")
            thinking = body.get("thinking") or {}
            if thinking.get("type") not in ("enabled", "adaptive"):
                return Refusal(f"context_management.edits.{i}: `clear_thinking_20251015` requires thinking to be enabled")
        for name in ("trigger", "clear_at_least"):
            value = edit.get(name)
            if value is not None and not (
                isinstance(value, dict) and value.get("type") == "input_tokens" and _positive(value.get("value"))
            ):
                return Refusal(f"context_management.edits.{i}.{name}: expected {{type: input_tokens, value: int > 0}}")
        keep = edit.get("keep")
        if kind == "clear_tool_uses_20250919" and keep is not None and not (
            isinstance(keep, dict) and keep.get("type") == "tool_uses" and _positive(keep.get("value"), zero=True)
        ):
            return Refusal(f"context_management.edits.{i}.keep: expected {{type: tool_uses, value: int >= 0}}")
    return None


def _positive(value: Any, zero: bool = False) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and (value >= 0 if zero else value > 0)


# --- compaction blocks in the request ------------------------------------------------------


def signature(block: dict) -> str:
    payload = json.dumps([block.get("content"), block.get("encrypted_content")], ensure_ascii=False)
    return hmac.new(_KEY, payload.encode(), hashlib.sha256).hexdigest()[:32]


def _compaction_start(messages: list, on: set[str], state: ContextState) -> tuple[int, int] | None | Refusal:
    start = None
    for i, message in enumerate(messages):
        content = message.get("content") if isinstance(message, dict) else None
        for j, block in enumerate(content if isinstance(content, list) else []):
            if not (isinstance(block, dict) and block.get("type") == "compaction"):
                continue
            if BETA_COMPACT not in on:
                return Refusal(f"messages.{i}.content.{j}: Input tag 'compaction' found using 'type' does not match any of the expected tags")
            if message.get("role") != "assistant":
                return Refusal(f"messages.{i}.content.{j}: compaction blocks are only allowed in assistant messages")
            if block.get("content") is None:
                continue
            if block.get("signature") not in state.issued or block.get("signature") != signature(block):
                return Refusal(f"messages.{i}.content.{j}: Invalid `signature` in `compaction` block")
            start = (i, j)
    return start


def _from_compaction(messages: list, start: tuple[int, int] | None) -> list:
    if start is None:
        return list(messages)
    i, j = start
    first = dict(messages[i], content=messages[i]["content"][j:])
    return [first, *messages[i + 1 :]]


# --- the edits -----------------------------------------------------------------------------


def count(body: dict) -> int:
    """The input tokens of a request before any edit, as `prepare` counts them."""
    fixed = chars(body.get("system", "")) + chars(body.get("tools", []))
    return _count(fixed, [_json(m) for m in body.get("messages") or []])


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _count(fixed: int, texts: list[str]) -> int:
    """tokens() of system, tools and the messages, from each message's JSON: a JSON list is
    its items joined by ", " inside brackets."""
    return (fixed + 2 + sum(map(len, texts)) + 2 * max(0, len(texts) - 1)) // 4


def _recount(view: View, fixed: int) -> int:
    view.texts = [_json(m) for m in view.messages]
    return _count(fixed, view.texts)


def _clear_thinking(view: View, edit: dict, fixed: int) -> None:
    keep = edit.get("keep", {"type": "thinking_turns", "value": 1})
    if keep == "all" or (isinstance(keep, dict) and keep.get("type") == "all"):
        return
    value = keep.get("value", 1) if isinstance(keep, dict) else 1
    turns = _assistant_turns(view.messages)
    with_thinking = [t for t in turns if any(_is_thinking(b) for i in t for b in _blocks(view.messages[i]))]
    old = with_thinking[: max(0, len(with_thinking) - value)]
    if not old:
        return
    before = view.input_tokens
    view.messages = list(view.messages)
    for turn in old:
        for i in turn:
            message = view.messages[i]
            view.messages[i] = dict(message, content=[b for b in _blocks(message) if not _is_thinking(b)])
            view.texts[i] = _json(view.messages[i])
    view.input_tokens = _count(fixed, view.texts)
    view.applied_edits.append(
        {"type": "clear_thinking_20251015", "cleared_thinking_turns": len(old), "cleared_input_tokens": before - view.input_tokens}
    )


def _clear_tool_uses(view: View, edit: dict, fixed: int) -> None:
    trigger = (edit.get("trigger") or {}).get("value", CLEAR_TRIGGER)
    if view.input_tokens <= trigger:
        return
    keep = (edit.get("keep") or {}).get("value", CLEAR_KEEP)
    excluded = set(edit.get("exclude_tools") or [])
    inputs = edit.get("clear_tool_inputs") or False
    uses = [
        (i, block)
        for i, message in enumerate(view.messages)
        if message.get("role") == "assistant"
        for block in _blocks(message)
        if isinstance(block, dict) and block.get("type") == "tool_use" and block.get("name") not in excluded
    ]
    old = uses[: max(0, len(uses) - keep)]
    if not old:
        return
    trial = list(view.messages)
    changed: set[int] = set()

    def edited(i: int) -> list:
        if i not in changed:
            trial[i] = dict(trial[i], content=[dict(b) if isinstance(b, dict) else b for b in _blocks(trial[i])])
            changed.add(i)
        return trial[i]["content"]

    for i, use in old:
        if i + 1 < len(trial):
            for n, result in enumerate(_blocks(trial[i + 1])):
                if isinstance(result, dict) and result.get("type") == "tool_result" and result.get("tool_use_id") == use["id"]:
                    edited(i + 1)[n]["content"] = CLEARED
            if inputs is True or (isinstance(inputs, list) and use.get("name") in inputs):
                for n, block in enumerate(_blocks(trial[i])):
                    if isinstance(block, dict) and block.get("id") == use["id"]:
                        edited(i)[n]["input"] = {}
    texts = list(view.texts)
    for i in changed:
        texts[i] = _json(trial[i])
    after = _count(fixed, texts)
    least = (edit.get("clear_at_least") or {}).get("value", 0)
    if view.input_tokens - after < least:
        return
    before, cleared = view.input_tokens, len(old)
    view.messages, view.texts = trial, texts
    view.input_tokens = after
    view.applied_edits.append(
        {"type": "clear_tool_uses_20250919", "cleared_tool_uses": cleared, "cleared_input_tokens": before - after}
    )


def _compact(view: View, edit: dict, fixed: int, body: dict, double: Any) -> None:
    trigger = (edit.get("trigger") or {}).get("value", COMPACT_TRIGGER)
    if view.input_tokens <= trigger:
        return
    writer = getattr(double, "compaction_summary", None) or summarise
    text = writer(view.messages)
    block: dict[str, Any] = {"type": "compaction", "content": text, "encrypted_content": f"enc-{len(view.messages)}"}
    block["signature"] = signature(block)
    double.context_state.issued.add(block["signature"])
    compacted_from = view.input_tokens
    view.compaction = block
    view.messages = [{"role": "assistant", "content": [block]}]
    view.input_tokens = _recount(view, fixed)
    view.paused = bool(edit.get("pause_after_compaction"))
    view.compaction_usage = {
        "type": "compaction",
        "input_tokens": compacted_from,
        "output_tokens": tokens(text),
        "cache_read_input_tokens": 0,
        "cache_creation_input_tokens": 0,
    }


def summarise(messages: list[dict]) -> str:
    """The double's summary: the earlier summary, then what the user asked, one line each."""
    lines = [f"Earlier: {b['content']}" for b in _blocks(messages[0]) if _is_compaction(b)] if messages else []
    asked = [
        " ".join(block["text"].split())[:80]
        for message in messages
        if message.get("role") == "user"
        for block in _blocks(message)
        if isinstance(block, dict) and block.get("type") == "text" and block.get("text", "").strip()
    ]
    lines += [f"- the user asked: {line}" for line in asked[-40:]]
    return "Summary of the conversation so far.\n" + "\n".join(lines)


def _is_compaction(block: Any) -> bool:
    return isinstance(block, dict) and block.get("type") == "compaction"


def _is_thinking(block: Any) -> bool:
    return isinstance(block, dict) and block.get("type") in ("thinking", "redacted_thinking")


def _blocks(message: dict) -> list:
    content = message.get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return content if isinstance(content, list) else []


def _assistant_turns(messages: list[dict]) -> list[list[int]]:
    """Indexes of assistant messages, grouped by the user message (not only tool results)
    that started their turn."""
    turns: list[list[int]] = [[]]
    for i, message in enumerate(messages):
        if message.get("role") == "user":
            content = message.get("content")
            only_results = isinstance(content, list) and content and all(
                isinstance(b, dict) and b.get("type") == "tool_result" for b in content
            )
            if not only_results and turns[-1]:
                turns.append([])
        else:
            turns[-1].append(i)
    return [t for t in turns if t]


# --- prompt caching ------------------------------------------------------------------------


def _cache(view: View, body: dict, state: ContextState) -> None:
    parts: list[tuple[str, bool]] = []
    for group in (body.get("tools") or [], body.get("system") if isinstance(body.get("system"), list) else []):
        parts += [_part(b) for b in group]
    for message, encoded in zip(view.messages, view.texts):
        parts.append(_part(message) if '"cache_control"' in encoded else (encoded, False))
    digest = hashlib.sha256()
    total = read = written_to = 0
    prefixes = []
    for encoded, mark in parts:
        digest.update(encoded.encode() + b"\x00")
        total += len(encoded)
        prefixes.append((digest.hexdigest(), total, mark))
    for h, upto, _ in reversed(prefixes):
        if h in state.cached:
            read = upto
            break
    for h, upto, mark in prefixes:
        if mark:
            written_to = max(written_to, upto)
            state.cached.add(h)
    whole = view.input_tokens
    view.cache_read = whole * read // max(total, 1)
    view.cache_write = max(0, whole * written_to // max(total, 1) - view.cache_read)
    view.input_tokens = whole - view.cache_read - view.cache_write


def _part(value: Any) -> tuple[str, bool]:
    """The JSON of a block or message without its cache_control markers, and whether it had one."""
    marked = False

    def strip(node: Any) -> Any:
        nonlocal marked
        if isinstance(node, dict):
            marked = marked or "cache_control" in node
            return {k: strip(v) for k, v in node.items() if k != "cache_control"}
        if isinstance(node, list):
            return [strip(v) for v in node]
        return node

    return _json(strip(value)), marked
