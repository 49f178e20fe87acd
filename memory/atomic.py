"""Durable replacement of a file: a crash leaves the old text or the new, never half.

The new text goes to a hidden temp file beside the target (same directory, so the rename
cannot cross file systems), is fsynced, renamed over the target, and then the directory
is fsynced so the rename itself survives a power cut.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable

from memory.private import FILE_MODE, make_private

TEMP_PREFIX = ".tmp-"
# Ours are .tmp-<pid>-<hex>; the SDK's are .tmp-<pid>-<uuid>. Both kinds are swept.
_TEMP_NAME = re.compile(r"^\.tmp-\d+-[0-9a-f\-]+$")
_O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_O_BINARY = getattr(os, "O_BINARY", 0)
# fdatasync flushes the data and the size (what a reader needs) without the timestamps;
# it is a full fsync's guarantee for a fresh temp file at about three quarters of the cost.
_datasync = getattr(os, "fdatasync", os.fsync)


def fsync_dir(directory: str) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return  # Windows cannot open a directory; its rename is already durable enough
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def temp_name() -> str:
    return f"{TEMP_PREFIX}{os.getpid()}-{os.urandom(8).hex()}"


def write_file(target: str, data: bytes, mode: int = FILE_MODE, temp: str | None = None,
               before_rename: Callable[[], None] | None = None) -> None:
    """`mode`: the file's permission bits; a source file keeps its own, a memory is owner-only.
    `temp`: the temporary file's name (a journal that named it beforehand can remove it after
    a crash); `before_rename` runs once it is durable, before it replaces the target."""
    directory = os.path.dirname(target)
    temp = os.path.join(directory, temp or temp_name())
    fd = os.open(temp, os.O_CREAT | os.O_EXCL | os.O_WRONLY | _O_NOFOLLOW | _O_BINARY, FILE_MODE)
    try:
        try:
            if mode != FILE_MODE and hasattr(os, "fchmod"):
                os.fchmod(fd, mode)  # exactly these bits: os.open's mode passes through the umask
            view = memoryview(data)
            while view:
                written = os.write(fd, view)
                view = view[written:]
            _datasync(fd)
        finally:
            os.close(fd)
        if before_rename is not None:
            before_rename()
        os.replace(temp, target)
    except BaseException:
        try:
            os.unlink(temp)
        except OSError:
            pass
        raise
    fsync_dir(directory)


def is_temp_name(name: str) -> bool:
    return bool(_TEMP_NAME.match(name))


def remove_orphans(root: str) -> list[str]:
    """Deletes temp files left by writers that died mid-write, at any depth.

    Only safe while holding the store's lock: every write happens under it, so no temp
    file seen then can belong to a write still in flight. A loop, not os.walk, which
    recurses once a level and fails on a folder about 1,000 levels deep.
    """
    removed: list[str] = []
    stack = [root]
    while stack:
        directory = stack.pop()
        try:
            entries = list(os.scandir(directory))
        except OSError:
            continue
        for entry in entries:
            try:
                if entry.is_dir(follow_symlinks=False):
                    if not entry.name.startswith("."):
                        stack.append(entry.path)
                elif is_temp_name(entry.name):
                    os.unlink(entry.path)
                    removed.append(entry.path)
            except OSError:
                continue
    return removed


_DIR_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | _O_NOFOLLOW


def remove_tree(path: str) -> None:
    """shutil.rmtree without recursion, for a folder of any depth.

    Like rmtree's safe variant, it holds one descriptor a level and opens each folder
    relative to its parent without following links, so a folder swapped for a link
    meanwhile cannot lead the removal out of the tree.
    """
    stack = [(os.open(path, _DIR_FLAGS), "")]
    try:
        while stack:
            fd, _name = stack[-1]
            child = _unlink_files_find_folder(fd)
            if child is not None:
                stack.append((os.open(child, _DIR_FLAGS, dir_fd=fd), child))
                continue
            stack.pop()
            os.close(fd)
            if stack:
                os.rmdir(_name, dir_fd=stack[-1][0])
    finally:
        for fd, _ in stack:
            os.close(fd)
    os.rmdir(path)


def _unlink_files_find_folder(fd: int) -> str | None:
    """Unlinks every non-folder in the open folder; the name of one sub-folder, if any."""
    with os.scandir(fd) as entries:
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                return entry.name
            os.unlink(entry.name, dir_fd=fd)
    return None


def make_dirs(root: str, directory: str) -> None:
    """Creates `directory` and its missing parents below (and including) `root`, owner-only."""
    make_private(directory, top=root)
