"""The agent's changes to the repository's files, one change set per reply.

A change set gathers every file the model's text editor calls of one reply change (a
second edit of the same file builds on the first), so the user sees them as one diff and
decides once. Applying checks every file against the text the change was made from: a
file that changed on disk meanwhile is a conflict, and nothing of the set is written.
Each write is atomic (memory.atomic, as memory writes are), and an applied set is kept in
a journal outside the repository (agent.code_journal) so that it can be undone, from the
app or from `devagent undo`.
"""

from __future__ import annotations

import difflib
import os
import stat
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from memory.atomic import write_file

ChangeState = Literal["held", "applied", "kept", "conflict", "undone", "cancelled"]
NEW_FILE_MODE = 0o644


@dataclass
class FileChange:
    path: str  # relative to the repository root, as the user reads it
    full: Path  # resolved, inside the root
    before: str | None  # the text the change was made from; None for a new file
    after: str
    mode: int | None = None  # the permission bits the file had, kept by the write

    def diff(self) -> str:
        old = [] if self.before is None else self.before.splitlines(keepends=True)
        new = self.after.splitlines(keepends=True)
        lines = difflib.unified_diff(old, new, "/dev/null" if self.before is None else f"a/{self.path}", f"b/{self.path}")
        return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)

    def counts(self) -> tuple[int, int]:
        added = removed = 0
        for line in self.diff().splitlines():
            if line.startswith("+") and not line.startswith("+++"):
                added += 1
            elif line.startswith("-") and not line.startswith("---"):
                removed += 1
        return added, removed


def on_disk(full: Path) -> str | None:
    """The file's text now; None when there is none. Raises OSError on what cannot be read."""
    try:
        fd = os.open(full, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except FileNotFoundError:
        return None
    with os.fdopen(fd, "rb") as handle:
        data = handle.read()
    return data.decode("utf-8", "surrogateescape")


def write_text(full: Path, text: str, mode: int | None) -> None:
    write_file(str(full), text.encode("utf-8", "surrogateescape"), mode=NEW_FILE_MODE if mode is None else mode)


def file_mode(full: Path) -> int | None:
    try:
        return stat.S_IMODE(full.stat().st_mode)
    except OSError:
        return None


@dataclass
class ChangeSet:
    id: str
    turn: int
    files: list[FileChange] = field(default_factory=list)
    state: ChangeState = "held"
    when: float = field(default_factory=time.time)
    # why it was not applied, or what undoing it said
    note: str = ""

    def __post_init__(self) -> None:
        self._decided = threading.Event()
        self._apply = False
        self.why = ""

    def file(self, full: Path) -> FileChange | None:
        return next((f for f in self.files if f.full == full), None)

    def diff(self) -> str:
        return "".join(f.diff() for f in self.files)

    def counts(self) -> tuple[int, int]:
        pairs = [f.counts() for f in self.files]
        return sum(a for a, _ in pairs), sum(r for _, r in pairs)

    def describe(self) -> str:
        """`src/app.py (+3 −1)`, or `2 files: a.py, b.py (+5 −2)`."""
        added, removed = self.counts()
        names = ", ".join(f.path + (" (new)" if f.before is None else "") for f in self.files)
        lead = f"{len(self.files)} files: " if len(self.files) > 1 else ""
        return f"{lead}{names} (+{added} −{removed})"

    # --- the user's decision, from another thread --------------------------------------

    def decide(self, apply: bool, why: str = "") -> bool:
        """False when it was decided already. `why`: what the model hears of a file kept as
        it is, when it was not the user's choice."""
        if self._decided.is_set():
            return False
        self._apply = apply
        self.why = why
        self._decided.set()
        return True

    @property
    def decided(self) -> bool:
        return self._decided.is_set()

    @property
    def undone(self) -> bool:
        return self.state == "undone"

    def wait(self, cancelled: Callable[[], bool], poll: float = 0.1) -> bool | None:
        """True to apply, False to keep the files; None when the turn was cancelled first."""
        while not self._decided.wait(poll):
            if cancelled():
                return None
        return self._apply

    # --- applying -------------------------------------------------------------------------

    def conflicts(self) -> list[str]:
        """The files whose text on disk is no longer what the change was made from."""
        return self._changed_on_disk(lambda change: change.before)

    def _changed_on_disk(self, expected: Callable[[FileChange], str | None]) -> list[str]:
        """The files whose text on disk (None: no file) is not `expected` of them."""
        changed = []
        for change in self.files:
            try:
                now = on_disk(change.full)
            except OSError:
                now = "\0unreadable"
            if now != expected(change):
                changed.append(change.path)
        return changed

    def apply(self) -> str:
        """Writes every file, or none when one changed on disk; a sentence either way."""
        changed = self.conflicts()
        if changed:
            self.state = "conflict"
            self.note = (
                f"Not applied: {', '.join(changed)} changed on disk since the change was made from it, so nothing "
                "was overwritten. View the file again and make the change anew."
            )
            return self.note
        for change in self.files:
            change.full.parent.mkdir(parents=True, exist_ok=True)
            write_text(change.full, change.after, change.mode)
        self.state = "applied"
        return f"Applied: {self.describe()}."

    def undo(self) -> str:
        """Puts every file back as it was, or none when one changed since; a sentence."""
        changed = self._changed_on_disk(lambda change: change.after)
        if changed:
            return (
                f"Not undone: {', '.join(changed)} changed since the change was applied; undoing it would lose "
                "that. Nothing was changed."
            )
        for change in self.files:
            if change.before is None:
                os.unlink(change.full)
            else:
                write_text(change.full, change.before, change.mode)
        self.state = "undone"
        return f"Undone: {self.describe()} is back as it was."
