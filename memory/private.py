"""The folders devagent makes for itself: owner-only (0700), whatever the umask.

What devagent keeps (memories, held changes, transcripts, the journal of code changes,
logs) says which repositories the user works on and what was said about them. os.makedirs
and Path.mkdir(parents=True) give their mode to the last folder only, and the umask takes
bits off it anyway: the parents followed the umask, 0755 under umask 022 and 0777 (anyone
may plant a note) under umask 000. Every folder is made here, one level at a time, and its
mode set on the folder itself afterwards, not through a name that could have been swapped
for a link in between. A folder that already exists is left as the user has it.

Files that hold user data are opened with FILE_MODE (os.open's mode can only lose bits to
the umask, never gain any).
"""

from __future__ import annotations

import os

FOLDER_MODE = 0o700
FILE_MODE = 0o600
_O_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


def make_private(path: str | os.PathLike[str], top: str | os.PathLike[str] | None = None) -> None:
    """Makes `path` and its missing parents, each 0700; with `top`, nothing above `top`.

    Raises NotADirectoryError when one of the levels is a file, and OSError when a level
    cannot be made (or was swapped for something else before its mode was set).
    """
    target = os.path.abspath(os.fspath(path))
    stop = os.path.abspath(os.fspath(top)) if top is not None else None
    missing: list[str] = []
    current = target
    while not os.path.isdir(current):
        missing.append(current)
        parent = os.path.dirname(current)
        if parent == current or current == stop:
            break
        current = parent
    for folder in reversed(missing):
        try:
            os.mkdir(folder, FOLDER_MODE)
        except FileExistsError:
            if not os.path.isdir(folder):
                raise NotADirectoryError(20, "Not a directory", folder) from None
            continue  # made meanwhile by another process: its mode is that process's
        _set_mode(folder)


def _set_mode(folder: str) -> None:
    if not hasattr(os, "fchmod"):  # pragma: no cover - Windows has no owner-only mode bits
        return
    fd = os.open(folder, os.O_RDONLY | _O_DIRECTORY | _O_NOFOLLOW)
    try:
        os.fchmod(fd, FOLDER_MODE)  # exactly 0700: a umask such as 0700 takes the owner's bits too
    finally:
        os.close(fd)

