"""Cross-process locks on the repository files the agent writes, one lock a file.

Two sessions editing one file each checked it and then wrote it; the second write lost
the first. A write (and an undo, and finishing an interrupted write) holds the locks of
every file it touches from its check to its last rename, so the check under the lock is
the truth. The lock files live in devagent's data folder, named by a hash of the file's
resolved path, never beside the files: a repository is not littered, and a repository
cannot plant or break a lock. flock: the kernel drops a dead process's locks, so a crash
never leaves a file locked.
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from memory.private import FILE_MODE, make_private

WAIT_SECONDS = 30.0
_O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


class FilesBusy(Exception):
    """Another process holds the lock of `path` (the repository-relative name, for the user)."""

    def __init__(self, path: str) -> None:
        super().__init__(path)
        self.path = path


def locks_dir() -> Path:
    from memory.location import data_dir

    return data_dir() / "file-locks"


def lock_name(full: Path) -> str:
    # a path through a session's root descriptor is named as the folder is now, as another
    # session names the same file
    from agent.tools.editor.confined_files import real_path

    return hashlib.sha256(str(real_path(full)).encode("utf-8", "surrogateescape")).hexdigest()[:32] + ".lock"


@contextmanager
def held(files: Sequence[tuple[str, Path]], wait: float = WAIT_SECONDS) -> Iterator[None]:
    """Holds the lock of every (shown name, resolved path); FilesBusy after `wait` seconds
    on one of them. Taken in one order (by lock name) so two writers of overlapping sets
    cannot each wait for the other; a file named twice is locked once (flock through a
    second descriptor would wait for this process itself)."""
    from filelock import unlock_descriptor

    by_name = {lock_name(full): shown for shown, full in files}
    folder = locks_dir()
    make_private(folder)
    deadline = time.monotonic() + wait
    fds: list[int] = []
    try:
        for name in sorted(by_name):
            fds.append(_acquire(str(folder / name), by_name[name], deadline))
        yield
    finally:
        for fd in reversed(fds):
            try:
                unlock_descriptor(fd)
            finally:
                os.close(fd)


def _acquire(path: str, shown: str, deadline: float) -> int:
    from filelock import lock_descriptor

    fd = os.open(path, os.O_RDWR | os.O_CREAT | _O_NOFOLLOW, FILE_MODE)
    pause = 0.001
    while not lock_descriptor(fd, blocking=False):
        if time.monotonic() >= deadline:
            os.close(fd)
            raise FilesBusy(shown)
        time.sleep(pause)  # a write holds it for milliseconds; a large set for seconds
        pause = min(pause * 2, 0.05)
    return fd
