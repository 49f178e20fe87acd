"""What changed in memory since the model last saw it, found at the start of its next turn.

Preloaded memory (or the index) sits in the system prompt. When the user (the pane, an
editor) or another program changed memory since, the session rebuilds that block for the
next request, so what the user deleted or rewrote is never sent again: one cache write
from that block on, after which requests read it from the cache as before. A short note in
the user message says which files changed, without quoting them (the rebuilt block holds
them as they are now). A memory the user deleted also leaves the conversation: its text in
the model's earlier memory tool calls and their results is replaced, and so is the old
text of one they rewrote (agent.conversation.scrub; the saved transcript keeps the messages with a
record of the scrub). What the model's own memory tool calls changed is no reason to rebuild: it made
those changes itself and knows them.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from agent.conversation.scrub import changed_since, fingerprints, written_paths
from agent.conversation.transcripts import scrub
from agent.marks import escape_marks
from agent.recall import briefing
from agent.tools.masking import mask_text
from memory.quoting import shown_name

if TYPE_CHECKING:
    from agent.conversation.transcripts import SavedSession, Transcript
    from memory.seam import Store

log = logging.getLogger("devagent.memory_changes")

# A note names a few files; a whole folder replaced is counted, not listed.
MAX_NAMED = 20

Seen = dict[str, str | None]  # virtual path -> the text the model was given (None: only named)


def seen(store: Store | None, mode: str) -> Seen | None:
    """What a session in `mode` is given of memory as it starts; None when nothing is."""
    if store is None or mode not in ("preloaded", "index"):
        return None
    if mode == "index":
        return briefing.index_files(store)
    return briefing.preloaded_files(store)


MEMORY_TOOL_MODES = ("preloaded", "index", "on-demand")


def _on_disk(store: Store | None, mode: str) -> Seen | None:
    """Every memory file, for the modes whose model can read them with the memory tool."""
    if store is None or mode not in MEMORY_TOOL_MODES:
        return None
    return briefing.preloaded_files(store)


@dataclass
class MemoryWatch:
    """The memory the model knows of, kept up to date by the notes it is sent."""

    store: Store | None
    mode: str
    known: Seen | None  # what the system prompt gives of memory (seen), as the model knows it
    files: Seen | None = None  # every memory file, as the model may have read or written it
    # What the user changed while no session ran, told at a resumed session's first turn.
    meanwhile: Change | None = None
    saved: dict[str, str] | None = None  # the fingerprints of `files` the transcript has last

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
        rewritten: list[str] = []  # what the model may have read or written of, changed since
        try:
            files = _on_disk(self.store, self.mode)
        except Exception:  # an unreadable folder: the memory tool says so when it is used
            files = None
        if files is not None and self.files is not None:
            deleted = sorted(set(self.files) - set(files))
            rewritten = sorted(p for p in set(self.files) & set(files)
                               if None not in (self.files[p], files[p]) and self.files[p] != files[p])
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
        if shown is None and not deleted and not rewritten:
            return None
        if shown is None:
            return Change(deleted, rewritten, [], rebuild=False)
        return Change(sorted(set(shown.deleted) | set(deleted)), sorted(set(shown.edited) | set(rewritten)), shown.added)

    def resume(self, saved: SavedSession, transcript: Transcript | None, when: datetime) -> None:
        """Takes what the user deleted or rewrote since `saved` ended out of its messages
        (in place, and in its `transcript`), to be told at the first turn."""
        self.saved = saved.memory_known
        change = since_saved(saved.memory_known, [m.message for m in saved.messages], self.store, self.mode)
        if change is not None:
            scrub(saved.messages, change.deleted, change.edited)
            change.save_scrub(transcript, when)
            self.meanwhile = change

    def take_meanwhile(self) -> Change | None:
        change, self.meanwhile = self.meanwhile, None
        return change

    def save_known(self, transcript: Transcript | None, when: datetime) -> None:
        """Every memory as the model knows it, as fingerprints in `transcript`, when they
        changed since it was last told."""
        known = None if self.files is None else fingerprints(self.files)
        if transcript is None or known is None or known == self.saved:
            return
        try:
            transcript.add_memory_known(known, time=when)
            self.saved = known
        except Exception as err:
            log.warning("transcript %s: the memory the model knows was not saved: %s", transcript.path, err)

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

    def save_scrub(self, transcript: Transcript | None, when: datetime) -> None:
        """Records in `transcript` that the messages before now lose these memories' text."""
        if transcript is None or not (self.deleted or self.edited):
            return
        try:
            transcript.add_scrub(deleted=self.deleted, edited=self.edited, time=when)
        except Exception as err:
            log.warning("transcript %s: the memory taken out of the conversation was not saved: %s", transcript.path, err)

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
        if self.edited:
            lines.append("What an edited memory said before is gone from this conversation too: it says what it says now.")
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


def since_saved(
    known: dict[str, str] | None, messages: list[dict[str, Any]], store: Store | None, mode: str
) -> Change | None:
    """What changed in memory between the end of a saved conversation and its resumption,
    the user's doing while no session ran: the memories the model knew then (`known`, the
    transcript's fingerprints; for an older transcript without them, the memories its calls
    in `messages` read or wrote) that are gone or say something else now. None when nothing
    did, or when memory cannot be read (the memory tool says so when it is used)."""
    try:
        files = _on_disk(store, mode)
    except Exception:
        files = None
    if files is None:
        return None
    if known is not None:
        deleted, edited = changed_since(known, files)
    else:
        edited = []
        deleted = sorted(p for p in written_paths(messages)
                         if p not in files and not any(f.startswith(p + "/") for f in files))
    if not deleted and not edited:
        return None
    return Change(deleted, edited, [], rebuild=mode in ("preloaded", "index"))
