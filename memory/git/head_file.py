"""The commit checked out, read from the repository's own files: HEAD, the ref it names,
packed-refs; through a `.git` file to a worktree's folder and its common folder.

What each turn's record keeps (the next session's welcome back starts its log there) must
not cost a reader process under the session's lock after every reply, and reading three
small files starts no program at all. Anything this does not know (a reftable, a HEAD that
is not a commit id or a ref) is None, and the caller goes by the time instead.
"""

from __future__ import annotations

import re
from pathlib import Path

_SHA = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
_REF = re.compile(r"refs/[\w./-]+")
_MAX = 1 << 16  # a HEAD or a ref is a line; packed-refs may be long, only its text is read


def _text(path: Path, limit: int = _MAX) -> str | None:
    try:
        with path.open("rb") as file:
            return file.read(limit).decode("utf-8", "replace")
    except OSError:
        return None


def _git_folder(repo: Path) -> Path | None:
    dot = repo / ".git"
    if dot.is_dir():
        return dot
    text = _text(dot, 4096)
    if text is None or not text.startswith("gitdir:"):
        return None
    target = Path(text[len("gitdir:"):].strip())
    return target if target.is_absolute() else (repo / target)


def head_from_files(repo: Path) -> str | None:
    """The id of the commit checked out in `repo`, or None."""
    folder = _git_folder(repo)
    if folder is None:
        return None
    head = (_text(folder / "HEAD", 4096) or "").strip()
    if _SHA.fullmatch(head):
        return head  # detached
    if not head.startswith("ref:"):
        return None
    ref = head[4:].strip()
    if not _REF.fullmatch(ref) or ".." in ref:
        return None
    common = folder
    named = (_text(folder / "commondir", 4096) or "").strip()
    if named:
        common = Path(named) if Path(named).is_absolute() else folder / named
    for place in dict.fromkeys((folder, common)):
        loose = (_text(place / ref, 4096) or "").strip()
        if _SHA.fullmatch(loose):
            return loose
    for line in (_text(common / "packed-refs", 1 << 24) or "").splitlines():
        sha, _, name = line.partition(" ")
        if name == ref and _SHA.fullmatch(sha):
            return sha
    return None
