"""(In the reader process) The repository's files as a tree in a store of devagent's own.

Every tracked file and every untracked file git does not ignore, as it is on disk (no
filter runs, built in or named by the repository), written as blobs and one tree into a
bare repository at `store` (outside the repository; nothing is written into its `.git`).
A file whose size, time and inode are what they were at the last snapshot is not read again.
Submodules and anything that is not a regular file or a link are left out.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

import pygit2
from pygit2.enums import DeltaStatus, FileMode

from memory.git.opening import Opened
from memory.git.worktree import unstaged_diff

MAX_FILE_BYTES = 64 * 1024 * 1024
_CACHE = "stat-cache.json"


def _store(store: Path) -> pygit2.Repository:
    if (store / "HEAD").exists():
        return pygit2.Repository(str(store), pygit2.enums.RepositoryOpenFlag.NO_SEARCH | pygit2.enums.RepositoryOpenFlag.BARE)
    return pygit2.init_repository(str(store), bare=True)


def _read(path: str) -> bytes | None:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        with os.fdopen(fd, "rb", closefd=False) as handle:
            return handle.read(MAX_FILE_BYTES + 1)
    finally:
        os.close(fd)


def snapshot(opened: Opened, store: Path) -> str:
    repo = opened.repo
    assert repo.workdir is not None
    root = repo.workdir
    names = {str(entry.path) for entry in repo.index
             if entry.mode != FileMode.COMMIT}
    names |= {os.fsdecode(d.new_file.raw_path) for d in unstaged_diff(opened, untracked=True).deltas
              if d.status == DeltaStatus.UNTRACKED}
    target = _store(store)
    cache_path = store / _CACHE
    try:
        cache: dict[str, Any] = json.loads(cache_path.read_text(encoding="utf-8", errors="surrogateescape"))
    except (OSError, ValueError):
        cache = {}
    fresh: dict[str, Any] = {}
    index = pygit2.Index()
    for name in sorted(names):
        path = os.path.join(root, name)
        try:
            info = os.lstat(path)
        except OSError:
            continue  # deleted from the working tree
        key = [info.st_mtime_ns, info.st_size, info.st_ino, info.st_mode]
        known = cache.get(name)
        if known and known[:4] == key and known[4] in target:
            oid = pygit2.Oid(hex=known[4])
        elif stat.S_ISLNK(info.st_mode):
            oid = target.create_blob(os.fsencode(os.readlink(path)))
        elif stat.S_ISREG(info.st_mode):
            data = _read(path)
            if data is None or len(data) > MAX_FILE_BYTES:
                continue
            oid = target.create_blob(data)
        else:
            continue
        if stat.S_ISLNK(info.st_mode):
            mode = FileMode.LINK
        else:
            mode = FileMode.BLOB_EXECUTABLE if info.st_mode & 0o111 else FileMode.BLOB
        index.add(pygit2.IndexEntry(name, oid, mode))
        fresh[name] = [*key, str(oid)]
    tree = index.write_tree(target)
    cache_path.write_text(json.dumps(fresh, ensure_ascii=False), encoding="utf-8", errors="surrogateescape")
    return str(tree)


def changed(store: Path, before: str, after: str) -> list[list[str]]:
    """[status letter, path] of each file that differs between two snapshot trees."""
    target = _store(store)
    old, new = target[before], target[after]
    assert isinstance(old, pygit2.Tree) and isinstance(new, pygit2.Tree)
    letters = {DeltaStatus.ADDED: "A", DeltaStatus.DELETED: "D", DeltaStatus.MODIFIED: "M", DeltaStatus.TYPECHANGE: "T"}
    return [[letters.get(d.status, "M"), os.fsdecode(d.new_file.raw_path if d.status != DeltaStatus.DELETED else d.old_file.raw_path)]
            for d in old.diff_to_tree(new).deltas]


def content(store: Path, tree: str, path: str) -> bytes | None:
    target = _store(store)
    try:
        found = target[tree].peel(pygit2.Tree)[path]
    except (KeyError, ValueError, TypeError):
        return None
    blob = target[found.id]
    return blob.data if isinstance(blob, pygit2.Blob) else None
