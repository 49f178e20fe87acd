"""Walking the memory folder without recursion, without following links, to a bounded depth.

Every reader of the folder (the listing, the caps, preloading) walks it through here, so
a folder made deeper than the path check allows (by hand, or by an older version that had
no depth cap) costs one short walk and a note, never an exception.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from memory.paths import MAX_DEPTH, ROOT, name_problem, part_problem, to_virtual


@dataclass(frozen=True)
class Skipped:
    """Something in the folder that is not read as a memory, and why."""

    path: str  # virtual, e.g. "/memories/a/b/"
    reason: str


@dataclass
class Walk:
    files: list[str]  # real paths of the regular, visible files
    skipped: list[Skipped]


def walk(root: str, virtual: str = ROOT) -> Walk:
    """The visible regular files below `root`, folders at most MAX_DEPTH - 1 levels down;
    what is skipped is named by the path `root` answers to (`virtual`)."""
    found = Walk([], [])
    stack = [(root, 0)]
    while stack:
        directory, depth = stack.pop()
        try:
            entries = list(os.scandir(directory))
        except OSError:
            continue  # deleted meanwhile, or unreadable: nothing in it to list
        for entry in entries:
            if entry.name.startswith("."):
                continue
            # A name the memory tool could not address is named, not listed as a memory.
            problem = part_problem(entry.name) or name_problem(entry.name)
            if problem:
                found.skipped.append(Skipped(to_virtual(root, entry.path, virtual), f"{problem}; rename it to use it"))
                continue
            try:
                if entry.is_symlink():
                    found.skipped.append(Skipped(to_virtual(root, entry.path, virtual), _LINK))
                elif entry.is_dir(follow_symlinks=False):
                    if depth + 1 < MAX_DEPTH:
                        stack.append((entry.path, depth + 1))
                    else:
                        found.skipped.append(_too_deep(root, entry.path, virtual))
                elif entry.is_file(follow_symlinks=False):
                    found.files.append(entry.path)
                else:
                    found.skipped.append(Skipped(to_virtual(root, entry.path, virtual), _SPECIAL))
            except OSError:
                continue
    found.skipped.sort(key=lambda item: item.path)
    return found


_LINK = (
    "it is a symbolic link, which the memory store does not follow (it could lead out of the "
    "folder); put the file itself there to use it"
)
_SPECIAL = "it is not a regular file or folder (a pipe, socket or device), so it is not read"


def _too_deep(root: str, real: str, virtual: str) -> Skipped:
    return Skipped(
        to_virtual(root, real, virtual) + "/",
        f"it is more than {MAX_DEPTH - 1} folders below /memories, so nothing in it is read; "
        f"delete it, or move its notes up, to use them",
    )

