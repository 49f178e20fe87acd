"""Reading one file of the memory folder: never through a link, never blocking on a pipe.

`read_text` is for the memory tool and the editor, and refuses what it cannot show
exactly (a link, a pipe, bytes that are not UTF-8) with a result sentence. `loose_text`
is for listings, which show what they can of any file.
"""

from __future__ import annotations

import errno
import os
import stat

from memory.errors import CommandError
from memory.quoting import quoted

_O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_O_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_O_BINARY = getattr(os, "O_BINARY", 0)
_READ_FLAGS = os.O_RDONLY | _O_NOFOLLOW | _O_NONBLOCK | _O_BINARY


class NotRegular(OSError):
    """The name is a pipe, socket or device: opened without blocking, never read."""


def open_regular(real: str, *, follow: bool = False) -> int:
    """A descriptor of the regular file at `real`, or OSError (NotRegular for a pipe, socket
    or device). Opened without blocking: opening a pipe with no writer otherwise waits for
    one forever, with the folder lock held, and a device such as /dev/zero never ends."""
    fd = os.open(real, _READ_FLAGS & ~_O_NOFOLLOW if follow else _READ_FLAGS)
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise NotRegular(errno.EINVAL, "not a regular file", real)
    return fd


def read_regular(real: str, *, follow: bool = False, limit: int | None = None) -> bytes | None:
    """The bytes of a regular file; None when it is anything else, missing, unreadable or
    (with `limit`) bigger than `limit` bytes."""
    try:
        fd = open_regular(real, follow=follow)
    except OSError:
        return None
    try:
        if limit is not None and os.fstat(fd).st_size > limit:
            return None
        return _read_all(fd)
    except OSError:
        return None
    finally:
        os.close(fd)


def _read_all(fd: int) -> bytes:
    chunks: list[bytes] = []
    while True:
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


def read_head(real: str, limit: int) -> tuple[bytes, float, bool]:
    """(up to `limit` bytes, mtime, whether that was the whole file); links are not followed."""
    fd = open_regular(real)
    try:
        info = os.fstat(fd)
        chunks: list[bytes] = []
        size = 0
        while size <= limit:
            chunk = os.read(fd, min(1 << 16, limit + 1 - size))
            if not chunk:
                return b"".join(chunks), info.st_mtime, True
            chunks.append(chunk)
            size += len(chunk)
        return b"".join(chunks), info.st_mtime, False
    finally:
        os.close(fd)


def read_bytes(real: str, path: str) -> bytes:
    """The whole file; CommandError when it vanished, is a link or is not a regular file."""
    try:
        fd = os.open(real, _READ_FLAGS)
    except FileNotFoundError:
        raise CommandError(
            f"The file {quoted(path)} no longer exists (may have been deleted or renamed concurrently)."
        ) from None
    except OSError as error:
        if error.errno in (errno.ELOOP, errno.EMLINK):  # O_NOFOLLOW met a symlink
            raise CommandError(f"path {quoted(path)!r} is a symlink") from None
        raise
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise CommandError(not_a_file(path))
        return _read_all(fd)
    finally:
        os.close(fd)


class NotText(CommandError):
    """The file's bytes are not UTF-8."""


def read_text(real: str, path: str) -> str:
    data = read_bytes(real, path)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise NotText(
            f"The file {quoted(path)} is not UTF-8 text, so it cannot be viewed or edited. "
            f"Delete it, or replace it with create."
        ) from None


def loose_text(real: str) -> str | None:
    """The text with undecodable bytes replaced; None when the file cannot be read or is
    not a regular file."""
    data = read_regular(real)
    return None if data is None else data.decode("utf-8", errors="replace")


def strict_text(real: str) -> str | None:
    """The text of a regular file that is UTF-8 and holds no NUL; None otherwise. What is
    parsed for meaning (citations) is read so: a binary file's bytes once yielded
    "citations" that went to the model."""
    data = read_regular(real)
    if data is None or b"\x00" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def not_a_file(path: str) -> str:
    return (
        f"The path {quoted(path)} is a pipe, socket or device, not a memory file, so it is not "
        f"read or written. Delete it (the delete command), then create the memory again."
    )


def is_special(real: str) -> bool:
    """Whether `real` is there and is neither a regular file, a folder nor a link."""
    try:
        mode = os.lstat(real).st_mode
    except OSError:
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode) or stat.S_ISLNK(mode))
