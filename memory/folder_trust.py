"""Whether a memory folder can be trusted: ours alone, and readable.

What a memory folder holds goes into the model's prompt. A folder another local user
owns, or may write to, can hold notes they planted (one pre-created the folder of a
repository its victim had not opened yet, and the victim's next session preloaded the
note), so such a folder is neither read nor written, and the sentence says how to fix it.
A folder that cannot be read is said so, never taken for an empty one.

Every folder the store makes is owner-only (0700), whatever the umask.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from memory.private import make_private

__all__ = ["make_private", "problem"]


def _levels(folder: Path, top: Path | None) -> list[Path]:
    """The folder and its parents up to `top` (the data folder), top first."""
    levels = [folder]
    if top is not None and top in folder.parents:
        current = folder.parent
        while True:
            levels.append(current)
            if current == top:
                break
            current = current.parent
    return list(reversed(levels))


def problem(folder: Path, top: Path | None = None) -> str | None:
    """Why the memory folder is neither read nor written, or None. `top` is the data
    folder it lies in: each level from there down must be ours and not writable by others."""
    uid = os.geteuid() if hasattr(os, "geteuid") else None
    for level in _levels(Path(folder), top):
        try:
            info = os.stat(level)
        except (FileNotFoundError, NotADirectoryError):
            # Nothing below it exists yet: the store makes it, owner-only (or each command
            # says why it cannot).
            return None
        except OSError as error:
            return _unreadable(level, error.strerror or str(error))
        if uid is not None and info.st_uid != uid:
            return _untrusted(level, f"owned by another user (uid {info.st_uid})", f"sudo chown {uid} {level}")
        if info.st_mode & stat.S_IWOTH:
            return _untrusted(level, f"writable by every user (mode {stat.S_IMODE(info.st_mode):03o})", f"chmod 700 {level}")
    info = os.stat(folder)
    if not stat.S_ISDIR(info.st_mode):
        return f"The memory folder {folder} is not a folder, so memory is neither read nor written. Move it away."
    # By its mode bits too: the owner's permissions are what the user meant, even for root,
    # who can read a mode-000 folder anyway.
    if (info.st_mode & 0o500) != 0o500 or not os.access(folder, os.R_OK | os.X_OK):
        return _unreadable(folder, f"mode {stat.S_IMODE(info.st_mode):03o}")
    return None


def _untrusted(level: Path, what: str, fix: str) -> str:
    return (
        f"The memory folder {level} is {what}, so devagent neither reads nor writes memory there: "
        f"another user could have put notes in it for the model to follow. If it is yours, run "
        f"`{fix}` (and `chmod 700 {level}`); if not, delete it."
    )


def _unreadable(folder: Path, why: str) -> str:
    return (
        f"The memory folder {folder} cannot be read ({why}), so memory is neither read nor written "
        f"this session; it is not empty. Run `chmod 700 {folder}` to use it again."
    )
