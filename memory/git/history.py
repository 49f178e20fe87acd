"""(In the reader process) The commits of git_log, walked with libgit2.

Newest first from HEAD, as `git log` orders them; since a time (the committer's, as
`--since`) or a revision (`<revision>..HEAD`), optionally only those that changed one path
(a merge only when it differs from every parent there, git's history simplification). Each
commit's files are its changes against its first parent (none listed for a merge, as git
lists none); a tree this clone lacks is said, never fetched.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pygit2
from pygit2.enums import DeltaStatus, SortMode

from memory.git.opening import Opened, ReadError
from memory.git.worktree import EMPTY_TREE, LETTERS, commit_of

# Commits looked at before giving up on finding more that match a path or a date.
MAX_WALKED = 20_000


def _when(seconds: int, offset_minutes: int) -> str:
    zone = timezone(timedelta(minutes=offset_minutes))
    return datetime.fromtimestamp(seconds, UTC).astimezone(zone).strftime("%Y-%m-%d %H:%M %z")


def _under(path: str, within: str) -> bool:
    return not within or path == within or path.startswith(within + "/")


def _diff(repo: pygit2.Repository, parent: pygit2.Commit | None, commit: pygit2.Commit) -> pygit2.Diff:
    old = parent.tree if parent is not None else repo.get(EMPTY_TREE)
    assert isinstance(old, pygit2.Tree)
    diff: pygit2.Diff = old.diff_to_tree(commit.tree)
    return diff


def _touches(diff: pygit2.Diff, within: str) -> bool:
    return any(_under(os.fsdecode(d.new_file.raw_path), within) or _under(os.fsdecode(d.old_file.raw_path), within)
               for d in diff.deltas)


def _files(diff: pygit2.Diff, max_files: int) -> tuple[list[dict[str, Any]], int]:
    try:
        diff.find_similar()
    except pygit2.GitError:
        pass  # renames need the content, which a partial clone may lack: listed as delete and add
    files = []
    deltas = list(diff.deltas)
    for delta in deltas[:max_files]:
        renamed = delta.status in (DeltaStatus.RENAMED, DeltaStatus.COPIED)
        files.append({"change": LETTERS.get(delta.status, "M"), "path": os.fsdecode(delta.new_file.raw_path),
                      "original": os.fsdecode(delta.old_file.raw_path) if renamed else None})
    return files, max(0, len(deltas) - max_files)


def log(opened: Opened, request: dict[str, Any]) -> dict[str, Any]:
    repo = opened.repo
    if repo.head_is_unborn:
        return {"commits": [], "more": False, "branch": str(repo.references["HEAD"].target).removeprefix("refs/heads/")}
    within = (opened.prefix + str(request.get("path") or "")).rstrip("/")
    since_time = request.get("since_time")
    limit = int(request.get("limit", 30))
    max_files = int(request.get("max_files", 20))
    walker = repo.walk(repo.head.target, SortMode.TOPOLOGICAL | SortMode.TIME)
    since = request.get("since_revision")
    if since:
        walker.hide(commit_of(opened, since))
    commits: list[dict[str, Any]] = []
    more = False
    for walked, commit in enumerate(walker):
        if walked >= MAX_WALKED:
            more = True
            break
        if since_time is not None and commit.commit_time < since_time:
            continue  # git log --since: a commit dated after an older one may still follow
        try:
            parents = list(commit.parents)
            diffs = [_diff(repo, p, commit) for p in parents] or [_diff(repo, None, commit)]
        except (KeyError, pygit2.GitError) as exc:
            raise ReadError("missing", f"commit {str(commit.id)[:10]}'s files are not in this clone") from exc
        if within and not all(_touches(d, within) for d in diffs):
            continue
        if len(commits) == limit:
            more = True
            break
        files, more_files = ([], 0) if len(parents) > 1 else _files(diffs[0], max_files)
        author = commit.author
        commits.append({
            "id": str(commit.id), "author": author.raw_name.decode("utf-8", "replace"), "date": _when(author.time, author.offset),
            "subject": commit.raw_message.decode("utf-8", "replace").strip().split("\n", 1)[0], "parents": len(parents),
            "files": files, "more_files": more_files,
        })
    return {"commits": commits, "more": more, "branch": None if repo.head_is_detached else repo.head.shorthand}
