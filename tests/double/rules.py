"""The Messages API's rules that depend on the model and on the replies it gave before.

tests/double/server.py asks `problem(double, body, headers)` for every messages request, before it
takes a reply from its queue, and answers a 400 (404 for a model it does not know) naming
the rule. It calls `issue(double, body, content, stop_reason)` for every reply it sends, so
that it knows each thinking block it handed out and what it was bound to.

The double has its own table, written from the documentation and not imported from
agent/settings/claude_models.py: a wrong entry there must fail a test, not pass it.

Rules, each with the documentation page it comes from (platform.claude.com/docs):

1. Thinking prefix check ("Preserved thinking", "Prefix checks for thinking blocks"): on
   the models that run it (Fable and Mythos 5.1 and 5.2, Opus 5.5, Sonnet 5.5, Haiku 5.5),
   a `thinking` or `redacted_thinking` block is valid only if the top-level `system`, the
   `tools` and every message before it (and the blocks before it in its message) are what
   they were when the block was produced; otherwise that block and every later one are
   invalid, and accounts created since 2026-08-31 get a 400 by default. On the other models
   the block must be one the API produced, unchanged (its signature checks its text).
2. A thinking block without a signature, as a reply cut off by `max_tokens` leaves it, is
   refused ("Troubleshooting thinking": max_tokens stops; "Invalid `signature`").
3. A manual budget (`thinking.type: "enabled"`) is refused on the models that only think
   adaptively: Claude 4.7 and later ("Troubleshooting thinking"; "What's new in Claude Haiku
   5.5": manual extended thinking returns an error).
4. Adaptive thinking is refused on the models without it: Haiku 4.5, Sonnet 4.5, Opus 4.5
   ("Troubleshooting thinking": on them extended thinking is the only mode).
5. `thinking.type: "disabled"` is refused where thinking cannot be turned off (Opus 5.5, the
   Fable and Mythos models, Mythos Preview); Sonnet 5.5 takes `between_tools` instead ("What's
   new in Claude Sonnet 5.5"); on Haiku and Sonnet 5.5 turning it off works only at effort
   low to high ("Prompting Claude Haiku 5.5", "What's new in Claude Sonnet 5.5").
6. `output_config.effort` is refused on the models without effort (Haiku, Sonnet and Opus
   4.5; the overview tables' "Default effort" column), and a level the model lacks.
7. `compact_20260112` is refused on the models compaction does not support (the compaction
   page lists them from Opus 4.6 and Sonnet 4.6 on), and its trigger must be at least 50,000
   input tokens (the compaction page's parameter table).
8. A last message from the assistant (prefill) is refused where prefill returns an error
   (Claude 4.6 and later: "What's new in Claude Haiku 5.5", the 4.6 release notes), except a
   turn the API itself paused (`stop_reason: "pause_turn"`, "Handling stop reasons").
9. `temperature`, `top_p` and `top_k` are refused on the models without sampling parameters
   ("What's new in Claude Haiku 5.5", "What's new in Claude Sonnet 5").
10. Forced tool use (`tool_choice` any or tool) is refused on Sonnet 5.5 ("What's new in Claude
    Sonnet 5.5").
11. `max_tokens` above the model's maximum output is refused (the overview pages' "Max output").
12. A model the API does not know: 404 not_found_error.
13. A reply is cut at the request's `max_tokens`: thinking, text and tool input all count
    (about four characters a token here), the block it reached ends there, later ones never
    come, and `stop_reason` is "max_tokens" ("Handling stop reasons": max_tokens; "Fine-grained
    tool streaming": a reply cut by max_tokens may end midway through a parameter). The
    model's own ceiling is rule 11; this is what a smaller `max_tokens` does to a long reply.
14. A tool's input is buffered unless its definition says `eager_input_streaming: true`
    ("Fine-grained tool streaming"): it comes late, in one `input_json_delta`, with nothing
    but `ping` events while the model writes it ("Streaming messages": a stream may hold any
    number of pings). Eager, it comes in pieces as it is written. (tests/double/wire.py)
15. `eager_input_streaming` is a field of user-defined tools only ("Fine-grained tool
    streaming": "on any user-defined tool"); a tool of Anthropic's schema refuses it.
16. `thinking.display` ("Controlling thinking display", on the extended thinking page) is a
    field of `adaptive` and `enabled` thinking, "summarized" or "omitted"; `between_tools`
    is `type` alone ("What's new in Claude Sonnet 5.5": send `{"type": "between_tools"}`).
    "updates" (only the progress notes written between tool calls, none of the reasoning)
    needs the beta header `thinking-display-updates-2026-08-18`, and here only Sonnet 5.5
    takes it, the model whose page describes those notes (the stricter reading for others).
17. What a thinking block holds depends on `display`: under "omitted", the default on
    Sonnet 5.5 ("What's new in Claude Sonnet 5.5": text between tool calls comes back in
    thinking blocks, and an application stays quiet between tool calls until it sets a
    `display` that returns it), the block comes with its signature and empty text; under
    `between_tools` the progress notes come with their text ("Turn off up-front thinking").
18. On Sonnet 5.5 with `between_tools`, effort cannot change mid-conversation ("What's new in
    Claude Sonnet 5.5", "Turn off up-front thinking"): a request that sends back a thinking
    block produced at another effort is refused.

A refusal (`refusal(...)` in tests/double/server.py) comes as the docs show it ("Handling
streaming refusals"): no content unless given, `stop_reason: "refusal"`, and `stop_details`
on the `message_delta` event.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from dataclasses import dataclass, field, replace
from typing import Any

COMPACTION_MINIMUM = 50_000
_KEY = b"claude-double-thinking"
FIVE = ("low", "medium", "high", "xhigh", "max")
FOUR = ("low", "medium", "high", "max")
UP_TO_HIGH = ("low", "medium", "high")


@dataclass(frozen=True)
class Rules:
    max_output: int
    manual: bool  # thinking.type "enabled" with a budget
    adaptive: bool
    disabled: str | None  # the type that turns thinking off here, or None: it cannot be
    efforts: tuple[str, ...]
    compaction: bool
    prefill: bool
    sampling: bool
    off_efforts: tuple[str, ...] = FIVE
    forced_tools: bool = True
    prefix_check: bool = False
    # rules 16 and 17: takes display "updates"; what display is when a request sends none
    updates: bool = False
    default_display: str = "summarized"
    # rule 18
    fixed_effort_between_tools: bool = False


DISPLAY_BETA = "thinking-display-updates-2026-08-18"
DISPLAYS = ("summarized", "omitted")
API_DEFAULT_EFFORT = "high"


_ALWAYS = Rules(128_000, False, True, None, FIVE, True, False, False, prefix_check=True)
_FIVE = Rules(128_000, False, True, "disabled", FIVE, True, False, False)
_FOUR_SIX = Rules(128_000, True, True, "disabled", FOUR, True, False, True)
_FOUR_FIVE = Rules(64_000, True, False, "disabled", (), False, True, True)

MODELS: dict[str, Rules] = {
    "claude-haiku-5-5": replace(_FIVE, off_efforts=UP_TO_HIGH, prefix_check=True),
    "claude-sonnet-5-5": replace(_FIVE, disabled="between_tools", off_efforts=UP_TO_HIGH, forced_tools=False, prefix_check=True,
                                 updates=True, default_display="omitted", fixed_effort_between_tools=True),
    "claude-opus-5-5": _ALWAYS,
    "claude-fable-5-2": _ALWAYS,
    "claude-mythos-5-2": _ALWAYS,
    "claude-fable-5-1": _ALWAYS,
    "claude-mythos-5-1": _ALWAYS,
    "claude-sonnet-5": _FIVE,
    "claude-opus-5": replace(_FIVE, off_efforts=UP_TO_HIGH),
    "claude-fable-5": replace(_ALWAYS, prefix_check=False),
    "claude-mythos-5": replace(_ALWAYS, prefix_check=False),
    "claude-opus-4-8": _FIVE,
    "claude-opus-4-7": _FIVE,
    "claude-mythos-preview": replace(_ALWAYS, manual=True, compaction=False, prefix_check=False),
    "claude-opus-4-6": _FOUR_SIX,
    "claude-sonnet-4-6": _FOUR_SIX,
    "claude-haiku-4-5": _FOUR_FIVE,
    "claude-haiku-4-5-20251001": _FOUR_FIVE,
    "claude-opus-4-5": _FOUR_FIVE,
    "claude-opus-4-5-20251101": _FOUR_FIVE,
    "claude-sonnet-4-5": _FOUR_FIVE,
    "claude-sonnet-4-5-20250929": _FOUR_FIVE,
}


@dataclass
class Ledger:
    """What the double handed out: thinking blocks (signature, text, prefix), and the
    content of turns it paused."""

    thinking: set[tuple[str, str, str]] = field(default_factory=set)
    texts: set[tuple[str, str]] = field(default_factory=set)
    paused: set[str] = field(default_factory=set)
    # signature -> the effort of the request that produced the block (rule 18)
    efforts: dict[str, str] = field(default_factory=dict)


@dataclass
class Refused:
    message: str
    status: int = 400
    type: str = "invalid_request_error"


def problem(double: Any, body: dict, headers: dict[str, str] | None = None) -> Refused | None:
    """Why the API would refuse this request, by rules 1 to 12 and 15 to 18, or None."""
    model = str(body.get("model", ""))
    rules = double.models.get(model)
    if rules is None:
        return Refused(f"model: {model}", 404, "not_found_error")
    return (
        _settings(model, rules, body)
        or _display(model, rules, body, headers or {})
        or _thinking_blocks(double.ledger, rules, body)
        or _prefill(double.ledger, rules, body)
    )


def _betas(headers: dict[str, str]) -> set[str]:
    return {b.strip() for b in str(headers.get("anthropic-beta") or "").split(",") if b.strip()}


def _display(model: str, rules: Rules, body: dict, headers: dict[str, str]) -> Refused | None:
    """Rule 16."""
    thinking = body.get("thinking")
    if not isinstance(thinking, dict) or "display" not in thinking:
        return None
    kind = thinking.get("type")
    display = thinking.get("display")
    if kind not in ("adaptive", "enabled"):
        return Refused(f"thinking.{kind}.display: Extra inputs are not permitted")
    if display in DISPLAYS or display is None:
        return None
    if display != "updates":
        return Refused(f"thinking.{kind}.display: Input should be 'summarized' or 'omitted'")
    if DISPLAY_BETA not in _betas(headers):
        return Refused(f"thinking.{kind}.display: Input should be 'summarized' or 'omitted' ('updates' needs the "
                       f"anthropic-beta header {DISPLAY_BETA})")
    if not rules.updates:
        return Refused(f"thinking.{kind}.display: 'updates' is not supported for model {model}")
    return None


def _effort(body: dict) -> str:
    return str((body.get("output_config") or {}).get("effort") or API_DEFAULT_EFFORT)


def _display_of(rules: Rules, body: dict) -> str:
    """What the reply's thinking blocks carry (rule 17): "omitted", "summarized", "updates",
    or "between_tools" (the progress notes, with their text)."""
    thinking = body.get("thinking")
    kind = thinking.get("type") if isinstance(thinking, dict) else "adaptive"
    if kind == "between_tools":
        return "between_tools"
    shown = thinking.get("display") if isinstance(thinking, dict) else None
    return str(shown or rules.default_display)


def _settings(model: str, rules: Rules, body: dict) -> Refused | None:
    thinking = body.get("thinking") or {}
    kind = thinking.get("type") if isinstance(thinking, dict) else None
    effort = (body.get("output_config") or {}).get("effort")
    if kind == "enabled" and not rules.manual:
        return Refused(f'thinking.type.enabled is not supported for model {model}. Use thinking.type.adaptive and output_config.effort to control thinking behavior.')
    if kind == "adaptive" and not rules.adaptive:
        return Refused(f"thinking.type.adaptive: adaptive thinking is not supported on model {model}")
    if kind in ("disabled", "between_tools"):
        if rules.disabled != kind:
            hint = f' Use thinking.type "{rules.disabled}".' if rules.disabled else ""
            return Refused(f"thinking.type.{kind} is not supported for model {model}.{hint}")
        if effort is not None and effort not in rules.off_efforts:
            return Refused(f"thinking.type.{kind} is not supported with output_config.effort {effort} on model {model}")
    if effort is not None:
        if not rules.efforts:
            return Refused(f"output_config.effort: effort is not supported for model {model}")
        if effort not in rules.efforts:
            return Refused(f'output_config.effort "{effort}" is not supported by model {model}; supported values: {list(rules.efforts)}')
    if kind == "enabled":
        budget = thinking.get("budget_tokens")
        if isinstance(budget, int) and budget >= int(body.get("max_tokens") or 0):
            return Refused("`max_tokens` must be greater than `thinking.budget_tokens`")
    for name in ("temperature", "top_p", "top_k"):
        if body.get(name) is not None and not rules.sampling:
            return Refused(f"{name}: sampling parameters are not supported for model {model}; leave them at their defaults")
    choice = (body.get("tool_choice") or {}).get("type")
    if choice in ("any", "tool") and not rules.forced_tools:
        return Refused(f"tool_choice.type {choice}: forced tool use is not supported for model {model}")
    if int(body.get("max_tokens") or 0) > rules.max_output:
        return Refused(f"max_tokens: {body.get('max_tokens')} > {rules.max_output}, which is the maximum allowed number of output tokens for {model}")
    for i, tool in enumerate(body.get("tools") or []):
        if isinstance(tool, dict) and tool.get("type") not in (None, "custom") and "eager_input_streaming" in tool:
            return Refused(f"tools.{i}.{tool.get('type')}.eager_input_streaming: Extra inputs are not permitted")
    edits = (body.get("context_management") or {}).get("edits") or []
    for i, edit in enumerate(edits):
        if not isinstance(edit, dict) or edit.get("type") != "compact_20260112":
            continue
        if not rules.compaction:
            return Refused(f"context_management.edits.{i}: compaction is not supported for model {model}")
        value = (edit.get("trigger") or {}).get("value")
        if isinstance(value, int) and value < COMPACTION_MINIMUM:
            return Refused(f"context_management.edits.{i}.trigger.value: must be at least {COMPACTION_MINIMUM}")
    return None


# --- thinking blocks -----------------------------------------------------------------------


def _unmarked(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _unmarked(v) for k, v in value.items() if k not in ("cache_control", "raw_input")}
    if isinstance(value, list):
        return [_unmarked(v) for v in value]
    return value


def _blocks(message: dict) -> list:
    content = message.get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return content if isinstance(content, list) else []


def _start(body: dict) -> Any:
    system = body.get("system") or []
    if isinstance(system, str):
        system = [{"type": "text", "text": system}]
    digest = hashlib.sha256()
    digest.update(json.dumps([_unmarked(system), _unmarked(body.get("tools") or [])], sort_keys=True).encode())
    return digest


def _is_thinking(block: Any) -> bool:
    return isinstance(block, dict) and block.get("type") in ("thinking", "redacted_thinking")


def _signature(block: dict) -> tuple[str, str]:
    if block.get("type") == "redacted_thinking":
        return str(block.get("data") or ""), ""
    return str(block.get("signature") or ""), str(block.get("thinking") or "")


def _walk(digest: Any, role: str, blocks: list) -> list[str]:
    """Feeds one message to `digest`; the prefix of each of its thinking blocks, in order."""
    digest.update(b"\x00" + role.encode())
    prefixes = []
    for block in blocks:
        if _is_thinking(block):
            prefixes.append(digest.hexdigest())
        digest.update(b"\x01" + json.dumps(_unmarked(block), sort_keys=True).encode())
    return prefixes


def _thinking_blocks(ledger: Ledger, rules: Rules, body: dict) -> Refused | None:
    messages = body.get("messages") or []
    if not any(_is_thinking(b) for m in messages if isinstance(m, dict) for b in _blocks(m)):
        return None
    digest = _start(body)
    thinking = body.get("thinking")
    between_tools = isinstance(thinking, dict) and thinking.get("type") == "between_tools"
    effort = _effort(body)
    for i, message in enumerate(messages):
        blocks = _blocks(message)
        prefixes = iter(_walk(digest, str(message.get("role")), blocks))
        for j, block in enumerate(blocks):
            if not _is_thinking(block):
                continue
            prefix = next(prefixes)
            signature, text = _signature(block)
            kind = block.get("type")
            if not signature:
                return Refused(f"messages.{i}.content.{j}: Invalid `signature` in `{kind}` block: the signature is empty")
            if rules.prefix_check:
                if (signature, text, prefix) not in ledger.thinking:
                    return Refused(
                        f"messages.{i}.content.{j}: Invalid `signature` in `{kind}` block. The block is bound to a "
                        "different conversation: the system prompt, the tools or an earlier message changed after it "
                        "was produced (prefix check)"
                    )
            elif (signature, text) not in ledger.texts:
                return Refused(f"messages.{i}.content.{j}: Invalid `signature` in `{kind}` block")
            made_at = ledger.efforts.get(signature)
            if rules.fixed_effort_between_tools and between_tools and made_at is not None and made_at != effort:
                return Refused(
                    f"output_config.effort: effort cannot change in the middle of a conversation with thinking.type "
                    f"between_tools (messages.{i}.content.{j} was produced at effort {made_at}, this request asks for {effort})"
                )
    return None


def _prefill(ledger: Ledger, rules: Rules, body: dict) -> Refused | None:
    messages = body.get("messages") or []
    if rules.prefill or not messages or messages[-1].get("role") != "assistant":
        return None
    if _content_key(_blocks(messages[-1])) in ledger.paused:
        return None
    return Refused(
        f"messages.{len(messages) - 1}: prefilling the assistant message is not supported for model {body.get('model')}; "
        "the conversation must end with a user message"
    )


def _content_key(blocks: list) -> str:
    return hashlib.sha256(json.dumps(_unmarked(blocks), sort_keys=True).encode()).hexdigest()


CHARS_PER_TOKEN = 4


def _size(block: dict) -> int:
    kind = block.get("type")
    if kind == "text":
        return len(block.get("text") or "")
    if kind == "thinking":
        return len(block.get("thinking") or "")
    if kind == "tool_use":
        return len(block["raw_input"] if "raw_input" in block else json.dumps(block.get("input", {})))
    return 0


def within_budget(body: dict, content: list[dict], stop_reason: str) -> tuple[list[dict], str]:
    """Rule 13: the reply as a request's `max_tokens` lets it out, and its stop reason."""
    limit = body.get("max_tokens")
    if not isinstance(limit, int) or stop_reason == "max_tokens":
        return content, stop_reason
    left = limit * CHARS_PER_TOKEN
    if sum(_size(b) for b in content) <= left:
        return content, stop_reason
    kept: list[dict] = []
    for block in content:
        size = _size(block)
        if size <= left:
            kept.append(block)
            left -= size
            continue
        cut = dict(block)
        kind = block.get("type")
        if kind == "text":
            cut["text"] = block["text"][:left]
        elif kind == "thinking":
            cut["thinking"] = block["thinking"][:left]
        elif kind == "tool_use":
            raw = block["raw_input"] if "raw_input" in block else json.dumps(block.get("input", {}))
            cut["raw_input"] = raw[:left]
        if kind != "text" or cut["text"]:
            kept.append(cut)
        break
    return kept, "max_tokens"


def sign(text: str, prefix: str) -> str:
    return hmac.new(_KEY, f"{prefix}\x00{text}".encode(), hashlib.sha256).hexdigest()[:24]


def issue(double: Any, body: dict, content: list[dict], stop_reason: str) -> list[dict]:
    """The reply's content as sent: every thinking block recorded with what it is bound to,
    except one cut off by max_tokens (its signature never comes)."""
    ledger: Ledger = double.ledger
    content = [dict(b) for b in content]
    rules = double.models.get(str(body.get("model", "")))
    if rules is not None and _display_of(rules, body) == "omitted":
        for block in content:
            if block.get("type") == "thinking":
                block["thinking"] = ""
    if stop_reason in ("max_tokens", "model_context_window_exceeded") and content and content[-1].get("type") == "thinking":
        content[-1]["signature"] = ""
    if any(_is_thinking(b) for b in content):
        digest = _start(body)
        for message in body.get("messages") or []:
            _walk(digest, str(message.get("role")), _blocks(message))
        for prefix, block in zip(_walk(digest, "assistant", content), [b for b in content if _is_thinking(b)]):
            signature, text = _signature(block)
            if signature:
                ledger.thinking.add((signature, text, prefix))
                ledger.texts.add((signature, text))
                ledger.efforts[signature] = _effort(body)
    if stop_reason in ("pause_turn", "compaction"):
        ledger.paused.add(_content_key([{k: v for k, v in b.items() if k != "raw_input"} for b in content]))
    return content
