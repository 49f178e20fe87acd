"""git_diff: what changed, line by line, with the line numbers on both sides.

git_status says a file changed by +1 -1; this says which line and what it said before.
The model gets each hunk with its old and new line numbers written out, credentials masked
(each side of a hunk masked as one text, so a key over several lines is caught); the screen
pane gets the same diff as a plain unified diff, which it colours.

A repository's own configuration can name programs that git runs while it diffs (an
external diff, a textconv, a clean filter, an fsmonitor hook). A repository is untrusted,
so every one of them is switched off for these calls.
"""

from __future__ import annotations

import codecs
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent.tools.base import ToolContext, ToolInputError, ToolResult, optional_str
from agent.tools.git import GIT_TIMEOUT, run_git
from agent.tools.guard import guarded
from agent.tools.masking import Masked, masking_note
from agent.tools.names import given_name, shown_name
from agent.tools.paths import repository_root, resolve_in_repository
from agent.tools.toolchain.processes import Outcome
from memory.secrets import mask_secrets

MAX_TEXT_LINES = 800
MAX_TEXT_CHARS = 40_000
MAX_SCREEN_CHARS = 200_000
MAX_UNTRACKED = 20
# A commit, a branch, a tag, HEAD~2, main@{yesterday}: git's own syntax, never an option.
REVISION = re.compile(r"[\w][\w./~^@{}:+-]{0,199}")
HUNK = re.compile(r"^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@(.*)$")
# git reads NO_LAZY_FETCH from 2.44: a partial clone does not reach the network for a blob
DIFF_ENV = {"GIT_NO_LAZY_FETCH": "1", "GIT_EXTERNAL_DIFF": ""}


def hardened(repo: Path, ctx: ToolContext, *args: str) -> Outcome:
    """git with every program its configuration could start switched off (memory.safe_git)."""
    return run_git(repo, ctx, *args, env=DIFF_ENV)


@dataclass
class FileDiff:
    header: list[str]  # "diff --git", index, ---/+++ lines as git wrote them
    name: str
    hunks: list[list[str]] = field(default_factory=list)
    binary: bool = False
    added: int = 0
    removed: int = 0
    note: str = ""  # "new file", "deleted", "renamed from x"


def parse_diff(raw: str) -> list[FileDiff]:
    files: list[FileDiff] = []
    current: FileDiff | None = None
    for line in raw.split("\n"):
        if line.startswith("diff --git "):
            current = FileDiff([line], _name_of(line))
            files.append(current)
            continue
        if current is None:
            continue
        if not current.hunks:
            if line.startswith("@@"):
                current.hunks.append([line])
            elif line.startswith("Binary files "):
                current.binary = True
                current.header.append(line)
            else:
                current.header.append(line)
                _read_header(current, line)
            continue
        if line.startswith("@@"):
            current.hunks.append([line])
        elif line[:1] in ("+", "-", " ", "\\"):
            current.hunks[-1].append(line)
            current.added += line.startswith("+")
            current.removed += line.startswith("-")
    return files


def _name_of(line: str) -> str:
    # diff --git a/x b/x; a name with spaces is ambiguous here, and the +++ line fixes it
    rest = line[len("diff --git "):]
    if rest.startswith('"') and rest.endswith('"'):  # git quoted both names: the +++ line says
        return _git_unquoted(rest[rest.rindex(' "') + 1:])[2:] if ' "' in rest else rest
    half = rest[len(rest) // 2 + 1:] if rest.startswith("a/") else rest
    return half[2:] if half.startswith("b/") else half


def _git_unquoted(text: str) -> str:
    """A path as git writes it in a diff header: "a/caf\303\251\n" in C quotes when it holds
    a control, a quote or a byte past ASCII; the name itself, for shown_name to show."""
    if len(text) < 2 or not text.startswith('"') or not text.endswith('"'):
        return text
    raw, _ = codecs.escape_decode(text[1:-1].encode("utf-8", "surrogateescape"))
    return os.fsdecode(raw)


def _read_header(diff: FileDiff, line: str) -> None:
    side = _git_unquoted(line[4:]) if line[:4] in ("+++ ", "--- ") else ""
    if (line.startswith("+++ ") and side.startswith("b/")) or (line.startswith("--- ") and side.startswith("a/") and diff.note == "deleted"):
        diff.name = side[2:]
    elif line.startswith("new file mode"):
        diff.note = "new file"
    elif line.startswith("deleted file mode"):
        diff.note = "deleted"
    elif line.startswith("rename from "):
        diff.note = f"renamed from {shown_name(_git_unquoted(line[len('rename from '):]))}"
    elif line.startswith("old mode "):
        diff.note = diff.note or "mode changed"


def _masked_hunk(hunk: list[str], name: str) -> tuple[list[str], list[Masked]]:
    """The hunk with each side masked as one text; a credential's lines keep their places."""
    body = hunk[1:]
    old_rows = [i for i, line in enumerate(body) if line[:1] in (" ", "-")]
    new_rows = [i for i, line in enumerate(body) if line[:1] in (" ", "+")]
    out = list(body)
    hits: list[Masked] = []
    match = HUNK.match(hunk[0])
    old_start, new_start = (int(match.group(1)), int(match.group(2))) if match else (1, 1)
    for rows, start, side in ((old_rows, old_start, "old"), (new_rows, new_start, "new")):
        text = "\n".join(body[i][1:] for i in rows)
        masked, found = mask_secrets(text)
        if not found:
            continue
        for i, line in zip(rows, masked.split("\n")):
            if out[i][1:] != line:
                # a context line masked on one side is masked on the other too
                out[i] = out[i][0] + line
        for secret in found:
            number = start + text.count("\n", 0, secret.start)
            hits.append(Masked(secret.kind, f"{name} ({side}) line", number))
    return [hunk[0], *out], hits


def numbered(hunk: list[str]) -> list[str]:
    """A hunk for the model: each line with its number, old for a removed line, new for the rest."""
    match = HUNK.match(hunk[0])
    if not match:
        return hunk
    old, new = int(match.group(1)), int(match.group(2))
    rows = [hunk[0]]
    for line in hunk[1:]:
        sign, text = line[:1], line[1:]
        if sign == "-":
            rows.append(f"-{old:>5}: {text}")
            old += 1
        elif sign == "+":
            rows.append(f"+{new:>5}: {text}")
            new += 1
        elif sign == " ":
            rows.append(f" {new:>5}: {text}")
            old += 1
            new += 1
        else:
            rows.append(line)  # "\ No newline at end of file"
    return rows


def _describe(diff: FileDiff) -> str:
    what = "binary file, not shown" if diff.binary else f"+{diff.added} -{diff.removed}"
    note = f", {diff.note}" if diff.note else ""
    return f"{shown_name(diff.name)} ({what}{note})"


class GitDiffTool:
    name = "git_diff"

    def definition(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": (
                "What changed, line by line (`-  141:` a removed line by its old number, "
                "`+  141:` an added one by its new number): by default staged and unstaged "
                "changes against HEAD. Also drawn on the screen pane."
            ),
            "input_schema": {
                "type": "object",
                "properties": {
                    "path": {"type": "string", "description": "A file or folder."},
                    "staged": {"type": "boolean", "description": "Only the staged changes."},
                    "against": {"type": "string", "description": "A commit, branch or tag to compare the working tree with."},
                },
            },
        }

    def summarize_input(self, input: dict[str, Any]) -> str:
        if not isinstance(input, dict):
            return "diff"
        parts = []
        if input.get("against"):
            parts.append(f"against {str(input['against'])[:40]}")
        elif input.get("staged"):
            parts.append("staged")
        if input.get("path"):
            parts.append(str(input["path"])[:60])
        return " ".join(parts) or "staged and unstaged"

    def run(self, input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        return guarded(self.name, lambda: self._run(input, ctx), ctx.cancel)

    def _run(self, input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        if not isinstance(input, dict):
            raise ToolInputError("Error: the input must be an object.")
        staged = input.get("staged")
        if staged is not None and not isinstance(staged, bool):
            raise ToolInputError(f"Error: staged must be true or false, got {staged!r}.")
        against = optional_str(input, "against")
        repo = ctx.base  # git runs in the session's root descriptor, never in what took the path's place
        if not repo.is_dir():
            return ToolResult(text=f"Error: the repository folder {ctx.repo} does not exist.", is_error=True, summary="no folder")
        try:
            inside = hardened(repo, ctx, "rev-parse", "--is-inside-work-tree")
        except FileNotFoundError:
            return ToolResult(text="git is not installed on this machine (or not on PATH), so there is no diff to show.", is_error=True, summary="no git")
        if inside.output.strip() != "true":
            # outside a repository `git diff` would compare files instead (--no-index)
            return ToolResult(text=f"{ctx.repo} is not a git repository, so there is no diff to show.", summary="not a repository")
        pathspec: list[str] = []
        shown_path = ""
        path = optional_str(input, "path")
        path = given_name(path) if path is not None else None  # as a listing showed it
        if path is not None and path.strip("/") not in ("", "."):
            relative = resolve_in_repository(path, repo, Path(ctx.repo)).relative_to(repository_root(repo)).as_posix()
            if relative not in ("", "."):
                pathspec = ["--", f":(literal){relative}"]
                shown_path = shown_name(relative)
        try:
            return self._diff(repo, ctx, bool(staged), against, pathspec, shown_path)
        except FileNotFoundError:
            return ToolResult(text="git is not installed on this machine (or not on PATH), so there is no diff to show.", is_error=True, summary="no git")

    def _diff(self, repo: Path, ctx: ToolContext, staged: bool, against: str | None, pathspec: list[str], shown_path: str) -> ToolResult:
        # --relative: paths as seen from the folder devagent was opened in, which may be a
        # folder inside the repository, and only the changes under it
        options = ["diff", "--no-ext-diff", "--no-textconv", "--no-color", "--find-renames", "--unified=3", "--relative"]
        sections: list[tuple[str, list[str]]] = []
        if against is not None:
            sha = self._revision(repo, ctx, against)
            sections.append((f"Against {against} ({sha[:10]})" + (", staged only" if staged else ""), [*options, *(["--cached"] if staged else []), sha]))
        elif staged:
            sections.append(("Staged", [*options, "--cached"]))
        else:
            sections += [("Staged", [*options, "--cached"]), ("Not staged", options)]
        parsed: list[tuple[str, list[FileDiff]]] = []
        for title, argv in sections:
            outcome = hardened(repo, ctx, *argv, *pathspec)
            failure = self._failure(outcome, Path(ctx.repo))
            if failure is not None:
                return failure
            parsed.append((title, parse_diff(outcome.output)))
        return self._report(parsed, self._untracked(repo, ctx, pathspec) if against is None and not staged else [], shown_path)

    def _revision(self, repo: Path, ctx: ToolContext, against: str) -> str:
        if not REVISION.fullmatch(against) or ".." in against:
            raise ToolInputError(f"Error: {shown_name(against)[:200]!r} is not a commit, branch or tag name (one revision, such as main, HEAD~2 or a commit id).")
        outcome = hardened(repo, ctx, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{against}^{{commit}}")
        if outcome.returncode != 0 or not outcome.output.strip():
            raise ToolInputError(f"Error: there is no commit, branch or tag {against!r} in this repository.")
        return outcome.output.strip().splitlines()[0]

    def _failure(self, outcome: Outcome, repo: Path) -> ToolResult | None:
        if outcome.cancelled:
            return ToolResult(text="git diff was cancelled.", is_error=True, summary="cancelled")
        if outcome.timed_out:
            return ToolResult(text=f"git diff took longer than {GIT_TIMEOUT:.0f} seconds and was stopped.", is_error=True, summary="timed out")
        if outcome.returncode != 0:
            message = outcome.output.strip()
            if "not a git repository" in message:
                return ToolResult(text=f"{repo} is not a git repository, so there is no diff to show.", summary="not a repository")
            first = message.splitlines()[0] if message else f"exit code {outcome.returncode}"
            return ToolResult(text=f"git diff failed: {first}", is_error=True, summary="git failed", log=message)
        return None

    def _untracked(self, repo: Path, ctx: ToolContext, pathspec: list[str]) -> list[str]:
        outcome = hardened(repo, ctx, "ls-files", "--others", "--exclude-standard", "-z", *pathspec)
        return sorted(p for p in outcome.output.split("\0") if p) if outcome.ok else []

    def _report(self, parsed: list[tuple[str, list[FileDiff]]], untracked: list[str], shown_path: str) -> ToolResult:
        where = f" in {shown_path}" if shown_path else ""
        lines: list[str] = []
        screen: list[str] = []
        hits: list[Masked] = []
        left_out: list[FileDiff] = []
        chars = 0
        full = False
        files = added = removed = 0
        for title, diffs in parsed:
            if not diffs:
                continue
            total_added = sum(d.added for d in diffs)
            total_removed = sum(d.removed for d in diffs)
            files += len(diffs)
            added += total_added
            removed += total_removed
            lines.append(f"{title}: {len(diffs)} file{'s' if len(diffs) != 1 else ''}, +{total_added} -{total_removed}")
            screen.append(f"# {title}")
            for diff in diffs:
                masked_hunks = []
                for hunk in diff.hunks:
                    masked, found = _masked_hunk(hunk, shown_name(diff.name))
                    masked_hunks.append(masked)
                    hits += found
                screen += diff.header + [row for hunk in masked_hunks for row in hunk]
                block = ["", _describe(diff)] + [row for hunk in masked_hunks for row in numbered(hunk)]
                size = sum(len(row) + 1 for row in block)
                if full or (lines and (len(lines) + len(block) > MAX_TEXT_LINES or chars + size > MAX_TEXT_CHARS)):
                    full = True
                    left_out.append(diff)
                    continue
                lines += block
                chars += size
            lines.append("")
        if untracked:
            shown = ", ".join(shown_name(p) for p in untracked[:MAX_UNTRACKED])
            more = f" and {len(untracked) - MAX_UNTRACKED} more" if len(untracked) > MAX_UNTRACKED else ""
            lines.append(f"Untracked (new files git does not follow yet, not in the diff; read them with read_file): {shown}{more}")
        if not files:
            text = f"No changes{where}." + (f"\n{lines[-1]}" if untracked else "")
            return ToolResult(text=text, summary="no changes")
        if left_out:
            names = ", ".join(_describe(d) for d in left_out[:30])
            more = f" and {len(left_out) - 30} more" if len(left_out) > 30 else ""
            lines.append(f"Cut here: the diff is too long to send whole; {len(left_out)} file{'s' if len(left_out) != 1 else ''} not shown: {names}{more}. Ask for one with path.")
        note = masking_note(hits)
        if note:
            lines.append(note)
        content = "\n".join(screen)
        if len(content) > MAX_SCREEN_CHARS:
            content = content[:MAX_SCREEN_CHARS].rsplit("\n", 1)[0] + "\n[... cut here: too long to show whole ...]"
        title = "Diff" + where
        summary = f"{files} file{'s' if files != 1 else ''}, +{added} -{removed}"
        return ToolResult(text="\n".join(lines).strip(), summary=summary, screen=(title, content, "diff"))
