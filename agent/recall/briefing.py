"""What a session is told about its memory as it starts: the files or the index, each
memory's age, and the evidence behind it.

Preloading gives every file with its age (since it was written or last verified); aging
memories come after the fresh ones, marked, so an old claim reads as old. Both preloading
and the index mode add one evidence line per memory that cites code, changed or gone
citations first (memory/evidence.py), so the model knows which claims to check before it
repeats them.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent.marks import escape_marks, marked
from memory.freshness import DEFAULT_AGING_DAYS, Freshness, freshness
from memory.notes import INDEX_NAME
from memory.preload import LeftOut
from memory.quoting import shown_name
from memory.secrets import mask_secrets

if TYPE_CHECKING:
    from memory.seam import Store

EMPTY = (
    "Your memory directory /memories is empty: nothing has been saved for this "
    "repository yet. No need to view it."
)
# When the block was read: as the session started, or when the user last changed memory.
STARTED = "as this session started"
REBUILT = "as it was after the user's latest change to it"
# ... and when its evidence was checked against the working tree.
CHECKED = {STARTED: "as this session started", REBUILT: "when this memory was rebuilt"}
EVIDENCE_HEADER = (
    "Evidence, checked against the working tree {since}: the code each memory "
    "cites is intact, moved (the same text at other lines now), changed (the text is no longer "
    "there) or gone (the file is gone). Before you repeat a memory with a changed or gone "
    "citation, check it with a tool, then fix or delete the memory."
)


@dataclass
class MemoryFile:
    path: str  # virtual
    text: str
    modified: float
    age: Freshness | None  # None for an index


def _files(store: Store, now: float, aging_days: int) -> tuple[list[MemoryFile], list[LeftOut]]:
    """What each root preloads within its caps: indexes first, then fresh memories, then
    aging ones; and what the caps left out (memory.preload.LeftOut)."""
    indexes: list[MemoryFile] = []
    fresh: list[MemoryFile] = []
    aging: list[MemoryFile] = []
    left_out: list[LeftOut] = []
    for root in store.roots():
        loaded = root.preload()
        left_out += loaded.left_out
        index = f"{root.ROOT}/{INDEX_NAME}"
        for item in loaded.files:
            if item.path == index:
                indexes.append(MemoryFile(item.path, item.text, item.modified, None))
                continue
            age = freshness(item.text, item.modified, now, aging_days)
            (aging if age.aging else fresh).append(MemoryFile(item.path, item.text, item.modified, age))
    for group in (indexes, fresh, aging):
        group.sort(key=lambda f: f.path)
    return indexes + fresh + aging, left_out


def preloaded_files(store: Store) -> dict[str, str | None]:
    """What preloading gives of each file: its text, or None for one only named as left out."""
    files, left_out = _files(store, time.time(), DEFAULT_AGING_DAYS)
    given: dict[str, str | None] = {f.path: f.text for f in files}
    given.update((item.path, None) for item in left_out)
    return given


def index_files(store: Store) -> dict[str, str | None]:
    """What the index mode gives: each folder's MEMORY.md, when it has one."""
    given: dict[str, str | None] = {}
    for root in store.roots():
        text = root.index_text().strip()
        if text:
            given[f"{root.ROOT}/{INDEX_NAME}"] = text
    return given


def age_text(seconds: float) -> str:
    """How old a memory is, in the unit a reader would use."""
    seconds = max(0.0, seconds)
    for limit, unit, size in (
        (3600, "minute", 60),
        (86400, "hour", 3600),
        (14 * 86400, "day", 86400),
        (60 * 86400, "week", 7 * 86400),
        (730 * 86400, "month", 30 * 86400),
        (float("inf"), "year", 365 * 86400),
    ):
        if seconds < limit:
            count = int(seconds // size)
            if unit == "minute" and count == 0:
                return "just now"
            return f"{count} {unit}" + ("" if count == 1 else "s")
    return "unknown"  # pragma: no cover


MAX_NAMED = 20  # left-out files named in the prompt


def day_of(stamp: float) -> str:
    """The local date of a time in epoch seconds, as 2026-11-27."""
    return datetime.fromtimestamp(stamp).date().isoformat()


def _confirmed_day(age: Freshness) -> str:
    """The date a memory was last known true: its verified date, else the day it was written."""
    return age.verified.isoformat() if age.verified is not None and age.confirmed > age.written else day_of(age.written)


def left_out_note(left_out: list[LeftOut]) -> str:
    """The lines that tell the model what is in the folder but not in its prompt."""
    lines = ["Not preloaded (read one with the memory tool's view command when a question needs it):"]
    lines += [escape_marks(f"- {shown_name(item.path)}: {shown_name(item.reason)}") for item in left_out[:MAX_NAMED]]
    if len(left_out) > MAX_NAMED:
        lines.append(f"- and {len(left_out) - MAX_NAMED:,} more")
    return "\n".join(lines) + "\n"


def memory_snapshot(loaded: Any, now: float, aging_days: int = DEFAULT_AGING_DAYS) -> str:
    """One folder's preload (memory.preload.Preload) as prompt text, in its own order: each
    file with its age, then what the caps left out. Empty when there is no memory."""
    files = [
        MemoryFile(item.path, item.text, item.modified,
                   None if item.path.endswith("/" + INDEX_NAME) else freshness(item.text, item.modified, now, aging_days))
        for item in loaded.files
    ]
    text = "".join(_element(f, now) for f in files)
    return text + (left_out_note(loaded.left_out) if loaded.left_out else "")


def _escape(value: str) -> str:
    value = shown_name(value)  # one line: a name holding a newline must not start lines of its own
    for raw, escaped in (("&", "&amp;"), ('"', "&quot;"), ("<", "&lt;"), (">", "&gt;")):
        value = value.replace(raw, escaped)
    return escape_marks(value)  # a lookalike bracket is not "<" to replace()


def _element(file: MemoryFile, now: float) -> str:
    # A memory must not be able to close its own element, or open another, and speak as the
    # prompt: its text is escaped, and its marks carry an id it cannot know (agent.marks).
    # The dates beside the age: "2 days" read on Monday of a memory saved on Friday afternoon
    # was once taken for Saturday; a date cannot be.
    attributes = f'path="{_escape(file.path)}"'
    if file.age is not None:
        attributes += f' age="{age_text(file.age.age_seconds(now))}" written="{day_of(file.modified)}"'
        if file.age.verified is not None:
            attributes += f' verified="{file.age.verified.isoformat()}"'
        if file.age.aging:
            attributes += ' aging="true"'
    else:
        attributes += f' age="{age_text(now - file.modified)}" written="{day_of(file.modified)}"'
    return marked("memory", file.text.rstrip(), attributes) + "\n"


def evidence_lines(store: Store, repo: Path | None, since: str = STARTED) -> str:
    """One line per memory that cites code, the ones with changed or gone citations first."""
    from memory.evidence import CHANGED, GONE, summary

    try:
        checks = store.evidence(repo)
    except Exception:  # a repository that cannot be read must not stop the session
        return ""
    rows = [(path, found) for path, found in checks.items() if found]
    if not rows:
        return ""
    rows.sort(key=lambda row: (not any(c.state in (CHANGED, GONE) for c in row[1]), row[0]))
    lines = [EVIDENCE_HEADER.format(since=CHECKED.get(since, since))] + [f"- {path}: {summary(found)}" for path, found in rows]
    return escape_marks(mask_secrets("\n".join(lines))[0])


def _aging_note(aging_days: int) -> str:
    return (
        f' A memory marked aging="true" was neither written nor verified for {aging_days} days or more; '
        "those come last. When a tool confirms a memory, set its verified: date."
    )


def preloaded(
    store: Store, repo: Path | None, *, now: float | None = None, aging_days: int = DEFAULT_AGING_DAYS, since: str = STARTED
) -> str:
    now = time.time() if now is None else now
    files, left_out = _files(store, now, aging_days)
    if not files and not left_out:
        return EMPTY
    header = (
        f"Your memory directory {since}: every file, with the date it was written, and its age since it was written "
        "or last verified. It is already loaded, so there is no need to view it before answering; "
        "use the memory tool to change it."
    )
    if any(f.age is not None and f.age.aging for f in files):
        header += _aging_note(aging_days)
    snapshot = "".join(_element(f, now) for f in files)
    if left_out:
        snapshot += left_out_note(left_out)
    parts = [header, snapshot]
    evidence = evidence_lines(store, repo, since)
    if evidence:
        parts.append(evidence)
    return "\n\n".join(parts)


def index(
    store: Store, repo: Path | None, *, now: float | None = None, aging_days: int = DEFAULT_AGING_DAYS, since: str = STARTED
) -> str:
    """The index mode: MEMORY.md of each root, the aging memories, the evidence lines."""
    now = time.time() if now is None else now
    elements = []
    for root in store.roots():
        text = root.index_text().strip()
        if text:
            elements.append(marked("memory", text, f'path="{_escape(root.ROOT)}/{INDEX_NAME}"'))
    if elements:
        parts = [
            f"Your memory index, /memories/MEMORY.md, {since}. Read a memory file "
            "with the memory tool when it is relevant to the question.",
            "\n\n".join(elements),
        ]
    else:
        parts = [
            "Your memory index /memories/MEMORY.md is empty or missing. Memory files, if any, "
            "can still be listed with the memory tool's view command."
        ]
    aging = [(f.path, f.age) for f in _files(store, now, aging_days)[0] if f.age is not None and f.age.aging]
    if aging:
        listed = escape_marks(", ".join(f"{shown_name(path)} ({age_text(age.age_seconds(now))}, since {_confirmed_day(age)})"
                                        for path, age in aging))
        parts.append(
            f"Aging, neither written nor verified for {aging_days} days or more: {listed}. "
            "Check one before relying on it; when a tool confirms it, set its verified: date."
        )
    evidence = evidence_lines(store, repo, since)
    if evidence:
        parts.append(evidence)
    return "\n\n".join(parts)
