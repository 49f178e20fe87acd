"""git_log: what happened in the repository's history, commit by commit.

git_status and git_diff show the working tree now; this answers "what changed since
Friday": each commit's id, author, date, subject and the files it touched, newest first,
since a date or a revision, optionally for one path. Read through memory.git (libgit2, in a
reader process), as safely as git_diff: no program the repository names runs, and a
partial clone's missing objects are said, never fetched. Names the repository chose (files,
authors, subjects) are shown quoted and escaped when they hold a control character.
"""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path
from typing import Any

from agent.tools.base import ToolContext, ToolInputError, ToolResult, optional_str
from agent.tools.git import GIT_TIMEOUT, cancelled_check, unreadable
from agent.tools.git_diff import REVISION
from agent.tools.guard import guarded
from agent.tools.names import given_name, shown_name
from agent.tools.paths import repository_root, resolve_in_repository
from memory.git.reading import GitUnreadable, ask

DEFAULT_COMMITS = 20
MAX_COMMITS = 100
MAX_FILES = 20  # per commit
MAX_TEXT_CHARS = 20_000
DATE = re.compile(r"\d{4}-\d{2}-\d{2}(?:[ T]\d{2}:\d{2}(?::\d{2})?)?(?:Z|[+-]\d{2}:?\d{2})?")
CHANGES = {"A": "A", "D": "D", "M": "M", "R": "R", "C": "C", "T": "T"}


def since_time(since: str) -> int | None:
    """Seconds since the epoch for a date (a day starts at midnight, local time as git
    takes it); None when `since` is not a date."""
    if not DATE.fullmatch(since):
        return None
    try:
        when = datetime.fromisoformat(since.replace("Z", "+00:00"))
    except ValueError as exc:
        raise ToolInputError(f"Error: {since!r} is not a date (YYYY-MM-DD, optionally with a time).") from exc
    return int(when.timestamp() if when.tzinfo else when.astimezone().timestamp())


def _file(raw: dict[str, Any]) -> str:
    change = CHANGES.get(raw["change"], raw["change"])
    if raw.get("original"):
        return f"  {change} {shown_name(raw['original'])} -> {shown_name(raw['path'])}"
    return f"  {change} {shown_name(raw['path'])}"


def _commit(raw: dict[str, Any]) -> list[str]:
    lines = [f"{raw['id'][:10]} {raw['date']} {shown_name(raw['author'])}: {shown_name(raw['subject'])}"]
    if raw["parents"] > 1:
        lines.append(f"  (a merge of {raw['parents']} branches; its files are not listed)")
    lines += [_file(f) for f in raw["files"]]
    if raw["more_files"]:
        lines.append(f"  ... and {raw['more_files']} more file{'s' if raw['more_files'] != 1 else ''}")
    return lines


class GitLogTool:
    name = "git_log"

    def definition(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": (
                "Commits on the current branch, newest first: id, date, author, subject and the "
                "files each touched. Use it for what happened since a date or a commit."
            ),
            "input_schema": {
                "type": "object",
                "properties": {
                    "since": {"type": "string", "description": "A date (2026-11-27) or a commit, branch or tag: only commits after it."},
                    "path": {"type": "string", "description": "Only commits that changed this file or folder."},
                    "limit": {"type": "integer", "description": f"At most this many commits (default {DEFAULT_COMMITS}, up to {MAX_COMMITS})."},
                },
            },
        }

    def summarize_input(self, input: dict[str, Any]) -> str:
        if not isinstance(input, dict):
            return "log"
        parts = [f"since {str(input['since'])[:40]}"] if input.get("since") else []
        if input.get("path"):
            parts.append(str(input["path"])[:60])
        return " ".join(parts) or "recent commits"

    def run(self, input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        return guarded(self.name, lambda: self._run(input, ctx), ctx.cancel)

    def _request(self, input: dict[str, Any], repo: Path, named: Path) -> tuple[dict[str, Any], str, str]:
        if not isinstance(input, dict):
            raise ToolInputError("Error: the input must be an object.")
        limit = input.get("limit", DEFAULT_COMMITS)
        if not isinstance(limit, int) or isinstance(limit, bool) or limit < 1:
            raise ToolInputError(f"Error: limit must be a whole number of commits, got {limit!r}.")
        request: dict[str, Any] = {"op": "log", "limit": min(limit, MAX_COMMITS), "max_files": MAX_FILES}
        since = optional_str(input, "since")
        when = ""
        if since is not None and since.strip():
            since = since.strip()
            seconds = since_time(since)
            if seconds is not None:
                request["since_time"] = seconds
            elif REVISION.fullmatch(since) and ".." not in since:
                request["since_revision"] = since
            else:
                raise ToolInputError(f"Error: since must be a date (2026-11-27) or one commit, branch or tag, got {shown_name(since)[:200]}.")
            when = f" since {since}"
        where = ""
        path = optional_str(input, "path")
        if path is not None and path.strip("/") not in ("", "."):
            relative = resolve_in_repository(given_name(path), repo, named).relative_to(repository_root(repo)).as_posix()
            if relative not in ("", "."):
                request["path"] = relative
                where = f" that changed {shown_name(relative)}"
        return request, when, where

    def _run(self, input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        repo = ctx.base  # read through the session's root descriptor, never what took the path's place
        if not repo.is_dir():
            return ToolResult(text=f"Error: the repository folder {ctx.repo} does not exist.", is_error=True, summary="no folder")
        request, when, where = self._request(input, repo, Path(ctx.repo))
        try:
            raw = ask(repo, request, timeout=GIT_TIMEOUT, cancelled=cancelled_check(ctx), shown=Path(ctx.repo))
        except GitUnreadable as exc:
            if exc.kind == "revision":
                raise ToolInputError(f"Error: there is no commit, branch or tag {request.get('since_revision')!r} in this repository.") from None
            return unreadable(exc, "history")
        commits = raw["commits"]
        branch = f" on {shown_name(raw['branch'])}" if raw.get("branch") else ""
        if not commits:
            return ToolResult(text=f"No commits{branch}{when}{where}.", summary="no commits")
        lines = [f"{len(commits)} commit{'s' if len(commits) != 1 else ''}{branch}{when}{where}, newest first:"]
        chars = len(lines[0])
        shown = 0
        for commit in commits:
            block = ["", *_commit(commit)]
            size = sum(len(row) + 1 for row in block)
            if shown and chars + size > MAX_TEXT_CHARS:
                break
            lines += block
            chars += size
            shown += 1
        if shown < len(commits):
            lines += ["", f"Cut here: {len(commits) - shown} more commit{'s' if len(commits) - shown != 1 else ''} not shown; ask with a later since or a path."]
        elif raw.get("more"):
            lines += ["", f"Older commits{where} are not shown; ask with since or a higher limit."]
        summary = f"{shown} commit{'s' if shown != 1 else ''}"
        return ToolResult(text="\n".join(lines), summary=summary)
