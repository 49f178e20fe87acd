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


def read_head(real: str, limit: int) -> tuple[bytes, float, bool]:
    """(up to `limit` bytes, mtime, whether that was the whole file); links are not followed."""
    fd = os.open(real, _READ_FLAGS)
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
            raise CommandError(f"path {quoted(path)!r} is not a regular file")
        chunks = []
        while True:
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                break
            chunks.append(chunk)
        return b"".join(chunks)
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
    """The text with undecodable bytes replaced; None when the file cannot be read."""
    try:
        with open(real, "rb") as handle:
            return handle.read().decode("utf-8", errors="replace")
    except OSError:
        return None
