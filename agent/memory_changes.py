"""What changed in memory since the model last saw it, found at the start of its next turn.

Preloaded memory (or the index) sits in the system prompt. When the user (the pane, an
editor) or another program changed memory since, the session rebuilds that block for the
next request, so what the user deleted or rewrote is never sent again: one cache write
from that block on, after which requests read it from the cache as before. A short note in
the user message says which files changed, without quoting them (the rebuilt block holds
them as they are now). What the model's own memory tool calls changed is no reason to
rebuild: it made those changes itself and knows them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agent import memory_context
from agent.marks import escape_marks
from agent.tools.masking import mask_text
from memory.quoting import shown_name

# A note names a few files; a whole folder replaced is counted, not listed.
MAX_NAMED = 20

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

    def changes(self) -> Change | None:
        """What others changed since the model last saw memory, or None when nothing; after
        it the model is taken to know memory as it is now (the caller rebuilds its block)."""
        if self.known is None:
            return None
        try:
            current = seen(self.store, self.mode)
        except Exception:  # an unreadable folder: the memory tool says so when it is used
            return None
        if current is None:
            return None
        change = difference(self.known, current)
        self.known = current
        return change

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


@dataclass(frozen=True)
class Change:
    deleted: list[str]
    edited: list[str]
    added: list[str]

    def note(self) -> str:
        """The user message's note: which files changed, in one line each, masked."""
        lines = [
            "Memory changed since you last saw it (the user or another program changed it). The memory "
            "in the system prompt was rebuilt just now and is memory as it is now:"
        ]
        named = 0
        for label, group in (("deleted", self.deleted), ("edited", self.edited), ("new", self.added)):
            for path in group:
                named += 1
                if named <= MAX_NAMED:
                    lines.append(f"- {escape_marks(shown_name(path))}: {label}")
        if named > MAX_NAMED:
            lines.append(f"- and {named - MAX_NAMED:,} more")
        if self.deleted:
            lines.append(
                "What a deleted memory said is gone: do not rely on it, and do not write it again unless "
                "the user asks."
            )
        text = "\n".join(lines)
        try:
            return mask_text(text, "line")[0]
        except Exception:
            return "Memory changed since you last saw it; the memory in the system prompt is as it is now."


def difference(before: Seen, after: Seen) -> Change | None:
    """Deleted, edited, added; None when nothing changed."""
    deleted = sorted(set(before) - set(after))
    added = sorted(set(after) - set(before))
    edited = sorted(p for p in set(before) & set(after) if before[p] != after[p])
    if not (deleted or added or edited):
        return None
    return Change(deleted, edited, added)
