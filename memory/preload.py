"""What of the folder goes into the prompt at the start of a session, within the caps.

Preloading sends every file on every turn, so it is bounded by the same caps as writes:
a file over the one-file cap, a file past the total, and a file that is not text are
left out and named with their size, for the memory tool to read when a question needs
it. A file put there by hand, 200k characters long, cannot make every request 200k.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from memory.files import read_head
from memory.notes import INDEX_NAME
from memory.paths import ROOT, to_virtual
from memory.walk import Walk

# Files up to this size are read to count their characters; a bigger one is named by its
# bytes, without reading it.
COUNT_LIMIT = 1 << 20


@dataclass(frozen=True)
class Loaded:
    path: str  # virtual
    text: str
    modified: float  # mtime, epoch seconds


@dataclass(frozen=True)
class LeftOut:
    path: str  # virtual
    kind: str  # "too big" | "past the total" | "binary" | "skipped"
    size: int | None  # characters ("binary": bytes; None when unknown)
    reason: str  # what it is and why it is not in the prompt, e.g. "203,000 characters, over ..."


@dataclass
class Preload:
    files: list[Loaded] = field(default_factory=list)
    left_out: list[LeftOut] = field(default_factory=list)

    @property
    def chars(self) -> int:
        return sum(len(f.text) for f in self.files)


def preload(root: str, found: Walk, max_file_chars: int, max_total_chars: int, virtual: str = ROOT) -> Preload:
    """The index first, then every file by path, until the total cap; the rest named.
    `virtual` is the path the folder answers to (/memories, or /memories/user)."""
    index = os.path.join(root, INDEX_NAME)
    ordered = sorted(found.files, key=lambda f: (f != index, to_virtual(root, f)))
    result = Preload(left_out=[LeftOut(s.path, "skipped", None, f"skipped: {s.reason}") for s in found.skipped])
    total = 0
    for real in ordered:
        path = to_virtual(root, real, virtual)
        try:
            data, modified, complete = read_head(real, max(max_file_chars * 4 + 4, COUNT_LIMIT))
        except OSError:
            continue  # deleted while listing
        over_one = f"over the {max_file_chars:,}-character limit for one file"
        if not complete:
            size = _size(real)
            result.left_out.append(LeftOut(path, "too big", size, f"{size or 0:,} bytes, {over_one}"))
            continue
        text = _text(data)
        if text is None:
            reason = f"{len(data):,} bytes, binary or not UTF-8 text, so not shown"
            result.left_out.append(LeftOut(path, "binary", len(data), reason))
        elif len(text) > max_file_chars:
            result.left_out.append(LeftOut(path, "too big", len(text), f"{len(text):,} characters, {over_one}"))
        elif total + len(text) > max_total_chars:
            reason = f"{len(text):,} characters, past the {max_total_chars:,}-character limit for all memory"
            result.left_out.append(LeftOut(path, "past the total", len(text), reason))
        else:
            total += len(text)
            result.files.append(Loaded(path, text, modified))
    return result


def _text(data: bytes) -> str | None:
    if b"\x00" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _size(real: str) -> int | None:
    try:
        return os.stat(real).st_size
    except OSError:
        return None

