"""What changed in memory since the model last saw it, told at the start of its next turn.

The preloaded block sits in the system prompt, which is the cached prefix of every request:
rewriting it when a memory changes would make each turn after an edit pay for the whole
prompt again. So the block stays as the session began, and a user message carries a short
note of the difference instead: a memory deleted (by the pane, an editor, another session),
one edited (with its text as it is now) or one added. What the model's own memory tool
calls changed is not told back to it: it made those changes itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agent import memory_context
from agent.tools.masking import mask_text

# A note is for a few files changed by hand; a whole folder replaced is named, not quoted.
MAX_QUOTED_CHARS = 20_000

Seen = dict[str, str | None]  # virtual path -> the text the model was given (None: only named)


def seen(store: Any, mode: str) -> Seen | None:
    """What a session in `mode` is given of memory as it starts; None when nothing is."""
    if store is None or mode not in ("preloaded", "index"):
        return None
    if mode == "index":
        return memory_context.index_files(store)
    return memory_context.preloaded_files(store)


@dataclass
class MemoryWatch:
    """The memory the model knows of, kept up to date by the notes it is sent."""

    store: Any
    mode: str
    known: Seen | None

    def note(self) -> str | None:
        """The note for the next user message, or None when nothing changed; after it the
        model is taken to know memory as it is now."""
        if self.known is None:
            return None
        try:
            current = seen(self.store, self.mode)
        except Exception:  # an unreadable folder: the memory tool says so when it is used
            return None
        if current is None:
            return None
        text = describe(self.known, current)
        self.known = current
        if not text:
            return None
        try:
            return mask_text(text, "line")[0]
        except Exception:
            return "Memory changed since you last saw it (details withheld: the secret filter is unavailable)."

    def learn(self, messages: list[dict[str, Any]]) -> None:
        """Takes the paths the model's own memory tool calls in `messages` touched as known."""
        if self.known is None:
            return
        touched = _touched(messages)
        if not touched:
            return
        try:
            current = seen(self.store, self.mode) or {}
        except Exception:
            return
        for path in touched:
            if path in current:
                self.known[path] = current[path]
            else:
                self.known.pop(path, None)


def _touched(messages: list[dict[str, Any]]) -> set[str]:
    paths: set[str] = set()
    for message in messages:
        content = message.get("content")
        if message.get("role") != "assistant" or not isinstance(content, list):
            continue
        for block in content:
            if not isinstance(block, dict) or block.get("type") != "tool_use" or block.get("name") != "memory":
                continue
            given = block.get("input")
            if not isinstance(given, dict):
                continue
            for key in ("path", "old_path", "new_path"):
                value = given.get(key)
                if isinstance(value, str):
                    paths.add(value.rstrip("/"))
    return paths


def describe(before: Seen, after: Seen) -> str:
    """The difference as one note: deleted, edited (as it is now), added; "" when none."""
    deleted = sorted(set(before) - set(after))
    added = sorted(set(after) - set(before))
    edited = sorted(p for p in set(before) & set(after) if before[p] != after[p])
    if not (deleted or added or edited):
        return ""
    lines = [
        "Memory changed since you last saw it (the user or another program changed it). "
        "Memory is now as follows, whatever the preloaded memory above or earlier in this "
        "conversation says:"
    ]
    quoted = 0
    for path in deleted:
        lines.append(f"- {path} was deleted: it is no longer in memory; do not rely on what it said.")
    for label, group in (("was edited; it now reads", edited), ("is new", added)):
        for path in group:
            body = after[path]
            if body is None or quoted + len(body) > MAX_QUOTED_CHARS:
                lines.append(f"- {path} {label.split(';')[0]}; view it with the memory tool when it matters.")
                continue
            quoted += len(body)
            lines.append(f"- {path} {label}:\n{memory_context.bare_element(path, body)}")
    return "\n".join(lines)
