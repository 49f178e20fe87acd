"""What changed in memory since the model last saw it, found at the start of its next turn.

Preloaded memory (or the index) sits in the system prompt. When the user (the pane, an
editor) or another program changed memory since, the session rebuilds that block for the
next request, so what the user deleted or rewrote is never sent again: one cache write
from that block on, after which requests read it from the cache as before. A short note in
the user message says which files changed, without quoting them (the rebuilt block holds
them as they are now). A memory the user deleted also leaves the conversation: its text in
the model's earlier memory tool calls and their results is replaced (the saved transcript
keeps them). What the model's own memory tool calls changed is no reason to rebuild: it made
those changes itself and knows them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from agent import memory_context
from agent.marks import escape_marks
from agent.tools.masking import mask_text
from memory.quoting import shown_name

if TYPE_CHECKING:
    from memory.seam import Store

# A note names a few files; a whole folder replaced is counted, not listed.
MAX_NAMED = 20

Seen = dict[str, str | None]  # virtual path -> the text the model was given (None: only named)


def seen(store: Store | None, mode: str) -> Seen | None:
    """What a session in `mode` is given of memory as it starts; None when nothing is."""
    if store is None or mode not in ("preloaded", "index"):
        return None
    if mode == "index":
        return memory_context.index_files(store)
    return memory_context.preloaded_files(store)


MEMORY_TOOL_MODES = ("preloaded", "index", "on-demand")


def _on_disk(store: Store | None, mode: str) -> Seen | None:
    """Every memory file, for the modes whose model can read them with the memory tool."""
    if store is None or mode not in MEMORY_TOOL_MODES:
        return None
    return memory_context.preloaded_files(store)


@dataclass
class MemoryWatch:
    """The memory the model knows of, kept up to date by the notes it is sent."""

    store: Store | None
    mode: str
    known: Seen | None  # what the system prompt gives of memory (seen), as the model knows it
    files: Seen | None = None  # every memory file, as the model may have read or written it

    def __post_init__(self) -> None:
        if self.files is None:
            try:
                self.files = _on_disk(self.store, self.mode)
            except Exception:
                self.files = None

    def changes(self) -> Change | None:
        """What others changed since the model last saw memory, or None when nothing; after
        it the model is taken to know memory as it is now (the caller rebuilds its block
        when `Change.rebuild`)."""
        deleted: list[str] = []
        try:
            files = _on_disk(self.store, self.mode)
        except Exception:  # an unreadable folder: the memory tool says so when it is used
            files = None
        if files is not None and self.files is not None:
            deleted = sorted(set(self.files) - set(files))
        if files is not None:
            self.files = files
        shown = None
        if self.known is not None:
            try:
                current = seen(self.store, self.mode)
            except Exception:
                current = None
            if current is not None:
                shown = difference(self.known, current)
                self.known = current
        if shown is None and not deleted:
            return None
        if shown is None:
            return Change(deleted, [], [], rebuild=False)
        return Change(sorted(set(shown.deleted) | set(deleted)), shown.edited, shown.added)

    def learn(self, messages: list[dict[str, Any]]) -> None:
        """Takes the paths the model's own memory tool calls in `messages` touched as known."""
        touched = _touched(messages)
        if not touched:
            return
        for mine, read in ((self.known, seen), (self.files, _on_disk)):
            if mine is None:
                continue
            try:
                current = read(self.store, self.mode) or {}
            except Exception:
                continue
            for path in touched:
                if path in current:
                    mine[path] = current[path]
                else:
                    mine.pop(path, None)


# What stands in a past memory tool call for the text of a memory the user deleted since.
GONE = "(a memory the user deleted since: its text is not sent again)"
_TEXT_FIELDS = ("file_text", "old_str", "new_str", "insert_text")


def _about(given: dict[str, Any], deleted: set[str]) -> bool:
    """A memory call that reads or writes the text of one of `deleted` (not its delete or rename)."""
    path = given.get("path")
    return isinstance(path, str) and path.rstrip("/") in deleted and given.get("command") not in ("delete", "rename")


def scrubbed(messages: list[dict[str, Any]], deleted: set[str]) -> list[dict[str, Any]]:
    """`messages` without the text of the `deleted` memories: in the model's memory tool calls
    on them (what it wrote) and in their results (what it read), so that a memory the user
    deleted is not sent again with the conversation. Other messages are the same objects."""
    calls: set[str] = set()
    out: list[dict[str, Any]] = []
    for message in messages:
        content = message.get("content")
        if not isinstance(content, list):
            out.append(message)
            continue
        blocks: list[Any] = []
        changed = False
        for block in content:
            given = block.get("input") if isinstance(block, dict) and block.get("type") == "tool_use" else None
            if isinstance(given, dict) and block.get("name") == "memory" and _about(given, deleted):
                calls.add(str(block.get("id")))
                fields = {k: GONE for k in _TEXT_FIELDS if isinstance(given.get(k), str) and given.get(k) != GONE}
                if fields:
                    block = {**block, "input": {**given, **fields}}
                    changed = True
            elif (isinstance(block, dict) and block.get("type") == "tool_result"
                  and str(block.get("tool_use_id")) in calls and block.get("content") != GONE):
                block = {**block, "content": GONE}
                changed = True
            blocks.append(block)
        out.append({**message, "content": blocks} if changed else message)
    return out


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
    rebuild: bool = True  # what the system prompt gives of memory changed

    def note(self) -> str:
        """The user message's note: which files changed, in one line each, masked."""
        lead = "Memory changed since you last saw it (the user or another program changed it)"
        if self.rebuild:
            lead += ". The memory in the system prompt was rebuilt just now and is memory as it is now"
        lines = [lead + ":"]
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
                "What a deleted memory said is gone, from memory and from this conversation: do not rely on "
                "it, and do not write it again unless the user asks."
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
