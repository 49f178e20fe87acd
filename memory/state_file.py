"""Reading the store's own JSON files (held changes, fingerprints), which a person, a
crash or a full disk may have broken.

A broken file is never taken for an empty one: the caller is told why, in a sentence that
names the file, and keeps it (set aside under a new name when it must write anew), so
nothing it held is lost without a word. Nesting is bounded before parsing: a file of
100,000 brackets made every reader end in RecursionError.
"""

from __future__ import annotations

import json
import os
import re
from datetime import UTC, datetime
from itertools import accumulate
from pathlib import Path
from typing import Any

from memory.files import read_regular

MAX_STATE_BYTES = 8 << 20
MAX_NESTING = 32  # ours nest three levels deep
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}


class BrokenState(Exception):
    """The file is there but cannot be used; str() says why, without naming the file."""


def nesting(text: str) -> int:
    """How deep the brackets of JSON text go, strings aside; linear, no recursion."""
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text))
    return max(accumulate(_STEP[c] for c in brackets), default=0)


def load_json(path: Path) -> Any | None:
    """The parsed file; None when there is no file; BrokenState when it cannot be used."""
    if not os.path.lexists(path):
        return None
    data = read_regular(str(path), limit=MAX_STATE_BYTES)
    if data is None:
        raise BrokenState(f"not a readable regular file of at most {MAX_STATE_BYTES >> 20} MB")
    if not data.strip():
        raise BrokenState("empty (a write cut short, perhaps by a full disk)")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise BrokenState("not UTF-8 text") from None
    depth = nesting(text)
    if depth > MAX_NESTING:
        raise BrokenState(f"nested {depth:,} levels deep; at most {MAX_NESTING} are read")
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as error:
        raise BrokenState(f"not valid JSON ({str(error)[:80]})") from None


def set_aside(path: Path) -> Path:
    """Renames a broken file out of the way, never over another; returns its new path."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    base = f"{path.name}.broken-{stamp}"
    name = base if base.startswith(".") else "." + base
    target = path.with_name(name)
    count = 1
    while os.path.lexists(target):
        count += 1
        target = path.with_name(f"{name}-{count}")
    os.rename(path, target)
    return target
