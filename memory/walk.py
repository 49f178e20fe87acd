"""Walking the memory folder without recursion, without following links, to a bounded depth.

Every reader of the folder (the listing, the caps, preloading) walks it through here, so
a folder made deeper than the path check allows (by hand, or by an older version that had
no depth cap) costs one short walk and a note, never an exception.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from memory.paths import MAX_DEPTH, to_virtual


@dataclass(frozen=True)
class Skipped:
    """Something in the folder that is not read as a memory, and why."""

    path: str  # virtual, e.g. "/memories/a/b/"
    reason: str


@dataclass
class Walk:
    files: list[str]  # real paths of the regular, visible files
    skipped: list[Skipped]


def walk(root: str) -> Walk:
    """The visible regular files below `root`, folders at most MAX_DEPTH - 1 levels down."""
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
            try:
                if entry.is_dir(follow_symlinks=False):
                    if depth + 1 < MAX_DEPTH:
                        stack.append((entry.path, depth + 1))
                    else:
                        found.skipped.append(_too_deep(root, entry.path))
                elif entry.is_file(follow_symlinks=False):
                    found.files.append(entry.path)
            except OSError:
                continue
    return found


def _too_deep(root: str, real: str) -> Skipped:
    return Skipped(
        to_virtual(root, real) + "/",
        f"it is more than {MAX_DEPTH - 1} folders below /memories, so nothing in it is read; "
        f"delete it, or move its notes up, to use them",
    )

