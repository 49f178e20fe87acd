"""(In the reader process) Where the working tree stands, and what changed, from libgit2's diffs.

git_status's staged and unstaged lists and git_diff's hunks come from the same two diffs
git itself makes: HEAD's tree against the index, and the index against the work tree (with
untracked files for status). A commit to compare with is its tree against the index plus
the index against the work tree, which is `git diff <commit>`. Renames are found as git
finds them (`find_similar`, 50 % alike).
"""

from __future__ import annotations

import os
from typing import Any

import pygit2
from pygit2.enums import DeltaStatus, DiffOption

from memory.git.opening import Opened, ReadError

EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
# git_diff never sends more than a few tens of thousands of characters: hunks past this
# many are not even sent back to the app, only their files' counts.
MAX_HUNK_CHARS = 400_000
SUBMODULE = 0o160000
LETTERS = {
    DeltaStatus.ADDED: "A", DeltaStatus.DELETED: "D", DeltaStatus.MODIFIED: "M", DeltaStatus.RENAMED: "R",
    DeltaStatus.COPIED: "C", DeltaStatus.TYPECHANGE: "T", DeltaStatus.UNTRACKED: "?",
}
NO_NEWLINE = "\\ No newline at end of file"


def _name(file: pygit2.DiffFile) -> str:
    # bytes that are not UTF-8 stay as surrogates, as os.listdir gives them
    return os.fsdecode(file.raw_path)


def _tree(opened: Opened, revision: str | None = None) -> pygit2.Tree:
    repo = opened.repo
    if revision is None:
        if repo.head_is_unborn:
            tree = repo.get(EMPTY_TREE)
            assert isinstance(tree, pygit2.Tree)
            return tree
        return repo.head.peel(pygit2.Tree)
    try:
        return repo.revparse_single(revision).peel(pygit2.Commit).tree
    except (KeyError, ValueError, pygit2.GitError, pygit2.InvalidSpecError) as exc:
        raise ReadError("revision", revision) from exc


def commit_of(opened: Opened, revision: str) -> str:
    try:
        return str(opened.repo.revparse_single(revision).peel(pygit2.Commit).id)
    except (KeyError, ValueError, pygit2.GitError, pygit2.InvalidSpecError) as exc:
        raise ReadError("revision", revision) from exc


def staged_diff(opened: Opened, revision: str | None = None) -> pygit2.Diff:
    diff = _tree(opened, revision).diff_to_index(opened.repo.index, DiffOption.INCLUDE_TYPECHANGE)
    diff.find_similar()
    return diff


def unstaged_diff(opened: Opened, untracked: bool = False) -> pygit2.Diff:
    flags = DiffOption.INCLUDE_TYPECHANGE
    if untracked:
        flags |= DiffOption.INCLUDE_UNTRACKED | DiffOption.RECURSE_UNTRACKED_DIRS
    diff: pygit2.Diff = opened.repo.index.diff_to_workdir(flags)
    diff.find_similar()
    return diff


def against_diff(opened: Opened, revision: str) -> pygit2.Diff:
    """`git diff <revision>`: its tree against the work tree, as the index sees it."""
    diff = _tree(opened, revision).diff_to_index(opened.repo.index, DiffOption.INCLUDE_TYPECHANGE)
    diff.merge(opened.repo.index.diff_to_workdir(DiffOption.INCLUDE_TYPECHANGE))
    diff.find_similar()
    return diff


def _dirty_only(delta: pygit2.DiffDelta) -> bool:
    """A submodule whose commit is the recorded one, only its own files changed
    (git status --ignore-submodules=dirty leaves it out)."""
    return delta.new_file.mode == SUBMODULE and delta.old_file.mode == SUBMODULE and delta.old_file.id == delta.new_file.id


def _counts(diff: pygit2.Diff, index: int) -> tuple[int | None, int | None, bool]:
    try:
        patch = diff[index]
    except (KeyError, pygit2.GitError):  # an object this clone does not hold (a partial clone)
        return None, None, False
    if patch is None:
        return 0, 0, False
    _, added, removed = patch.line_stats
    return added, removed, bool(patch.delta.is_binary)


def _entries(opened: Opened, diff: pygit2.Diff, conflicted: set[str]) -> list[dict[str, Any]]:
    out = []
    for i, delta in enumerate(diff.deltas):
        path = _name(delta.new_file)
        if delta.status in (DeltaStatus.UNTRACKED, DeltaStatus.CONFLICTED, DeltaStatus.IGNORED) or path in conflicted:
            continue
        if _dirty_only(delta):
            continue
        added, removed, binary = _counts(diff, i)
        original = _name(delta.old_file) if delta.status in (DeltaStatus.RENAMED, DeltaStatus.COPIED) else None
        out.append({"path": path, "change": LETTERS.get(delta.status, "M"), "original": original,
                    "added": added, "removed": removed, "binary": binary})
    return out


CONFLICT_CODES = {
    (True, True, True): "UU", (False, True, True): "AA", (True, False, False): "DD", (False, True, False): "AU",
    (False, False, True): "UA", (True, False, True): "DU", (True, True, False): "UD",
}


def _conflicts(opened: Opened) -> list[dict[str, str]]:
    conflicts = opened.repo.index.conflicts
    if conflicts is None:
        return []
    out = []
    for ancestor, ours, theirs in conflicts:
        entry = ours or theirs or ancestor
        code = CONFLICT_CODES.get((ancestor is not None, ours is not None, theirs is not None), "UU")
        out.append({"path": str(entry.path), "code": code})
    return sorted(out, key=lambda c: c["path"])


def _branch(opened: Opened) -> dict[str, Any]:
    repo = opened.repo
    if repo.head_is_unborn:
        target = repo.references["HEAD"].target
        name = str(target).removeprefix("refs/heads/")
        return {"head": name, "oid": None, "upstream": None, "ahead": 0, "behind": 0}
    oid = str(repo.head.target)
    if repo.head_is_detached:
        return {"head": None, "oid": oid, "upstream": None, "ahead": 0, "behind": 0}
    name = repo.head.shorthand
    upstream, ahead, behind = None, 0, 0
    try:
        branch = repo.branches.local[name]
        remote = branch.upstream
        if remote is not None:
            upstream = remote.shorthand
            ahead, behind = repo.ahead_behind(branch.target, remote.target)
    except (KeyError, ValueError, pygit2.GitError):
        pass
    return {"head": name, "oid": oid, "upstream": upstream, "ahead": ahead, "behind": behind}


def status(opened: Opened) -> dict[str, Any]:
    conflicted = _conflicts(opened)
    names = {c["path"] for c in conflicted}
    unstaged = unstaged_diff(opened, untracked=True)
    untracked = [_name(d.new_file) for d in unstaged.deltas if d.status == DeltaStatus.UNTRACKED]
    return {
        **_branch(opened),
        "staged": _entries(opened, staged_diff(opened), names),
        "unstaged": _entries(opened, unstaged, names),
        "conflicted": conflicted,
        "untracked": untracked,
    }


def untracked(opened: Opened, within: str) -> list[str]:
    diff = unstaged_diff(opened, untracked=True)
    names = (_name(d.new_file) for d in diff.deltas if d.status == DeltaStatus.UNTRACKED)
    return sorted(opened.relative(n) for n in names if _under(n, within))


def listed(opened: Opened, names: set[str]) -> list[str]:
    """The files named one of `names` that git knows of under the folder (tracked, or
    untracked and not ignored: `git ls-files --cached --others --exclude-standard`)."""
    found = {str(entry.path) for entry in opened.repo.index}
    found |= {_name(d.new_file) for d in unstaged_diff(opened, untracked=True).deltas if d.status == DeltaStatus.UNTRACKED}
    return sorted(opened.relative(p) for p in found if opened.inside(p) and p.rsplit("/", 1)[-1] in names)


def _under(path: str, within: str) -> bool:
    return not within or path == within.rstrip("/") or path.startswith(within.rstrip("/") + "/")


def _zero(oid: pygit2.Oid) -> bool:
    return not any(oid.raw)


def git_quoted(name: str) -> str:
    """A name as git writes it in a diff header: in C quotes when it holds a control
    character, a quote or a backslash (bytes past ASCII are left as they are)."""
    if not any(ord(c) < 0x20 or c in '"\\\x7f' for c in name):
        return name
    escapes = {"\n": "\\n", "\t": "\\t", '"': '\\"', "\\": "\\\\"}
    return '"' + "".join(escapes.get(c, f"\\{ord(c):03o}" if ord(c) < 0x20 or c == "\x7f" else c) for c in name) + '"'


def _header(old: str, new: str, delta: pygit2.DiffDelta) -> tuple[list[str], str]:
    """git's header lines for one file (names quoted as git quotes them), and the note
    git_diff puts after its counts."""
    status = delta.status
    old_mode, new_mode = delta.old_file.mode, delta.new_file.mode
    lines = [f"diff --git {git_quoted('a/' + old)} {git_quoted('b/' + new)}"]
    note = ""
    if status == DeltaStatus.ADDED:
        lines.append(f"new file mode {new_mode:06o}")
        note = "new file"
    elif status == DeltaStatus.DELETED:
        lines.append(f"deleted file mode {old_mode:06o}")
        note = "deleted"
    elif old_mode != new_mode:
        lines += [f"old mode {old_mode:06o}", f"new mode {new_mode:06o}"]
        note = "mode changed"
    if status in (DeltaStatus.RENAMED, DeltaStatus.COPIED):
        word = "rename" if status == DeltaStatus.RENAMED else "copy"
        lines += [f"similarity index {delta.similarity}%", f"{word} from {git_quoted(old)}", f"{word} to {git_quoted(new)}"]
        note = "renamed" if status == DeltaStatus.RENAMED else "copied"
    same = f" {new_mode:06o}" if old_mode == new_mode and status not in (DeltaStatus.ADDED, DeltaStatus.DELETED) else ""
    unknown = (_zero(delta.old_file.id) or _zero(delta.new_file.id)) and status not in (DeltaStatus.ADDED, DeltaStatus.DELETED)
    if delta.old_file.id != delta.new_file.id and not unknown:  # a work-tree file's id is not computed
        lines.append(f"index {str(delta.old_file.id)[:7]}..{str(delta.new_file.id)[:7]}{same}")
    return lines, note


def _hunks(patch: pygit2.Patch) -> list[list[str]]:
    hunks = []
    for hunk in patch.hunks:
        rows = [hunk.header.rstrip("\n")]
        for line in hunk.lines:
            if line.origin in ("=", ">", "<"):
                rows.append(NO_NEWLINE)
                continue
            text = line.raw_content.decode("utf-8", "replace")
            rows.append(line.origin + (text[:-1] if text.endswith("\n") else text))
        hunks.append(rows)
    return hunks


def files(opened: Opened, diff: pygit2.Diff, within: str, budget: list[int]) -> list[dict[str, Any]]:
    """Each changed file under `within` (a work-tree path, "" for all), names relative to
    the folder asked about, with git's header lines and its hunks while `budget` lasts."""
    out = []
    for i, delta in enumerate(diff.deltas):
        new, old = _name(delta.new_file), _name(delta.old_file)
        if delta.status in (DeltaStatus.UNTRACKED, DeltaStatus.IGNORED, DeltaStatus.UNMODIFIED):
            continue
        if not (_under(new, within) or _under(old, within)):
            continue
        shown_new, shown_old = opened.relative(new), opened.relative(old)
        header, note = _header(shown_old, shown_new, delta)
        entry: dict[str, Any] = {"name": shown_old if delta.status == DeltaStatus.DELETED else shown_new,
                                 "header": header, "note": note, "hunks": [], "binary": False,
                                 "added": 0, "removed": 0, "cut": False, "missing": False,
                                 "original": shown_old if delta.status in (DeltaStatus.RENAMED, DeltaStatus.COPIED) else None}
        try:
            patch = diff[i]
        except (KeyError, pygit2.GitError):
            entry["missing"] = True  # a partial clone without this file's content: nothing is fetched
            out.append(entry)
            continue
        if patch is not None:
            _, entry["added"], entry["removed"] = patch.line_stats
            if patch.delta.is_binary:
                entry["binary"] = True
                a = "/dev/null" if delta.status == DeltaStatus.ADDED else git_quoted(f"a/{shown_old}")
                b = "/dev/null" if delta.status == DeltaStatus.DELETED else git_quoted(f"b/{shown_new}")
                header.append(f"Binary files {a} and {b} differ")
            else:
                hunks = _hunks(patch)
                if hunks:
                    header += ["--- /dev/null" if delta.status == DeltaStatus.ADDED else "--- " + git_quoted(f"a/{shown_old}"),
                               "+++ /dev/null" if delta.status == DeltaStatus.DELETED else "+++ " + git_quoted(f"b/{shown_new}")]
                size = sum(len(row) + 1 for hunk in hunks for row in hunk)
                if size > budget[0]:
                    entry["cut"] = True
                else:
                    budget[0] -= size
                    entry["hunks"] = hunks
        out.append(entry)
    return out


def renames(opened: Opened, revision: str) -> dict[str, str]:
    """Old path -> new path of every rename between `revision` and the work tree, relative
    to the folder asked about."""
    diff = against_diff(opened, revision)
    return {opened.relative(_name(d.old_file)): opened.relative(_name(d.new_file))
            for d in diff.deltas if d.status == DeltaStatus.RENAMED}
