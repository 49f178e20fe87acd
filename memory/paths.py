"""Virtual `/memories/...` paths to real paths inside one folder, or a refusal.

Every path comes from the model. It is refused by its parts before anything on disk
interprets it, then resolved and checked for containment with a trailing separator (a
plain prefix check lets `/base/memories-evil` pass for `/base/memories`). Where the SDK
refuses a path, the refusal text is the SDK's.
"""

from __future__ import annotations

import os
import unicodedata

from memory.errors import CommandError
from memory.quoting import quoted, shown_name

ROOT = "/memories"
# A memory is a note, not a file system: these bounds keep every walk of the folder short
# (one path 1,000 folders deep once made every later open of the store fail) and every
# name within what any file system accepts.
MAX_DEPTH = 8  # names below /memories, the file's own included
MAX_NAME_BYTES = 255
MAX_PATH_CHARS = 1024
# Characters that make one name look like another in the pane: bidirectional controls
# reorder what follows them ("note\u202egpj.md" shows as "notedm.jpg"), the others are
# invisible. Names are also stored in NFC, so "café" typed two ways is one file.
BIDI_CONTROLS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
INVISIBLE = frozenset("\u00ad\u180e\u200b\u2060\ufeff")


def outside_root(path: str, root: str = ROOT) -> str:
    return f"Path must start with {root}, got: {quoted(path)}"


def part_problem(part: str, *, hidden_ok: bool = False) -> str | None:
    """Why one part of a model-given path is refused, or None.

    Shared with read_file, which confines the model to the repository the same way; it
    passes `hidden_ok` because `.editorconfig` and `.github/` are project files, whereas
    the store keeps its lock and temp files under hidden names.
    """
    if part == "":
        return "empty path segments ('//') are not allowed"
    if part in (".", ".."):
        return f"'{part}' segments are not allowed"
    if part.startswith(".") and not hidden_ok:
        return "hidden names (starting with '.') are not allowed"
    if "\\" in part:
        return "backslashes are not allowed"
    if ":" in part:
        return "colons are not allowed"
    if "%" in part:
        return "'%' is not allowed (no percent-escapes)"
    if "\x00" in part:
        return "NUL characters are not allowed"
    if any(ord(c) < 32 or ord(c) == 127 for c in part):
        return "control characters are not allowed"
    return None


def split(path: str, root: str = ROOT) -> list[str]:
    """The parts of a virtual path below `root` ([] for the root itself), each in NFC, or
    CommandError. `root` is /memories, or /memories/user for the user-wide folder
    (memory/roots.py)."""
    return [unicodedata.normalize("NFC", part) for part in _split(path, root)]


def _split(path: str, root: str = ROOT) -> list[str]:
    if len(path) > MAX_PATH_CHARS:
        raise CommandError(
            f"The path {quoted(path)} is {len(path):,} characters long; a memory path may have "
            f"at most {MAX_PATH_CHARS:,}. Use a shorter name."
        )
    if not path.startswith(root):
        raise CommandError(outside_root(path, root))
    rest = path[len(root) :]
    if rest and not rest.startswith("/"):
        # The SDK maps /memoriesX/y.md to memories/X/y.md; we refuse it.
        raise CommandError(f"Path must be {root} or start with {root}/, got: {quoted(path)}")
    rest = rest[1:]
    if rest.endswith("/"):
        rest = rest[:-1]  # one trailing slash names a directory
    if not rest:
        return []
    parts = rest.split("/")
    for part in parts:
        problem = part_problem(part) or name_problem(unicodedata.normalize("NFC", part))
        if problem:
            raise CommandError(f"The path {quoted(path)} is not allowed: {problem}.")
    if len(parts) > MAX_DEPTH:
        raise CommandError(
            f"The path {quoted(path)} is {len(parts)} levels deep; a memory path may go at most "
            f"{MAX_DEPTH} levels below {root}, folders and file name together. Keep memories "
            f"in few folders, such as {root}/topic.md."
        )
    return parts


def name_problem(name: str) -> str | None:
    """Why a name is refused beyond part_problem's rules: its length, and characters
    that let it pass for another name."""
    if not _is_utf8(name):
        return f"the name {quoted(shown_name(name), 60)} is not UTF-8"
    size = len(name.encode("utf-8", "surrogatepass"))
    if size > MAX_NAME_BYTES:
        return f"the name {quoted(name, 60)} is {size:,} bytes; a name may have at most {MAX_NAME_BYTES}"
    found = next((c for c in name if c in BIDI_CONTROLS), None)
    if found:
        return (
            f"bidirectional control characters (here U+{ord(found):04X}) are not allowed: "
            f"they make a name show as another"
        )
    found = next((c for c in name if c in INVISIBLE), None)
    if found:
        return f"invisible characters (here U+{ord(found):04X}) are not allowed: they make a name look like another"
    return None


def _is_utf8(name: str) -> bool:
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def contained(root: str, real: str) -> bool:
    return real == root or real.startswith(root + os.sep)


def resolve(root: str, path: str, virtual: str = ROOT) -> str:
    """The real path for a virtual one below `virtual`. `root` must already be a realpath."""
    parts = split(path, virtual)
    if not parts:
        return root
    joined = os.path.join(root, *parts)
    if not os.path.lexists(joined):
        # A file named by hand in another form (NFD, as macOS tools write) stays reachable.
        as_given = os.path.join(root, *_split(path, virtual))
        if os.path.lexists(as_given):
            joined = as_given
    real = os.path.realpath(joined)
    if not contained(root, real):
        # realpath followed a symlink that leads out of the folder.
        raise CommandError(f"Path {quoted(path)} would escape {virtual} directory")
    return real


def to_virtual(root: str, real: str, virtual: str = ROOT) -> str:
    rel = shown_name(os.path.relpath(real, root))
    if rel == ".":
        return virtual
    return virtual + "/" + rel.replace(os.sep, "/")
