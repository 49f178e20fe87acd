"""Which files of the repository a command changed, and what each held before: for undo and rewind.

Before and after a command, every tracked file and every untracked file git does not ignore
is written as a git tree into a store of devagent's own, outside the repository (beside the
editor's journal, under the data folder): its own object folder and its own index, so
nothing is written into the repository's `.git` and a file unchanged since the last snapshot
is not read again (git's index keeps its stat). The two trees' difference is the set of
changed files; each file's content before the command stays in the store's objects.

git runs here with the repository's config unable to start a program (memory.safe_git): a
clean filter the repository names is emptied, so the file is stored as it is on disk.

What the rewind reads::

    for record in command_changes(repo):            # oldest first, every session's
        record.command, record.turn, record.session  # what ran, in which turn of which session
        for changed in record.files:                 # ChangedFile(path, status)
            before = record.before_content(changed.path)   # bytes, or None: it did not exist
            after = record.after_content(changed.path)     # as the command left it
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
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


def _git(repo: Path, store: Path, *args: str) -> bytes:
    from agent.tools.toolchain.user_environment import user_environment
    from memory import safe_git

    env = safe_git.environment(user_environment())
    env.update({"GIT_INDEX_FILE": str(store / "index"), "GIT_OBJECT_DIRECTORY": str(store / "objects")})
    env.pop("GIT_ALTERNATE_OBJECT_DIRECTORIES", None)
    try:
        done = subprocess.run(safe_git.git_command(repo, *args), cwd=repo, env=env, stdin=subprocess.DEVNULL,
                              capture_output=True, timeout=GIT_TIMEOUT)
    except (OSError, subprocess.SubprocessError) as error:
        raise SnapshotFailed(f"git could not run ({error})") from error
    if done.returncode != 0:
        said = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise SnapshotFailed(said[-1] if said else f"git exit code {done.returncode}")
    return done.stdout


def snapshot(repo: Path) -> str:
    """The repository's files as they are now, as a tree id in the store."""
    from filelock import FileLock

    from memory.private import make_private

    store = store_dir(repo)
    make_private(store)
    with FileLock(str(store / "lock"), timeout=GIT_TIMEOUT):
        for folder in ("info", "pack"):
            os.makedirs(store / "objects" / folder, mode=0o700, exist_ok=True)
        _git(repo, store, "add", "-A", "--ignore-errors", "--", ".")
        return _git(repo, store, "write-tree").decode().strip()


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
    store = store_dir(repo)
    try:
        return _git(repo, store, "cat-file", "blob", f"{tree}:{path}")
    except SnapshotFailed:
        return None


def changed(repo: Path, before: str, after: str) -> tuple[ChangedFile, ...]:
    if before == after:
        return ()
    raw = _git(repo, store_dir(repo), "diff-tree", "-r", "-z", "--no-renames", "--name-status", before, after)
    parts = raw.decode("utf-8", "surrogateescape").split("\0")
    return tuple(ChangedFile(path, STATUS.get(status[:1], "modified"))
                 for status, path in zip(parts[0::2], parts[1::2]) if path)


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
