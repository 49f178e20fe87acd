"""git_status: where the working tree stands, read through memory.git (libgit2, no git program)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent.tools.base import ToolContext, ToolResult
from agent.tools.guard import guarded
from agent.tools.names import shown_name
from memory.git.reading import GitUnreadable, ask

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
CONFLICT_NAMES = {
    "DD": "both deleted",
    "AU": "added by us",
    "UD": "deleted by them",
    "UA": "added by them",
    "DU": "deleted by us",
    "AA": "both added",
    "UU": "both modified",
}


@dataclass
class Entry:
    path: str
    change: str
    original: str | None = None
    added: int | None = None  # None: not counted (binary, or content this clone lacks)
    removed: int | None = None
    binary: bool = False

    def describe(self) -> str:
        # a name the repository chose: quoted and escaped when it holds a newline or a control
        name = f"{shown_name(self.original)} -> {shown_name(self.path)}" if self.original else shown_name(self.path)
        stat = ""
        if self.binary:
            stat = " (binary)"
        elif self.added is not None and self.removed is not None:
            stat = f" (+{self.added} -{self.removed})"
        return f"{self.change}: {name}{stat}"

    @classmethod
    def from_reader(cls, raw: dict[str, Any]) -> Entry:
        return cls(raw["path"], CHANGE_NAMES.get(raw["change"], raw["change"]), raw.get("original"),
                   raw.get("added"), raw.get("removed"), bool(raw.get("binary")))


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

    @classmethod
    def from_reader(cls, raw: dict[str, Any]) -> Status:
        return cls(
            raw.get("head"), raw.get("oid"), raw.get("upstream"), raw.get("ahead", 0), raw.get("behind", 0),
            [Entry.from_reader(e) for e in raw["staged"]], [Entry.from_reader(e) for e in raw["unstaged"]],
            [Entry(c["path"], CONFLICT_NAMES.get(c["code"], "conflict")) for c in raw["conflicted"]],
            list(raw["untracked"]),
        )


def totals(entries: list[Entry]) -> str:
    counted = [e for e in entries if e.binary or e.added is not None]
    added = sum(e.added or 0 for e in counted if not e.binary)
    removed = sum(e.removed or 0 for e in counted if not e.binary)
    files = len(counted)
    return f"{files} file{'s' if files != 1 else ''}, +{added} -{removed}"


def cancelled_check(ctx: ToolContext) -> Any:
    cancel = ctx.cancel
    return (lambda: cancel.cancelled) if cancel is not None else None


def unreadable(exc: GitUnreadable, what: str) -> ToolResult:
    """The model's sentence for a read that did not happen; `what` is "git status", "git diff"..."""
    if exc.kind == "not-a-repository":
        return ToolResult(text=f"{exc.folder} is not a git repository, so there is no {what} to show.", summary="not a repository")
    summaries = {"not-yours": "not your repository", "timed-out": "timed out", "cancelled": "cancelled", "no-folder": "no folder",
                 "bare": "bare repository"}
    return ToolResult(text=str(exc), is_error=True, summary=summaries.get(exc.kind, "git failed"), log=exc.detail)


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

    def _run(self, ctx: ToolContext) -> ToolResult:
        repo = ctx.base  # read through the session's root descriptor, never what took the path's place
        if not repo.is_dir():
            return ToolResult(text=f"The folder {ctx.repo} does not exist, so there is no git status to show.", is_error=True, summary="no folder")
        try:
            raw = ask(repo, {"op": "status"}, timeout=GIT_TIMEOUT, cancelled=cancelled_check(ctx), shown=Path(ctx.repo))
        except GitUnreadable as exc:
            if exc.kind == "not-a-repository":
                return ToolResult(text=f"{ctx.repo} is not a git repository, so there is no branch or change list to show.", summary="not a repository")
            return unreadable(exc, "git status")
        status = Status.from_reader(raw)
        text = self._describe(status)
        return ToolResult(text=text, summary=self._summary(status), log=text)

    def _describe(self, status: Status) -> str:
        lines = []
        if status.head is None:
            short = (status.oid or "")[:10]
            lines.append(f"HEAD is detached at {short}." if short else "HEAD is detached.")
        elif status.oid is None:
            lines.append(f"Branch: {shown_name(status.head)} (no commits yet)")
        else:
            lines.append(f"Branch: {shown_name(status.head)}")
        if status.upstream:
            if status.ahead or status.behind:
                lines.append(f"Upstream: {shown_name(status.upstream)}, {status.ahead} ahead, {status.behind} behind")
            else:
                lines.append(f"Upstream: {shown_name(status.upstream)}, up to date")
        elif status.head is not None:
            lines.append("Upstream: none")
        if not (status.staged or status.unstaged or status.conflicted or status.untracked):
            lines.append("Working tree clean: nothing staged, modified or untracked.")
            return "\n".join(lines)
        for title, entries in (("Conflicted", status.conflicted), ("Staged", status.staged), ("Not staged", status.unstaged)):
            if not entries:
                continue
            counted = title != "Conflicted" and any(e.binary or e.added is not None for e in entries)
            stat = f", {totals(entries)}" if counted else ""
            lines.append(f"{title} ({len(entries)}{stat}):")
            lines += [f"  {e.describe()}" for e in entries[:MAX_LISTED]]
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
