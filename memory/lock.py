"""The memory folder's cross-process lock, and what to say when it cannot be taken.

Every write holds the lock for its whole read-modify-write, so two sessions (or the app's
editor and the agent) cannot interleave. Reads take no lock: writes replace files whole.
A lock file that is a folder, a link or unreadable, or a read-only folder, stops writes
only; each gets a sentence naming the file or folder and what to do.
"""

from __future__ import annotations

import errno
import os
import stat
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from memory.errors import MemoryBusy, MemoryNotWritable
from memory.private import FILE_MODE, make_private

LOCK_NAME = ".lock"
_O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_O_BINARY = getattr(os, "O_BINARY", 0)
_NO_WRITE = (errno.EROFS, errno.EACCES, errno.EPERM)

BUSY = "The memory is busy: another session is writing to it. Try the command again in a moment."
_STILL_READS = "Nothing was written; reading memory still works."


class FolderLock:
    """flock on `<folder>/.lock`, polled up to a timeout.

    filelock's descriptor functions take the same OS lock its FileLock class does (flock on
    Unix, LockFileEx on Windows); the class adds about 0.3 ms of bookkeeping per command,
    more than a whole `view` costs.
    """

    def __init__(self, root: str, timeout: float, on_first_hold: Callable[[], None]) -> None:
        self.root = root
        self.path = os.path.join(root, LOCK_NAME)
        self.timeout = timeout
        self._on_first_hold = on_first_hold
        self._held_once = False
        self._depth = threading.local()

    @contextmanager
    def held(self, timeout: float | None = None) -> Iterator[None]:
        """Holds the lock; MemoryBusy after the wait, MemoryNotWritable when it cannot be had."""
        from filelock import unlock_descriptor

        if getattr(self._depth, "count", 0):
            # Already held by this thread (accepting a reviewed change runs a write inside
            # the lock): flock taken again through a second descriptor would wait for itself.
            self._depth.count += 1
            try:
                yield
            finally:
                self._depth.count -= 1
            return
        fd = self._acquire(self.timeout if timeout is None else timeout)
        self._depth.count = 1
        try:
            if not self._held_once:
                self._held_once = True
                self._on_first_hold()
            yield
        finally:
            self._depth.count = 0
            try:
                unlock_descriptor(fd)
            finally:
                os.close(fd)

    def _acquire(self, wait: float) -> int:
        from filelock import lock_descriptor, unlock_descriptor

        deadline = time.monotonic() + wait
        while True:
            fd = self._open()
            if fd >= 0:
                if lock_descriptor(fd, blocking=False):
                    if self._is_current(fd):
                        return fd
                    unlock_descriptor(fd)
                os.close(fd)
            if time.monotonic() >= deadline:
                raise MemoryBusy(BUSY)
            # A command holds the lock for about a millisecond; poll at that scale.
            time.sleep(0.001)

    def _open(self) -> int:
        """The lock file's descriptor; -1 when the folder vanished between the two steps."""
        try:
            # The folder may have been deleted to make the agent forget: start an empty store.
            make_private(self.root)
            return os.open(self.path, os.O_RDWR | os.O_CREAT | _O_NOFOLLOW | _O_BINARY, FILE_MODE)
        except FileNotFoundError:
            return -1
        except OSError as error:
            raise MemoryNotWritable(self.problem(error)) from None

    def _is_current(self, fd: int) -> bool:
        """False when the lock file we locked was unlinked meanwhile (the folder deleted
        and made again): another session may hold the new file's lock."""
        try:
            return os.path.samestat(os.fstat(fd), os.stat(self.path, follow_symlinks=False))
        except OSError:
            return False

    def problem(self, error: OSError) -> str:
        """Why the lock file could not be opened, and what the user can do about it."""
        reason = error.strerror or str(error)
        try:
            info = os.lstat(self.path)
        except OSError:
            info = None
        if info is not None and stat.S_ISLNK(info.st_mode):
            what = f"is a symbolic link, which the store does not follow. Delete the link ({self.path}) and try again."
        elif info is not None and stat.S_ISDIR(info.st_mode):
            what = f"is a folder, not a file. Remove that folder ({self.path}) and try again."
        elif error.errno == errno.EROFS or (info is None and is_no_write(error)):
            return read_only(self.root, error)
        elif info is None:
            return f"The memory cannot be changed: {self.path} cannot be made ({reason}). {_STILL_READS}"
        elif error.errno in (errno.EACCES, errno.EPERM):
            what = (
                f"cannot be opened ({reason}). Make it readable and writable by you "
                f"(chmod 600 {self.path}) or delete it, and try again."
            )
        else:
            what = f"cannot be opened ({reason}). Delete it ({self.path}) and try again."
        return f"The memory cannot be changed: its lock file {self.path} {what} {_STILL_READS}"


def read_only(root: str, error: OSError) -> str:
    reason = error.strerror or str(error)
    return (
        f"The memory cannot be changed: the memory folder {root} is read-only ({reason}). "
        f"Make it writable by you again and try the command again. {_STILL_READS}"
    )


def is_no_write(error: OSError) -> bool:
    """True for the errors of a folder or file the user may not write."""
    return error.errno in _NO_WRITE
