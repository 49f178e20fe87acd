"""git_diff: what changed, line by line, with the line numbers on both sides.

git_status says a file changed by +1 -1; this says which line and what it said before.
The model gets each hunk with its old and new line numbers written out, credentials masked
(each side of a hunk masked as one text, so a key over several lines is caught); the screen
pane gets the same diff as a plain unified diff, which it colours.

The diff is read through memory.git (libgit2), which starts none of the programs a
repository's configuration can name (an external diff, a textconv, a clean filter, an
fsmonitor hook, a partial clone's fetch).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent.tools.base import ToolContext, ToolInputError, ToolResult, optional_str
from agent.tools.git import GIT_TIMEOUT, cancelled_check, unreadable
from agent.tools.guard import guarded
from agent.tools.masking import Masked, masking_note
from agent.tools.names import given_name, shown_name
from agent.tools.paths import repository_root, resolve_in_repository
from memory.git.reading import GitUnreadable, ask
from memory.secrets import mask_secrets

MAX_TEXT_LINES = 800
MAX_TEXT_CHARS = 40_000
MAX_SCREEN_CHARS = 200_000
MAX_UNTRACKED = 20
# A commit, a branch, a tag, HEAD~2, main@{yesterday}: git's own syntax, never an option.
REVISION = re.compile(r"[\w][\w./~^@{}:+-]{0,199}")
HUNK = re.compile(r"^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@(.*)$")


@dataclass
class FileDiff:
    header: list[str]  # "diff --git", index, ---/+++ lines as git writes them
    name: str
    hunks: list[list[str]] = field(default_factory=list)
    binary: bool = False
    added: int = 0
    removed: int = 0
    note: str = ""  # "new file", "deleted", "renamed from x"
    cut: bool = False  # too long to send back from the reader: counted, not shown
    missing: bool = False  # a partial clone without its content: nothing is fetched

    @classmethod
    def from_reader(cls, raw: dict[str, Any]) -> FileDiff:
        note = raw["note"]
        if raw.get("original") is not None:  # "renamed" or "copied", from a name the repository chose
            note = f"{note} from {shown_name(raw['original'])}"
        return cls(list(raw["header"]), raw["name"], [list(h) for h in raw["hunks"]], bool(raw["binary"]),
                   raw["added"], raw["removed"], note, bool(raw["cut"]), bool(raw["missing"]))


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
    if diff.missing:
        what = "its content is not in this partial clone, and is not fetched"
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
        repo = ctx.base  # read through the session's root descriptor, never what took the path's place
        if not repo.is_dir():
            return ToolResult(text=f"Error: the repository folder {ctx.repo} does not exist.", is_error=True, summary="no folder")
        within = ""
        shown_path = ""
        path = optional_str(input, "path")
        path = given_name(path) if path is not None else None  # as a listing showed it
        if path is not None and path.strip("/") not in ("", "."):
            relative = resolve_in_repository(path, repo, Path(ctx.repo)).relative_to(repository_root(repo)).as_posix()
            if relative not in ("", "."):
                within = relative
                shown_path = shown_name(relative)
        if against is not None and (not REVISION.fullmatch(against) or ".." in against):
            raise ToolInputError(f"Error: {shown_name(against)[:200]!r} is not a commit, branch or tag name (one revision, such as main, HEAD~2 or a commit id).")
        if against is not None:
            sections = [{"against": against, "staged": bool(staged)}]
        elif staged:
            sections = [{"staged": True}]
        else:
            sections = [{"staged": True}, {"staged": False}]
        request = {"op": "diff", "sections": sections, "path": within, "untracked": against is None and not staged}
        try:
            raw = ask(repo, request, timeout=GIT_TIMEOUT, cancelled=cancelled_check(ctx), shown=Path(ctx.repo))
        except GitUnreadable as exc:
            if exc.kind == "revision":
                raise ToolInputError(f"Error: there is no commit, branch or tag {against!r} in this repository.") from None
            return unreadable(exc, "diff")
        parsed: list[tuple[str, list[FileDiff]]] = []
        for section, found in zip(sections, raw["sections"]):
            if against is not None:
                title = f"Against {against} ({found['commit'][:10]})" + (", staged only" if staged else "")
            else:
                title = "Staged" if section["staged"] else "Not staged"
            parsed.append((title, [FileDiff.from_reader(f) for f in found["files"]]))
        return self._report(parsed, list(raw["untracked"]), shown_path)

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
                if full or diff.cut or (lines and (len(lines) + len(block) > MAX_TEXT_LINES or chars + size > MAX_TEXT_CHARS)):
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
