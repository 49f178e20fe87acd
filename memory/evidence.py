"""The evidence behind a memory: what its citations pointed at when it was written, and now.

When the store writes a memory it fingerprints every region the memory cites (see
memory/citations.py): a hash of the cited lines with their whitespace normalised, the
commit the repository was at, and where the text sat. The fingerprints live in one hidden
file beside the memories (memory/evidence_file.py), written under the store's lock and
never listed by the memory tool's `view`. This module makes and checks them.

Checked later against the working tree, each citation is one of:

    intact    the cited text is where the memory says (whitespace-only edits do not count)
    moved     the same text now sits at other lines, or in a file git saw it renamed to
    changed   the file is there, the text is not
    gone      the file (or folder) is not there

A citation the store never fingerprinted (the memory was written by an editor, or before
this existed) is `unrecorded`: it can still be gone, or point past the end of its file
(changed), but intact cannot be told from changed. A citation without lines is a claim
that the file is there, so it is intact or gone.

A citation keeps its first fingerprint across later writes of the same memory, so editing
a note's wording does not launder evidence that went out of date; a write that moves the
memory's `verified:` date forward (the user's `v`, or the agent after a tool confirmed
it) fingerprints everything again.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from memory.citations import Citation, FileNames, find, locate

# the states live apart so that showing them does not import the checking; named here too
from memory.evidence_states import CHANGED as CHANGED
from memory.evidence_states import GONE as GONE
from memory.evidence_states import INTACT as INTACT
from memory.evidence_states import MOVED as MOVED
from memory.evidence_states import SEVERITY as SEVERITY
from memory.evidence_states import UNRECORDED as UNRECORDED
from memory.files import read_regular
from memory.git import reading

# Past this a cited file is only checked for being there: hashing it would stall the pane.
MAX_FILE_BYTES = 4 * 1024 * 1024
_COMMIT = re.compile(r"^[0-9a-f]{7,64}$")


# --- fingerprints -----------------------------------------------------------------------


def normalise(line: str) -> str:
    return " ".join(line.split())


def _digest(lines: Iterable[str]) -> str:
    return hashlib.sha256("\n".join(lines).encode("utf-8", "surrogatepass")).hexdigest()[:32]


@dataclass(frozen=True)
class Fingerprint:
    cite: str  # the citation as the memory writes it, the key across writes
    path: str  # relative to the repository, "/"-separated, where the text was read
    kind: str  # "lines", "file" or "dir"
    start: int | None = None
    end: int | None = None
    anchor: int | None = None  # line of the first non-blank cited line
    count: int = 0  # non-blank cited lines
    hash: str | None = None  # of the normalised non-blank cited lines; None when past the end
    first: str | None = None  # hash of the first of them, to skip most windows quickly
    commit: str | None = None
    recorded: str = ""

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Fingerprint | None:
        """None for a record that is not one of ours (hand-edited, or from a newer version):
        its citation then reads as unrecorded, and no path in it reaches outside the tree."""
        try:
            fp = cls(**{k: v for k, v in data.items() if k in cls.__dataclass_fields__})
        except TypeError:
            return None
        texts = (fp.cite, fp.path, fp.kind, fp.recorded)
        numbers = (fp.start, fp.end, fp.anchor)
        if not all(isinstance(t, str) for t in texts) or not isinstance(fp.count, int) or fp.count < 0:
            return None
        if not all(n is None or (isinstance(n, int) and n > 0) for n in numbers):
            return None
        if fp.kind not in ("lines", "file", "dir") or not _relative_path(fp.path):
            return None
        if any(v is not None and not isinstance(v, str) for v in (fp.hash, fp.first, fp.commit)):
            return None
        if fp.commit is not None and not _COMMIT.match(fp.commit):
            return None  # it becomes an argument of git diff: never an option
        return fp


def _relative_path(path: str) -> bool:
    parts = path.split("/")
    return bool(path) and not path.startswith("/") and "\\" not in path and all(p not in ("", ".", "..") for p in parts)


def head_commit(repo: Path) -> str | None:
    """The commit checked out in `repo` (read through memory.git, which runs no program of
    the repository); None outside git or before the first commit."""
    return reading.head(repo)["commit"]


def _inside(repo: Path, target: Path) -> bool:
    root = os.path.realpath(repo)
    real = os.path.realpath(target)
    return real == root or real.startswith(root + os.sep)


def _read_lines(target: Path) -> list[str] | None:
    """The file's lines, or None when it is not a regular file we should read."""
    data = read_regular(str(target), follow=True, limit=MAX_FILE_BYTES)
    return None if data is None else data.decode("utf-8", errors="replace").splitlines()


def _nonblank(lines: list[str], first: int = 1, last: int | None = None) -> list[tuple[int, str]]:
    last = len(lines) if last is None else min(last, len(lines))
    out = []
    for number in range(max(1, first), last + 1):
        text = normalise(lines[number - 1])
        if text:
            out.append((number, text))
    return out


def fingerprint(repo: Path, cite: str, where: Citation, commit: str | None, now: datetime | None = None) -> Fingerprint:
    """The fingerprint of one located citation, read from the working tree."""
    recorded = (now or datetime.now(UTC)).isoformat(timespec="seconds")
    target = repo / where.path
    base: dict[str, Any] = dict(cite=cite, path=where.path, start=where.start, end=where.last, commit=commit, recorded=recorded)
    if target.is_dir() or (where.start is None and not target.is_file()):
        return Fingerprint(kind="dir" if target.is_dir() else "file", **{**base, "start": None, "end": None})
    lines = _read_lines(target) if _inside(repo, target) else None
    if where.start is None or lines is None:
        return Fingerprint(kind="file", **{**base, "start": where.start, "end": where.last})
    region = _nonblank(lines, where.start, where.last)
    if where.start > len(lines):
        return Fingerprint(kind="lines", **base)  # cited past the end of the file: hash None
    texts = [text for _, text in region]
    return Fingerprint(
        kind="lines",
        anchor=region[0][0] if region else where.start,
        count=len(texts),
        hash=_digest(texts),
        first=_digest(texts[:1]) if texts else None,
        **base,
    )


# --- checking ---------------------------------------------------------------------------


@dataclass(frozen=True)
class CitationCheck:
    cite: str
    state: str
    where: str | None = None  # for moved: the citation as it would read now
    detail: str = ""
    commit: str | None = None

    def sentence(self) -> str:
        """`src/a.cs:111 changed since 1a2b3c4`, `b.cs:10 moved to b.cs:14`, ..."""
        if self.state == MOVED and self.where:
            return f"{self.cite} moved to {self.where}"
        if self.state == CHANGED:
            since = f" since {self.commit[:7]}" if self.commit else ""
            return f"{self.cite} changed{since}" + (f" ({self.detail})" if self.detail else "")
        if self.state == UNRECORDED:
            return f"{self.cite} not fingerprinted"
        return f"{self.cite} {self.state}" + (f" ({self.detail})" if self.detail else "")


def _spans(nonblank: list[tuple[int, str]], fp: Fingerprint) -> list[tuple[int, int]]:
    """Every place the fingerprinted text sits among a file's non-blank lines: (first, last)."""
    if fp.count == 0 or fp.hash is None:
        return []
    spans = []
    for i in range(len(nonblank) - fp.count + 1):
        if fp.first is not None and _digest([nonblank[i][1]]) != fp.first:
            continue
        window = nonblank[i : i + fp.count]
        if _digest(text for _, text in window) == fp.hash:
            spans.append((window[0][0], window[-1][0]))
    return spans


def _renames(repo: Path, commit: str) -> dict[str, str]:
    """Old path -> new path of every rename git sees between `commit` and the working tree."""
    return reading.renames(repo, commit)


class Tree:
    """The working tree as one check reads it: file names, the lines of each cited file and
    git's renames, each read once however many citations ask."""

    def __init__(self, repo: Path) -> None:
        self.repo = Path(repo)
        self.names = FileNames(self.repo)
        self._nonblank: dict[str, list[tuple[int, str]] | None] = {}
        self._renames: dict[str, dict[str, str]] = {}

    def nonblank(self, path: str) -> list[tuple[int, str]] | None:
        """The file's non-blank lines, normalised, numbered; None when it is not readable text."""
        if path not in self._nonblank:
            target = self.repo / path
            lines = _read_lines(target) if _inside(self.repo, target) else None
            self._nonblank[path] = None if lines is None else _nonblank(lines)
        return self._nonblank[path]

    def renamed_to(self, commit: str | None, path: str) -> str | None:
        if not commit or not _COMMIT.match(commit):
            return None
        if commit not in self._renames:
            self._renames[commit] = _renames(self.repo, commit)
        return self._renames[commit].get(path)


def _cite_at(path: str, start: int, end: int) -> str:
    return f"{path}:{start}" if start == end else f"{path}:{start}-{end}"


def _find_text(tree: Tree, fp: Fingerprint, path: str) -> list[tuple[int, int]] | None:
    nonblank = tree.nonblank(path)
    return None if nonblank is None else _spans(nonblank, fp)


def classify(repo: Path, fp: Fingerprint, tree: Tree | None = None) -> CitationCheck:
    """One fingerprinted citation against the working tree."""
    tree = tree or Tree(repo)
    target = repo / fp.path
    out: dict[str, Any] = dict(cite=fp.cite, commit=fp.commit)
    if fp.kind == "dir":
        return CitationCheck(state=INTACT if target.is_dir() else GONE, **out)
    if not os.path.lexists(target):
        return _elsewhere(tree, fp, out)
    if fp.kind == "file":
        return CitationCheck(state=INTACT, **out)
    if fp.hash is None:
        return CitationCheck(state=CHANGED, detail=f"line {fp.start} was past the end of the file when written", **out)
    if fp.count == 0:
        return CitationCheck(state=INTACT, **out)  # only blank lines were cited
    spans = _find_text(tree, fp, fp.path)
    if spans is None:
        return CitationCheck(state=CHANGED, detail="no longer a text file", **out)
    if any(start == fp.anchor for start, _ in spans):
        return CitationCheck(state=INTACT, **out)
    if spans:
        start, end = min(spans, key=lambda s: abs(s[0] - (fp.anchor or 0)))
        return CitationCheck(state=MOVED, where=_cite_at(fp.path, start, end), **out)
    return CitationCheck(state=CHANGED, **out)


def _elsewhere(tree: Tree, fp: Fingerprint, out: dict[str, Any]) -> CitationCheck:
    """The cited file is not at its path: renamed (git knows), or found by its name alone."""
    repo = tree.repo
    candidates = []
    renamed = tree.renamed_to(fp.commit, fp.path)
    if renamed:
        candidates.append(renamed)
    if "/" not in fp.cite.split(":", 1)[0]:
        places = tree.names.where(fp.path.rsplit("/", 1)[-1]) or []
        if len(places) == 1:
            candidates.append(places[0])
    for path in candidates:
        if fp.kind != "lines" or fp.hash is None:
            if (repo / path).exists():
                return CitationCheck(state=MOVED, where=path, **out)
            continue
        found = _find_text(tree, fp, path)
        if found:
            start, end = min(found, key=lambda s: abs(s[0] - (fp.anchor or 0)))
            return CitationCheck(state=MOVED, where=_cite_at(path, start, end), **out)
    return CitationCheck(state=GONE, **out)


def _unrecorded(tree: Tree, citation: Citation) -> CitationCheck | None:
    repo = tree.repo
    where = locate(citation, repo, tree.names)
    if where is None:
        return None  # an ambiguous bare name: no claim we can check
    target = repo / where.path
    out: dict[str, Any] = dict(cite=citation.key)
    if not os.path.lexists(target):
        return CitationCheck(state=GONE, **out)
    last = where.last
    if last is None:  # no line cited: the file is there, which is all it claims
        return CitationCheck(state=INTACT, **out)
    lines = _read_lines(target) if _inside(repo, target) else None
    if lines is not None and last > len(lines):
        return CitationCheck(state=CHANGED, detail=f"the file has {len(lines)} line{'' if len(lines) == 1 else 's'}", **out)
    return CitationCheck(state=UNRECORDED, **out)


def check_text(text: str, repo: Path, recorded: list[Fingerprint], tree: Tree | None = None) -> list[CitationCheck]:
    """Every citation of a memory's text, checked, worst first. Pass one `tree` to check
    many memories: it reads each file and asks git once."""
    tree = tree or Tree(repo)
    by_cite = {fp.cite: fp for fp in recorded}
    checks = []
    for citation in find(text, repo):
        fp = by_cite.get(citation.key)
        if fp is not None:
            checks.append(classify(repo, fp, tree))
        else:
            check = _unrecorded(tree, citation)
            if check is not None:
                checks.append(check)
    checks.sort(key=lambda c: SEVERITY.index(c.state))
    return checks


def worst(checks: list[CitationCheck]) -> str | None:
    return checks[0].state if checks else None


def summary(checks: list[CitationCheck]) -> str:
    """One short line: the citations that are not intact by name, then a count of the rest."""
    if not checks:
        return "cites no code"
    named = [c.sentence() for c in checks if c.state != INTACT]
    intact = sum(1 for c in checks if c.state == INTACT)
    if intact == 1 and not named:
        named.append(next(c.sentence() for c in checks if c.state == INTACT))
    elif intact:
        named.append(f"{intact} intact" if named else f"all {intact} intact")
    return "; ".join(named)
