"""read_file: the model reads source files of the repository, and nothing else.

Paths come from the model, so they are treated as untrusted input. They are refused by
their parts before the filesystem interprets them, by the memory store's own check, and the
resolved path is checked against the repository root with a trailing separator, so
neither `..`, a sibling folder sharing a prefix, nor a symlink can lead outside.

Dotfiles other than `.git` are readable: `.env.example`, `.editorconfig`, `.github/` and
`.gitignore` are project files the developer maintains and asks about. A `.env` with real
credentials is readable too, because every result passes the secret filter, which masks
the values and says where they were. `.git` is refused at any depth: it holds objects,
hooks and remote URLs with tokens, none of which is source, and `git_status` covers the
state.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agent.cancel import Cancellation
from agent.tools.base import ToolContext, ToolInputError, ToolResult, optional_int, required_str
from agent.tools.guard import guarded
from agent.tools.masking import mask_text, masking_note
from agent.tools.names import given_name, shown_name
from agent.tools.paths import (
    MAX_FILE_BYTES,
    folder_entries,
    hard_link_refusal,
    os_problem,
    quoted,
    resolve_in_repository,
)
from agent.tools.text_decoding import decode

MAX_LINES = 400
MAX_CHARS = 40_000  # one page; a minified bundle can fit 1 MB into a single line
MAX_LINE_CHARS = 2_000
MAX_LISTED = 100


class ReadFileTool:
    name = "read_file"

    def __init__(self) -> None:
        # told of each text file read, with its bytes (the text editor, when it is on)
        self.after_read: Callable[[Path, bytes], None] | None = None

    def definition(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": (
                f"A text file with line numbers, in pages of {MAX_LINES} lines (start_line for "
                "the next), or what a folder holds (\".\" the repository root)."
            ),
            "input_schema": {
                "type": "object",
                "properties": {
                    "path": {"type": "string", "description": "Relative to the repository root."},
                    "start_line": {"type": "integer", "minimum": 1},
                    "end_line": {"type": "integer", "minimum": 1, "description": "Inclusive."},
                },
                "required": ["path"],
            },
        }

    def summarize_input(self, input: dict[str, Any]) -> str:
        if not isinstance(input, dict):
            return "read_file"
        path = str(input.get("path", ""))[:80]
        start, end = input.get("start_line"), input.get("end_line")
        if start or end:
            return f"{path}:{start or 1}-{end or ''}".rstrip("-")
        return path

    def run(self, input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        return guarded(self.name, lambda: self._run(input, ctx), ctx.cancel)

    def _run(self, input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        if not isinstance(input, dict):
            raise ToolInputError("Error: the input must be an object with a path.")
        path = given_name(required_str(input, "path"))  # as a listing showed it: quoted, escaped
        start = optional_int(input, "start_line")
        end = optional_int(input, "end_line")
        if start is not None and start < 1:
            raise ToolInputError("Error: start_line counts from 1.")
        if end is not None and end < 1:
            raise ToolInputError("Error: end_line counts from 1.")
        if start is not None and end is not None and end < start:
            raise ToolInputError(f"Error: end_line {end} is before start_line {start}.")
        repo = ctx.base  # the session's root descriptor: a folder put in the repository's place is not read
        if "." in path and set(path.split("/")) <= {".", ""}:
            # ".", "./": the root, which the model asks for first in a repository it does not know
            try:
                return self._listing(repo, "")
            except OSError as exc:
                return ToolResult(text=os_problem(exc, "."), is_error=True, summary="cannot read")
        full = resolve_in_repository(path, repo, Path(ctx.repo))
        try:
            return self._read(full, path.strip("/"), start, end, ctx.cancel)
        except OSError as exc:
            return ToolResult(text=os_problem(exc, path.strip("/")), is_error=True, summary="cannot read")

    def _read(self, full: Path, path: str, start: int | None, end: int | None, cancel: Cancellation | None = None) -> ToolResult:
        shown = shown_name(path)
        try:
            info = full.stat()
        except FileNotFoundError:
            return ToolResult(text=f"Error: there is no {quoted(path)} in the repository.", is_error=True, summary="not found")
        if stat.S_ISDIR(info.st_mode):
            return self._listing(full, shown)
        if not stat.S_ISREG(info.st_mode):
            return ToolResult(text=f"Error: {shown} is not a regular file.", is_error=True, summary="not a file")
        if info.st_size > MAX_FILE_BYTES:
            return ToolResult(
                text=f"Error: {shown} is {info.st_size / 1e6:.1f} MB, too large to read (limit {MAX_FILE_BYTES / 1e6:.0f} MB).",
                is_error=True, summary="too large",
            )
        # O_NOFOLLOW: the path was checked resolved; a symlink swapped in since is not followed.
        # O_NONBLOCK and fstat: a pipe swapped in since the stat must not block the turn.
        fd = os.open(full, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
        opened = os.fstat(fd)
        if not stat.S_ISREG(opened.st_mode):
            os.close(fd)
            return ToolResult(text=f"Error: {shown} is not a regular file.", is_error=True, summary="not a file")
        if opened.st_nlink > 1:  # its other names may be outside the repository (paths.hard_link_refusal)
            os.close(fd)
            return ToolResult(text=hard_link_refusal(shown, opened.st_nlink), is_error=True, summary="hard link")
        with os.fdopen(fd, "rb") as handle:
            data = handle.read(MAX_FILE_BYTES + 1)
        text, encoding_note = decode(data)
        if text is None:
            return ToolResult(
                text=f"{shown} is a binary file ({len(data):,} bytes); read_file shows text only.",
                is_error=True, summary="binary",
            )
        if self.after_read is not None:
            self.after_read(full, data)
        if text == "":
            return ToolResult(text=f"{shown} is empty.", summary="empty")
        return self._page(text, shown, start, end, encoding_note, cancel)

    def _page(self, text: str, shown: str, start: int | None, end: int | None, encoding_note: str, cancel: Cancellation | None = None) -> ToolResult:
        # Masked over the whole file, so a key spanning a page break is still caught and the
        # note's line numbers are the file's own.
        masked, hits = mask_text(text, "line", cancel=cancel)
        lines = masked.splitlines()
        total = len(lines)
        first = start or 1
        if first > total:
            raise ToolInputError(f"Error: {shown} has only {total:,} line{'s' if total != 1 else ''}; start_line {first} is past its end.")
        last = min(end or total, total, first + MAX_LINES - 1)
        width = len(str(last))
        out, shown_last = numbered_window(lines, first, last, lambda number, line: f"{number:>{width}}\t{line}")
        header = f"{shown} (lines {first:,}-{shown_last:,} of {total:,})"
        footer = []
        wanted_last = min(end or total, total)
        if shown_last < wanted_last:
            footer.append(
                f"Showing lines {first:,}-{shown_last:,} of {total:,}; ask for start_line={shown_last + 1} to continue."
            )
        if encoding_note:
            footer.append(f"Note: {encoding_note}")
        visible = [h for h in hits if first <= h.line <= shown_last]
        note = masking_note(visible)
        if note:
            footer.append(note)
        body = "\n".join([header, *out])
        if footer:
            body += "\n\n" + "\n".join(footer)
        return ToolResult(text=body, summary=f"lines {first}-{shown_last} of {total}")

    def _listing(self, folder: Path, shown: str) -> ToolResult:
        entries = folder_entries(folder)
        label = shown or "The repository root"
        if not entries:
            return ToolResult(text=f"{label} is an empty folder.", summary="empty folder")
        listed = entries[:MAX_LISTED]
        more = f"\n... and {len(entries) - MAX_LISTED} more" if len(entries) > MAX_LISTED else ""
        count = f"{len(entries)} entr{'y' if len(entries) == 1 else 'ies'}"
        return ToolResult(
            text=f"{label} is a folder ({count}). It holds:\n" + "\n".join(listed) + more,
            summary=f"folder, {count}",
        )


def numbered_window(lines: list[str], first: int, last: int, row: Callable[[int, str], str]) -> tuple[list[str], int]:
    """Lines first..last (1-based) as `row` numbers them, each cut at MAX_LINE_CHARS, until
    MAX_CHARS: the rows and the number of the last one shown (first - 1 when none)."""
    out: list[str] = []
    chars, shown_last = 0, first - 1
    for number in range(first, last + 1):
        line = lines[number - 1]
        if len(line) > MAX_LINE_CHARS:
            line = line[:MAX_LINE_CHARS] + f" [... line cut: {len(line):,} characters]"
        text = row(number, line)
        if out and chars + len(text) > MAX_CHARS:
            break
        out.append(text)
        chars += len(text) + 1
        shown_last = number
    return out, shown_last
