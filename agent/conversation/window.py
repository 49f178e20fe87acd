"""How full a session's context is, and what the API is asked to do about it.

A day's session sends every build log and file read again on each request, until a request
no longer fits the model's window. The Messages API can keep it bounded on its side
(betas `context-management-2025-06-27` and `compact-2026-01-12`):

- `clear_thinking_20251015` drops the thinking of all but the latest assistant turn;
- `clear_tool_uses_20250919` replaces old tool results with a placeholder once a request is
  over `clear_at` input tokens, keeping the latest few and never the memory tool's;
- `compact_20260112` summarises the conversation into a compaction block once a request,
  after clearing, is still over `compact_at`.

The session's history is never edited: the API applies these to each request afresh, and a
compaction block stays in the history as it came. No SDK import here.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace
from typing import Any

from agent.settings import claude_models

log = logging.getLogger("devagent.session")

BETA_CONTEXT = "context-management-2025-06-27"
BETA_COMPACT = "compact-2026-01-12"
BETAS = (BETA_CONTEXT, BETA_COMPACT)
MEMORY_TOOL = "memory"
# The notice to save to memory goes out once the context passes this share of `clear_at`.
WARN_SHARE = 0.8


@dataclass(frozen=True)
class Limits:
    """Input-token thresholds of one model."""

    window: int
    clear_at: int
    compact_at: int
    keep_tool_uses: int = 3

    @property
    def warn_at(self) -> int:
        return int(self.clear_at * WARN_SHARE)


# The window is the model's (agent.settings.claude_models). Haiku 5.5 bills a whole request 5x once its
# prompt is over 100,000 tokens (agent/loop/claude.py LONG_PROMPT), so it clears and compacts well
# before that; Sonnet 5.5 keeps a 200k-sized working set, as it did before its window grew
# (a long prompt costs more and answers slower); the others clear at 100k, compact at 150k
# (the API's defaults).
MODEL_LIMITS = {
    "claude-haiku-5-5": Limits(window=1_000_000, clear_at=60_000, compact_at=90_000, keep_tool_uses=3),
    "claude-sonnet-5-5": Limits(window=1_000_000, clear_at=100_000, compact_at=150_000, keep_tool_uses=4),
}
DEFAULT_LIMITS = Limits(window=200_000, clear_at=100_000, compact_at=150_000, keep_tool_uses=3)


def limits_for(config: Any) -> Limits:
    """The model's thresholds with the user's settings on top; compaction always comes after
    clearing, no earlier than the API allows, and both stay inside the window, leaving room
    for the reply."""
    name = str(getattr(config, "model", "")).lower()
    model = claude_models.lookup(name)
    base = MODEL_LIMITS.get(name) or replace(DEFAULT_LIMITS, window=model.window)
    clear_at = getattr(config, "clear_at", None) or base.clear_at
    compact_at = getattr(config, "compact_at", None) or base.compact_at
    keep = getattr(config, "keep_tool_uses", None)
    ceiling = base.window - min(int(getattr(config, "max_tokens", 8000)), model.max_output) - 1000
    if model.compaction:
        compact_at = max(compact_at, claude_models.COMPACTION_MINIMUM)
    compact_at = max(2, min(compact_at, ceiling))
    clear_at = max(1, min(clear_at, compact_at - 1))
    return replace(base, clear_at=clear_at, compact_at=compact_at, keep_tool_uses=base.keep_tool_uses if keep is None else keep)


def management(limits: Limits, *, thinking: bool, compaction: bool = True) -> dict[str, Any]:
    """The request's `context_management` parameter; compaction only on the models that
    have it (agent.settings.claude_models)."""
    edits: list[dict[str, Any]] = []
    if thinking:
        # The API wants this one first; the latest turn keeps its thinking, which a tool loop needs.
        edits.append({"type": "clear_thinking_20251015", "keep": {"type": "thinking_turns", "value": 1}})
    edits.append(
        {
            "type": "clear_tool_uses_20250919",
            "trigger": {"type": "input_tokens", "value": limits.clear_at},
            "keep": {"type": "tool_uses", "value": limits.keep_tool_uses},
            # What the model chose to remember is what clearing must not take away.
            "exclude_tools": [MEMORY_TOOL],
        }
    )
    if compaction:
        edits.append({"type": "compact_20260112", "trigger": {"type": "input_tokens", "value": limits.compact_at}})
    return {"edits": edits}


def save_notice(limits: Limits, used: int) -> str:
    """Told once, before the user's words, when the context nears `clear_at`: the memory
    tool guidance's warning, within this project's memory rules."""
    return (
        f"(devagent: this conversation is at about {used:,} tokens of context. Past {limits.clear_at:,}, "
        "the results of older tool calls will be cleared from it. If something you learned from them "
        "will matter later in this session or in the next one, save it to memory now, as your memory "
        "rules say: preferences, project facts and conventions, decisions and plans. Never save tool "
        "state such as build or test results, errors, changed files or counts; a tool can tell them "
        "again. Then answer the message below.)"
    )


@dataclass(frozen=True)
class Fullness:
    """The context of the latest request: tokens the model read of its window, and what the
    API cleared from it."""

    used: int
    window: int
    cleared_tool_uses: int = 0
    cleared_thinking_turns: int = 0
    cleared_tokens: int = 0

    def describe(self) -> str:
        """'context 48k of 1M (12 tool results cleared)'."""
        line = f"context {_short(self.used)} of {_short(self.window)}"
        if self.cleared_tool_uses:
            noun = "result" if self.cleared_tool_uses == 1 else "results"
            line += f" ({self.cleared_tool_uses} tool {noun} cleared)"
        return line


def fullness(limits: Limits, usage: dict[str, Any], applied: list[Any] | None) -> Fullness:
    """From one call's raw usage counts and `context_management.applied_edits` (the SDK's
    edit responses, or dicts of the same fields)."""
    used = sum(int(usage.get(k) or 0) for k in ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens"))

    def total(name: str) -> int:
        return sum(int((e.get(name) if isinstance(e, dict) else getattr(e, name, 0)) or 0) for e in applied or [])

    return Fullness(used, limits.window, total("cleared_tool_uses"), total("cleared_thinking_turns"), total("cleared_input_tokens"))


def refuses_betas(status: int | None, message: str) -> bool:
    """Whether a 400 says the model or the account does not take context management."""
    if status != 400:
        return False
    lowered = message.lower()
    if "prompt is too long" in lowered:
        return False
    return any(word in lowered for word in ("context_management", "compaction", "anthropic-beta", "beta header", "betas"))


def _short(n: int) -> str:
    if n >= 1_000_000:
        return f"{n / 1_000_000:.3g}M"
    if n >= 1000:
        return f"{n / 1000:.0f}k" if n >= 10_000 else f"{n / 1000:.1f}k"
    return str(n)


class Keeper:
    """One session's side of context management: what each request carries, how full the
    last one was, the save-to-memory notice, and the fallback when the API refuses."""

    def __init__(self, config: Any, *, memory_tool: bool) -> None:
        self.limits = limits_for(config)
        self.model = str(getattr(config, "model", ""))
        entry = claude_models.lookup(self.model)
        # A model devagent does not know gets no betas: the session summarises by itself.
        self.managed = bool(getattr(config, "context_management", True)) and entry.known
        self.thinking = claude_models.thinks(entry, str(getattr(config, "thinking", "adaptive")))
        self.compaction = entry.compaction
        self.memory_tool = memory_tool
        # Set when the API refused the betas (or the model is unknown): the session then
        # summarises by itself.
        self.refused = not entry.known and bool(getattr(config, "context_management", True))
        # Set when a reply stopped at the end of the window: the next turn starts from a summary.
        self.overflowed = False
        self.warned = False
        self.last: Fullness | None = None

    def request_extras(self) -> dict[str, Any]:
        """What a request adds to its parameters: the betas and `context_management`."""
        if not self.managed:
            return {}
        betas = list(BETAS) if self.compaction else [BETA_CONTEXT]
        return {"betas": betas, "context_management": management(self.limits, thinking=self.thinking, compaction=self.compaction)}

    def observe(self, usage: dict[str, Any], applied: list[Any] | None) -> Fullness:
        self.last = fullness(self.limits, usage, applied)
        return self.last

    def refuse(self, status: int | None, message: str) -> bool:
        """True (once) when `message` is the API refusing the betas; requests go without them."""
        if not self.managed or not refuses_betas(status, message):
            return False
        self.managed = False
        self.refused = True
        return True

    def refusal_notice(self) -> str:
        return (
            f"Claude's context management is not available for {self.model}, so devagent will summarise "
            f"the conversation itself once it passes {self.limits.compact_at:,} tokens."
        )

    def notice_due(self) -> str | None:
        """The save-to-memory notice, once a session, when the context nears clearing."""
        if self.warned or not self.managed or not self.memory_tool or self.last is None:
            return None
        if self.last.used < self.limits.warn_at:
            return None
        self.warned = True
        return save_notice(self.limits, self.last.used)

    def own_summary_due(self) -> bool:
        if self.overflowed:
            return True
        # Without the API's compaction (refused, or a model without it), devagent summarises.
        without = self.refused or not self.compaction
        return without and self.last is not None and self.last.used >= self.limits.compact_at


SUMMARY_TAKEN = "Understood; I go on from that summary."


def summary_request(messages: list[dict[str, Any]], ask: str, keep: int) -> list[dict[str, Any]]:
    """The messages of devagent's own summary request: the history as `cleared_copy` sends
    it, with `ask` as the last user words."""
    history = cleared_copy(messages, keep)
    block = {"type": "text", "text": ask}
    last = history[-1] if history else None
    if last is None or last["role"] == "assistant":
        return [*history, {"role": "user", "content": [block]}]
    content = last["content"] if isinstance(last["content"], list) else [{"type": "text", "text": last["content"]}]
    return [*history[:-1], {"role": "user", "content": [*content, block]}]


def fresh_start(lead: str, notes: str) -> list[dict[str, Any]]:
    """The history that devagent's own summary starts: the summary, and its receipt (a user
    message needs an answer before the next one)."""
    return [
        {"role": "user", "content": [{"type": "text", "text": f"{lead}\n\n{notes}"}]},
        {"role": "assistant", "content": [{"type": "text", "text": SUMMARY_TAKEN}]},
    ]


def cleared_copy(messages: list[dict[str, Any]], keep: int) -> list[dict[str, Any]]:
    """The history as the summary request sends it: thinking dropped (its signature binds it
    to the unedited history) and every tool result but the last `keep` replaced, as the API's
    clearing would, so the request fits in the window."""
    results = [
        (i, j)
        for i, message in enumerate(messages)
        if isinstance(message.get("content"), list)
        for j, block in enumerate(message["content"])
        if isinstance(block, dict) and block.get("type") == "tool_result"
    ]
    old = set(results[: max(0, len(results) - keep)])
    copied = []
    for i, message in enumerate(messages):
        content = message.get("content")
        if not isinstance(content, list):
            copied.append(message)
            continue
        blocks = []
        for j, block in enumerate(content):
            if isinstance(block, dict) and block.get("type") in ("thinking", "redacted_thinking"):
                continue
            if (i, j) in old:
                block = {**block, "content": "(cleared)"}
            blocks.append(block)
        copied.append({**message, "content": blocks or [{"type": "text", "text": "(thinking)"}]})
    return copied
