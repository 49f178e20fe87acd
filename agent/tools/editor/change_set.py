"""The agent's changes to the repository's files, one change set per reply.

A change set gathers every file the model's text editor calls of one reply change (a
second edit of the same file builds on the first), so the user sees them as one diff and
decides once. Applying checks every file against the text the change was made from: a
file that changed on disk meanwhile is a conflict, and nothing of the set is written.
Each write is atomic and confined at the moment it happens (agent.tools.editor.confined_files:
from the repository root down, no link followed, the temporary file made and renamed in
the target's folder), so a folder swapped for a link after the check cannot send it out;
it keeps the mode, owner and extended attributes the file has when it is written, which
the user may have changed since the change was made. An applied set is kept in a journal
outside the repository (agent.tools.editor.journal) so that it can be undone, from the app or from
`devagent undo`. A file is read only as a regular file and never past the editor's size
limit, so a pipe or a device swapped in is a conflict at once, never a wait.

Nothing is lost between two sessions or to a crash: an apply or an undo holds every file's
lock (agent.tools.editor.file_locks) from its check to its last write, so another session's write in
between is a conflict, never overwritten; and the whole set, with the text each file had,
is journalled before the first file is written, so a process killed halfway is finished or
rolled back at the next start (agent.tools.editor.journal.recover).
"""

from __future__ import annotations

import difflib
import os
import stat
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Literal, Protocol

from agent.tools.editor.confined_files import (
    LinkRefused,
    NotRegular,
    TooLarge,
    anchored,
    descriptor_of,
    read_file,
    remove_file,
    replace_file,
)
from agent.tools.editor.file_locks import FilesBusy, held
from agent.tools.names import given_name
from memory.atomic import temp_name

# the editor's own cap (agent.tools.paths.MAX_FILE_BYTES): no file it may write is larger
MAX_READ_BYTES = 10_000_000

ChangeState = Literal["held", "applied", "kept", "conflict", "undone", "cancelled"]
NEW_FILE_MODE = 0o644


@dataclass
class FileChange:
    path: str  # relative to the repository root, as the user reads it (agent.tools.names.shown_name)
    full: Path  # resolved, inside the root
    before: str | None  # the text the change was made from; None for a new file
    after: str
    mode: int | None = None  # the permission bits a new file gets (a file there keeps its own)
    root: Path | None = None  # the repository root, resolved: where every access starts from

    @property
    def name(self) -> str:
        """The path relative to the root as the file system spells it, not as it is shown."""
        return given_name(self.path)

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


def start(full: Path, root: Path | None) -> Path:
    """Where an access to `full` starts: its repository's root, else the session's root
    descriptor it names (confined_files.anchored), else the file system's (a resolved path
    has no link, so a link met on the way down was swapped in since)."""
    if root is not None:
        return root
    return descriptor_of(full) if anchored(full) else Path(full.anchor)


def on_disk(full: Path, root: Path | None = None, single_name: bool = False) -> str | None:
    """The file's text now; None when there is none. Raises OSError on what cannot be read:
    a link on the way, something that is not a regular file, a file past MAX_READ_BYTES,
    and with `single_name` a hard link (confined_files.HardLinked)."""
    data = read_file(start(full, root), full, MAX_READ_BYTES, single_name)
    return None if data is None else data.decode("utf-8", "surrogateescape")


@dataclass(frozen=True)
class Write:
    """One file's step of an apply or an undo: from `base` to `new` (None: no file)."""

    path: str
    full: Path
    base: str | None
    new: str | None
    mode: int | None
    temp: str = field(default_factory=temp_name)  # named before it exists, so a journal can hold it
    root: Path | None = None


class WriteAhead(Protocol):
    """The journal of one apply or undo: `begin` makes the writes durable on record before
    the first file is touched (raising OSError when it cannot), `done` after the last."""

    def begin(self, writes: list[Write]) -> None: ...
    def done(self) -> None: ...
    def drop(self) -> None: ...


class NotJournalled(OSError):
    """The journal could not be written, so no file was."""


GATE_ENV = "DEVAGENT_APPLY_GATE"


def _gate(index: int) -> None:
    """Where a crash test stops a write: with GATE_ENV naming a folder that holds a FIFO
    named `index`, the write of the set's file `index` waits, its temporary file made, until
    the test opens the FIFO (or kills the process there)."""
    folder = os.environ.get(GATE_ENV)
    if folder:
        try:
            with open(os.path.join(folder, str(index)), "rb") as gate:
                gate.read()
        except FileNotFoundError:
            pass


def put(write: Write, text: str | None, gate: Callable[[], None] | None = None) -> None:
    """`write`'s file made `text` (None: removed), through its named temporary file."""
    root = start(write.full, write.root)
    try:
        if text is None:
            try:
                remove_file(root, write.full)
            except FileNotFoundError:
                pass
            return
        replace_file(root, write.full, text.encode("utf-8", "surrogateescape"),
                     NEW_FILE_MODE if write.mode is None else write.mode, write.temp, gate)
    except OSError as err:
        if isinstance(err, FileNotFoundError) or err.filename == write.path:
            raise
        # named as the user reads it; the reason (a link on the way, not a file) kept
        raise OSError(err.errno, err.strerror, write.path) from err


def write_all(writes: list[Write], ahead: WriteAhead | None) -> None:
    """Every write, journalled first. On an error, what was written is put back before it
    is raised; if that fails too, the journal stays for the next start to settle."""
    if ahead is not None:
        try:
            ahead.begin(writes)
        except OSError as err:
            raise NotJournalled(err.errno, err.strerror or str(err), err.filename) from err
    written: list[Write] = []
    try:
        for index, write in enumerate(writes):
            put(write, write.new, partial(_gate, index))
            written.append(write)
    except BaseException:
        if _put_back(written) and ahead is not None:
            ahead.drop()
        raise
    if ahead is not None:
        ahead.done()


def _put_back(written: list[Write]) -> bool:
    try:
        for write in reversed(written):
            put(write, write.base)
    except OSError:
        return False
    return True


def file_mode(full: Path) -> int | None:
    try:
        return stat.S_IMODE(full.stat().st_mode)
    except OSError:
        return None


def _why_unreadable(err: OSError) -> str:
    """What stopped a file being read, as the user reads it after the file's name."""
    if isinstance(err, LinkRefused):
        return ("is now reached through a symbolic link (a folder on its way, or the file itself, was swapped for "
                "one), which devagent never writes through")
    if isinstance(err, NotRegular):
        return "is no longer a regular file (a pipe, a socket, a device or a folder is there now)"
    if isinstance(err, TooLarge):
        return f"is now larger than the {MAX_READ_BYTES / 1e6:.0f} MB a change may read"
    return f"cannot be read ({err.strerror or err})"


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
        self.unreadable: dict[str, str] = {}  # file -> why it could not be read, at the last check

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

    @property
    def undone(self) -> bool:
        return self.state == "undone"

    # --- applying -------------------------------------------------------------------------

    def conflicts(self) -> list[str]:
        """The files whose text on disk is no longer what the change was made from."""
        return self._changed_on_disk(lambda change: change.before)

    def _changed_on_disk(self, expected: Callable[[FileChange], str | None]) -> list[str]:
        """The files whose text on disk (None: no file) is not `expected` of them; why a file
        could not be read at all is kept in `unreadable`, to be said instead of "changed"."""
        changed = []
        self.unreadable = {}
        for change in self.files:
            try:
                now = on_disk(change.full, change.root)
            except OSError as err:
                now = "\0unreadable"
                self.unreadable[change.path] = _why_unreadable(err)
            if now != expected(change):
                changed.append(change.path)
        return changed

    def _unreadable_said(self) -> str:
        return "; ".join(f"{path} {why}" for path, why in self.unreadable.items())

    def locks(self) -> list[tuple[str, Path]]:
        return [(f.path, f.full) for f in self.files]

    def apply(self, ahead: WriteAhead | None = None) -> str:
        """Writes every file, or none when one changed on disk; a sentence either way.
        `ahead`: the journal to write the set to before any file."""
        try:
            with held(self.locks()):
                changed = self.conflicts()  # again under the locks: another session may have written
                if changed and len(self.unreadable) == len(changed):
                    self.state = "conflict"
                    self.note = f"Not applied: {self._unreadable_said()}, so nothing was written."
                    return self.note
                if changed:
                    self.state = "conflict"
                    self.note = (
                        f"Not applied: {', '.join(changed)} changed on disk since the change was made from it, so "
                        "nothing was overwritten. View the file again and make the change anew."
                    )
                    if self.unreadable:
                        self.note += f" ({self._unreadable_said()}.)"
                    return self.note
                write_all([Write(f.path, f.full, f.before, f.after, f.mode, root=f.root) for f in self.files], ahead)
        except FilesBusy as busy:
            self.state = "conflict"
            self.note = (f"Not applied: another devagent session is writing {busy.path}, so nothing was written. "
                         "View the file again once it is done and make the change anew.")
            return self.note
        except NotJournalled as err:
            self.state = "conflict"
            self.note = (f"Not applied: the change could not be journalled for undo ({err.strerror}: {err.filename}), "
                         "so no file was written.")
            return self.note
        except OSError as err:  # what was written before it is put back (write_all)
            self.state = "conflict"
            self.note = (f"Not applied: {err.filename or self.describe()} could not be written ({err.strerror or err}), "
                         "so nothing was changed.")
            return self.note
        self.state = "applied"
        return f"Applied: {self.describe()}."

    def undo(self, ahead: WriteAhead | None = None) -> str:
        """Puts every file back as it was, or none when one changed since; a sentence."""
        try:
            with held(self.locks()):
                changed = self._changed_on_disk(lambda change: change.after)
                if changed and len(self.unreadable) == len(changed):
                    return f"Not undone: {self._unreadable_said()}. Nothing was changed."
                if changed:
                    return (
                        f"Not undone: {', '.join(changed)} changed since the change was applied; undoing it would "
                        "lose that. Nothing was changed." + (f" ({self._unreadable_said()}.)" if self.unreadable else "")
                    )
                write_all([Write(f.path, f.full, f.after, f.before, f.mode, root=f.root) for f in self.files], ahead)
        except FilesBusy as busy:
            return f"Not undone: another devagent session is writing {busy.path}. Nothing was changed; try again in a moment."
        self.state = "undone"
        return f"Undone: {self.describe()} is back as it was."
