"""Which files of the repository a command changed, and what each held before: for undo and rewind.

Before and after a command, every tracked file and every untracked file git does not ignore
is written as a git tree into a store of devagent's own, outside the repository (beside the
editor's journal, under the data folder): a bare repository of its own, so nothing is
written into the repository's `.git`, and a file unchanged since the last snapshot is not
read again (its stat is kept beside). The two trees' difference is the set of changed files;
each file's content before the command stays in the store's objects.

The snapshot is made by memory.git's reader (libgit2), which starts no program the
repository's config names: no clean filter runs, so a file is stored as it is on disk.

What the rewind reads::

    for record in command_changes(repo):            # oldest first, every session's
        record.command, record.turn, record.session  # what ran, in which turn of which session
        for changed in record.files:                 # ChangedFile(path, status)
            before = record.before_content(changed.path)   # bytes, or None: it did not exist
            after = record.after_content(changed.path)     # as the command left it
"""

from __future__ import annotations

import base64
import json
import logging
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

log = logging.getLogger("devagent.command_changes")
GIT_TIMEOUT = 120.0
STATUS = {"A": "added", "M": "modified", "D": "deleted", "T": "modified"}


def store_dir(repo: Path) -> Path:
    from memory.location import data_dir, repository_key

    return data_dir() / "commands" / repository_key(repo)


class SnapshotFailed(Exception):
    """The working tree could not be snapshot (not a git repository, git failed)."""


def _read(repo: Path, store: Path, **request: Any) -> Any:
    from memory.git.reading import GitUnreadable, ask

    try:
        return ask(repo, {"op": "snapshot", "store": os.fsdecode(store), **request}, timeout=GIT_TIMEOUT)
    except GitUnreadable as error:
        raise SnapshotFailed(str(error)) from error


def snapshot(repo: Path) -> str:
    """The repository's files as they are now, as a tree id in the store."""
    from filelock import FileLock

    from memory.private import make_private

    store = store_dir(repo)
    make_private(store)
    with FileLock(str(store / "lock"), timeout=GIT_TIMEOUT):
        return str(_read(repo, store / "trees", what="tree")["tree"])


@dataclass(frozen=True)
class ChangedFile:
    path: str  # relative to the repository, with forward slashes
    status: str  # added, modified, deleted


@dataclass(frozen=True)
class CommandChanges:
    """One command's changes to the repository."""

    id: str
    repo: Path
    command: str
    turn: int
    session: str
    when: float
    before: str  # tree ids in the store
    after: str
    files: tuple[ChangedFile, ...] = field(default=())

    def before_content(self, path: str) -> bytes | None:
        return _content(self.repo, self.before, path)

    def after_content(self, path: str) -> bytes | None:
        return _content(self.repo, self.after, path)

    def as_json(self) -> dict[str, Any]:
        return {"id": self.id, "command": self.command, "turn": self.turn, "session": self.session, "when": self.when,
                "before": self.before, "after": self.after,
                "files": [{"path": f.path, "status": f.status} for f in self.files]}


def _content(repo: Path, tree: str, path: str) -> bytes | None:
    try:
        found = _read(repo, store_dir(repo) / "trees", what="content", tree=tree, path=path)["content"]
    except SnapshotFailed:
        return None
    return None if found is None else base64.b64decode(found)


def changed(repo: Path, before: str, after: str) -> tuple[ChangedFile, ...]:
    if before == after:
        return ()
    found = _read(repo, store_dir(repo) / "trees", what="changed", before=before, after=after)["changed"]
    return tuple(ChangedFile(path, STATUS.get(status, "modified")) for status, path in found)


def record(repo: Path, command: str, before: str, after: str, *, turn: int = 0, session: str = "") -> CommandChanges:
    """Keeps the changes of one command run (written even when it changed nothing: the
    rewind then knows the command ran and changed nothing)."""
    from memory.atomic import write_file

    found = CommandChanges(f"{time.strftime('%Y%m%d%H%M%S')}-{os.getpid()}-{os.urandom(3).hex()}", repo, command,
                           turn, session, time.time(), before, after, changed(repo, before, after))
    write_file(str(store_dir(repo) / f"{found.id}.json"),
               json.dumps(found.as_json(), ensure_ascii=False).encode("utf-8", "surrogateescape"), 0o600)
    return found


def command_changes(repo: Path, session: str | None = None) -> list[CommandChanges]:
    """Every command's changes kept for `repo` (only `session`'s when named), oldest first."""
    out = []
    folder = store_dir(repo)
    try:
        names = sorted(p for p in os.listdir(folder) if p.endswith(".json"))
    except OSError:
        return []
    for name in names:
        try:
            data = json.loads((folder / name).read_text(encoding="utf-8", errors="surrogateescape"))
            found = CommandChanges(str(data["id"]), repo, str(data["command"]), int(data["turn"]), str(data["session"]),
                                   float(data["when"]), str(data["before"]), str(data["after"]),
                                   tuple(ChangedFile(str(f["path"]), str(f["status"])) for f in data["files"]))
        except (OSError, ValueError, KeyError, TypeError) as error:
            log.warning("command changes %s unreadable: %s", name, error)
            continue
        if session is None or found.session == session:
            out.append(found)
    return sorted(out, key=lambda r: r.when)
