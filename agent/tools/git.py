"""git_status: where the working tree stands, from `git status --porcelain=v2`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent.tools.base import ToolContext, ToolResult
from agent.tools.guard import guarded
from agent.tools.names import shown_name
from agent.tools.toolchain.processes import Outcome, run_command
from agent.tools.toolchain.user_environment import user_environment
from memory import safe_git

GIT_TIMEOUT = 30.0
MAX_LISTED = 40  # per group; a checkout of a generated folder can list thousands

CHANGE_NAMES = {
    "M": "modified",
    "T": "type changed",
    "A": "added",
    "D": "deleted",
    "R": "renamed",
    "C": "copied",
    "U": "unmerged",
}


@dataclass
class Entry:
    path: str
    change: str
    original: str | None = None

    def describe(self, counts: dict[str, tuple[str, str]]) -> str:
        name = f"{shown_name(self.original)} -> {shown_name(self.path)}" if self.original else shown_name(self.path)
        added, removed = counts.get(self.path, ("", ""))
        stat = ""
        if added == "-":
            stat = " (binary)"
        elif added or removed:
            stat = f" (+{added} -{removed})"
        return f"{self.change}: {name}{stat}"


@dataclass
class Status:
    head: str | None = None  # branch name; None when detached
    oid: str | None = None
    upstream: str | None = None
    ahead: int = 0
    behind: int = 0
    staged: list[Entry] = field(default_factory=list)
    unstaged: list[Entry] = field(default_factory=list)
    conflicted: list[Entry] = field(default_factory=list)
    untracked: list[str] = field(default_factory=list)


def parse_porcelain_v2(raw: str) -> Status:
    """Parses `git status --porcelain=v2 --branch -z` output."""
    status = Status()
    records = raw.split("\0")
    i = 0
    while i < len(records):
        record = records[i]
        i += 1
        if not record:
            continue
        if record.startswith("# "):
            key, _, value = record[2:].partition(" ")
            if key == "branch.oid":
                status.oid = None if value == "(initial)" else value
            elif key == "branch.head":
                status.head = None if value == "(detached)" else value
            elif key == "branch.upstream":
                status.upstream = value
            elif key == "branch.ab":
                ahead, _, behind = value.partition(" ")
                status.ahead = int(ahead.lstrip("+") or 0)
                status.behind = int(behind.lstrip("-") or 0)
        elif record.startswith("1 "):
            parts = record.split(" ", 8)
            _add(status, parts[1], parts[8])
        elif record.startswith("2 "):
            parts = record.split(" ", 9)
            # With -z the original path of a rename or copy is the next NUL-separated record.
            original = records[i] if i < len(records) else None
            i += 1
            _add(status, parts[1], parts[9], original)
        elif record.startswith("u "):
            parts = record.split(" ", 10)
            status.conflicted.append(Entry(parts[10], _conflict_name(parts[1])))
        elif record.startswith("? "):
            status.untracked.append(record[2:])
        # "! " (ignored) only appears when asked for; nothing else is defined.
    return status


def _add(status: Status, xy: str, path: str, original: str | None = None) -> None:
    staged, unstaged = xy[0], xy[1]
    if staged != ".":
        status.staged.append(Entry(path, CHANGE_NAMES.get(staged, staged), original))
    if unstaged != ".":
        status.unstaged.append(Entry(path, CHANGE_NAMES.get(unstaged, unstaged)))


def _conflict_name(xy: str) -> str:
    return {
        "DD": "both deleted",
        "AU": "added by us",
        "UD": "deleted by them",
        "UA": "added by them",
        "DU": "deleted by us",
        "AA": "both added",
        "UU": "both modified",
    }.get(xy, "conflict")


def parse_numstat(raw: str) -> dict[str, tuple[str, str]]:
    """Parses `git diff --numstat -z` into path -> (added, removed); "-" marks binary."""
    counts: dict[str, tuple[str, str]] = {}
    records = raw.split("\0")
    i = 0
    while i < len(records):
        record = records[i]
        i += 1
        if not record:
            continue
        fields = record.split("\t", 2)
        if len(fields) < 3:
            continue
        added, removed, path = fields
        if path == "":  # a rename: the next two records are the old and the new path
            path = records[i + 1] if i + 1 < len(records) else ""
            i += 2
        counts[path] = (added, removed)
    return counts


def totals(counts: dict[str, tuple[str, str]]) -> str:
    added = sum(int(a) for a, _ in counts.values() if a.isdigit())
    removed = sum(int(r) for _, r in counts.values() if r.isdigit())
    files = len(counts)
    return f"{files} file{'s' if files != 1 else ''}, +{added} -{removed}"


def run_git(repo: Path, ctx: ToolContext, *args: str, env: Mapping[str, str] | None = None) -> Outcome:
    """`git args...` for a tool: the repository's config runs nothing (memory.safe_git), a read
    never takes the index lock another session or the user's editor may want, and a cancelled
    turn stops it."""
    return run_command(
        safe_git.git_command(repo, *args), repo, timeout=GIT_TIMEOUT, cancel=ctx.cancel,
        env={**safe_git.ENVIRONMENT, **(env or {})}, drop=safe_git.dropped_variables(user_environment()),
    )


class GitStatusTool:
    name = "git_status"

    def definition(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": (
                "The branch, how far it is from its upstream, and the staged, unstaged, "
                "conflicted and untracked files with lines added and removed: the state now."
            ),
            "input_schema": {"type": "object", "properties": {}},
        }

    def summarize_input(self, input: dict[str, Any]) -> str:
        return "git status"

    def run(self, input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        return guarded(self.name, lambda: self._run(ctx), ctx.cancel)

    def _git(self, ctx: ToolContext, *args: str) -> Outcome:
        return run_git(Path(ctx.repo), ctx, *args)

    def _run(self, ctx: ToolContext) -> ToolResult:
        repo = Path(ctx.repo)
        if not repo.is_dir():
            return ToolResult(text=f"The folder {repo} does not exist, so there is no git status to show.", is_error=True, summary="no folder")
        try:
            outcome = self._git(ctx, "status", "--porcelain=v2", "--branch", "-z", "--untracked-files=all", "--ignore-submodules=dirty")
        except FileNotFoundError:
            return ToolResult(text="git is not installed on this machine (or not on PATH), so the repository state cannot be read.", is_error=True, summary="no git")
        if outcome.cancelled:
            return ToolResult(text="git status was cancelled.", is_error=True, summary="cancelled")
        if outcome.timed_out:
            return ToolResult(text=f"git status took longer than {GIT_TIMEOUT:.0f} seconds and was stopped.", is_error=True, summary="timed out")
        if outcome.returncode != 0:
            message = outcome.output.strip()
            if safe_git.refusal(message):
                return ToolResult(text=str(safe_git.refusal(message)), is_error=True, summary="not your repository", log=message)
            if "not a git repository" in message:
                return ToolResult(text=f"{repo} is not a git repository, so there is no branch or change list to show.", summary="not a repository")
            first = message.splitlines()[0] if message else f"exit code {outcome.returncode}"
            return ToolResult(text=f"git status failed: {first}", is_error=True, summary="git failed", log=message)
        status = parse_porcelain_v2(outcome.output)
        staged_counts = unstaged_counts = {}
        if status.staged:
            staged_counts = self._numstat(ctx, "--cached")
        if status.unstaged:
            unstaged_counts = self._numstat(ctx)
        text = self._describe(status, staged_counts, unstaged_counts)
        return ToolResult(text=text, summary=self._summary(status), log=text)

    def _numstat(self, ctx: ToolContext, *extra: str) -> dict[str, tuple[str, str]]:
        try:
            outcome = self._git(ctx, "diff", *extra, "--numstat", "-z", "--no-color", *safe_git.NO_DIFF_PROGRAMS)
        except FileNotFoundError:
            return {}
        return parse_numstat(outcome.output) if outcome.ok else {}

    def _describe(
        self, status: Status, staged_counts: dict[str, tuple[str, str]], unstaged_counts: dict[str, tuple[str, str]]
    ) -> str:
        lines = []
        if status.head is None:
            short = (status.oid or "")[:10]
            lines.append(f"HEAD is detached at {short}." if short else "HEAD is detached.")
        elif status.oid is None:
            lines.append(f"Branch: {shown_name(status.head)} (no commits yet)")
        else:
            lines.append(f"Branch: {shown_name(status.head)}")
        if status.upstream:
            upstream = shown_name(status.upstream)
            if status.ahead or status.behind:
                lines.append(f"Upstream: {upstream}, {status.ahead} ahead, {status.behind} behind")
            else:
                lines.append(f"Upstream: {upstream}, up to date")
        elif status.head is not None:
            lines.append("Upstream: none")
        if not (status.staged or status.unstaged or status.conflicted or status.untracked):
            lines.append("Working tree clean: nothing staged, modified or untracked.")
            return "\n".join(lines)
        for title, entries, counts in (
            ("Conflicted", status.conflicted, {}),
            ("Staged", status.staged, staged_counts),
            ("Not staged", status.unstaged, unstaged_counts),
        ):
            if not entries:
                continue
            stat = f", {totals(counts)}" if counts else ""
            lines.append(f"{title} ({len(entries)}{stat}):")
            lines += [f"  {e.describe(counts)}" for e in entries[:MAX_LISTED]]
            if len(entries) > MAX_LISTED:
                lines.append(f"  ... and {len(entries) - MAX_LISTED} more")
        if status.untracked:
            lines.append(f"Untracked ({len(status.untracked)}):")
            lines += [f"  {shown_name(p)}" for p in status.untracked[:MAX_LISTED]]
            if len(status.untracked) > MAX_LISTED:
                lines.append(f"  ... and {len(status.untracked) - MAX_LISTED} more")
        return "\n".join(lines)

    def _summary(self, status: Status) -> str:
        parts = [shown_name(status.head) if status.head else "detached"]
        for label, n in (("staged", len(status.staged)), ("modified", len(status.unstaged)),
                         ("conflicted", len(status.conflicted)), ("untracked", len(status.untracked))):
            if n:
                parts.append(f"{n} {label}")
        if len(parts) == 1:
            parts.append("clean")
        return ", ".join(parts)
