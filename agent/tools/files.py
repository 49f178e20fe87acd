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

import errno
import os
import re
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agent.cancel import Cancellation
from agent.text_decoding import decode
from agent.tools.base import ToolContext, ToolInputError, ToolResult, optional_int, required_str
from agent.tools.guard import guarded
from agent.tools.masking import mask_text, masking_note
from memory.paths import part_problem

MAX_LINES = 400
MAX_CHARS = 40_000  # one page; a minified bundle can fit 1 MB into a single line
MAX_LINE_CHARS = 2_000
MAX_FILE_BYTES = 10_000_000
MAX_LISTED = 100


class PathRefused(ToolInputError):
    pass


QUOTE_CHARS = 200  # a path echoed in an error; a 1 MB path must not come back whole


def quoted(path: str) -> str:
    shown = display_name(path)
    return shown if len(shown) <= QUOTE_CHARS else shown[:QUOTE_CHARS] + f"... ({len(shown):,} characters)"


def display_name(name: str) -> str:
    """A file name as valid UTF-8 text: bytes that are not UTF-8 appear as \xe9 escapes.

    read_file takes such an escape back in a path, so the model can open what a listing
    showed it.
    """
    try:
        return os.fsencode(name).decode("utf-8", "backslashreplace")
    except UnicodeEncodeError:  # a lone surrogate that no file name can hold
        return name.encode("utf-8", "backslashreplace").decode("utf-8")


_BYTE_ESCAPE = re.compile(rb"\\x([89a-fA-F][0-9a-fA-F])")


def _unescape(part: str) -> str:
    # Only bytes 0x80-0xff: an escaped dot or slash stays a backslash, which is refused.
    if "\\x" not in part:
        return part
    try:
        raw = part.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return part
    return os.fsdecode(_BYTE_ESCAPE.sub(lambda m: bytes([int(m.group(1), 16)]), raw))


def _limit(root: Path, name: str, default: int) -> int:
    try:
        return os.pathconf(root, name)
    except (OSError, ValueError):
        return default


def _check_lengths(parts: list[str], path: str, root: Path) -> None:
    name_max = _limit(root, "PC_NAME_MAX", 255)
    path_max = _limit(root, "PC_PATH_MAX", 4096)
    total = len(os.fsencode(str(root)))
    for part in parts:
        try:
            size = len(os.fsencode(part))
        except UnicodeEncodeError:
            raise PathRefused(
                f"Error: {quoted(path)} holds a character that no file name can hold (a lone "
                "surrogate), so there is no such file. Copy the name from a folder listing."
            ) from None
        if size > name_max:
            raise PathRefused(
                f"Error: the name {quoted(part)} is {size:,} bytes long; file names here are at most "
                f"{name_max} bytes, so there is no such file."
            )
        total += size + 1
    if total >= path_max:
        raise PathRefused(
            f"Error: the path {quoted(path)} is {total:,} bytes long with the repository folder, past "
            f"this system's limit of {path_max:,} bytes, so there is no such file."
        )


def _parts(path: str, roots: tuple[Path, ...]) -> list[str]:
    """Splits a model-given path into parts, refusing anything that could steer it outside."""
    if path.startswith("/"):
        # An absolute path is fine if it names a place inside the repository, spelled either
        # the way the session was given it or resolved.
        for root in roots:
            prefix = str(root).rstrip("/") + "/"
            if path.startswith(prefix):
                path = path[len(prefix):]
                break
        else:
            raise PathRefused(f"Error: {quoted(path)} is outside the repository. Give a path relative to the repository root.")
    parts = [_unescape(p) for p in path.split("/")]
    while parts and parts[0] == ".":
        parts.pop(0)
    if not parts or parts == [""]:
        raise PathRefused("Error: give the path of a file in the repository, relative to its root.")
    for part in parts:
        if part.lower() == ".git":
            raise PathRefused(f"Error: {quoted(path)} is inside .git, which devagent does not open or change. Use git_status for the repository state.")
        problem = part_problem(part, hidden_ok=True)
        if problem:
            raise PathRefused(f"Error: {quoted(path)!r} is not an allowed path: {problem}.")
    return parts


def os_problem(exc: OSError, path: str) -> str:
    """A sentence for what the filesystem said about a path the model gave."""
    shown = quoted(path)
    if exc.errno == errno.ELOOP:
        return f"Error: {shown} is a symbolic link that leads back to itself (a loop), so there is nothing to read."
    if exc.errno == errno.ENAMETOOLONG:
        return f"Error: {shown} is longer than this system allows for a file name or path, so there is no such file."
    if exc.errno == errno.ENOTDIR:
        return f"Error: there is no {shown} in the repository: a part of it is a file, not a folder."
    if exc.errno in (errno.ENOENT,):
        return f"Error: there is no {shown} in the repository."
    if exc.errno in (errno.EACCES, errno.EPERM):
        return f"Error: {shown} cannot be read: permission denied."
    if exc.errno == errno.EILSEQ:
        return f"Error: {shown} is not a name this filesystem accepts, so there is no such file."
    return f"Error: {shown} could not be read: {exc.strerror or type(exc).__name__}."


def resolve_in_repository(path: str, repo: Path) -> Path:
    root = repo.resolve()
    parts = _parts(path, (root, Path(os.path.abspath(repo))))
    _check_lengths(parts, path, root)
    try:
        full = root.joinpath(*parts).resolve()
    except RuntimeError:  # Python 3.11 reports a symlink loop this way
        raise PathRefused(os_problem(OSError(errno.ELOOP, "loop"), path)) from None
    except OSError as exc:
        raise PathRefused(os_problem(exc, path)) from None
    # The separator matters: /work/repo-evil starts with /work/repo.
    if not (str(full) + os.sep).startswith(str(root).rstrip(os.sep) + os.sep):
        raise PathRefused(f"Error: {quoted(path)} leads outside the repository (through a symlink), so it is neither read nor changed.")
    inside = full.relative_to(root).parts
    if any(p.lower() == ".git" for p in inside):
        raise PathRefused(f"Error: {quoted(path)} leads into .git, which devagent does not open or change.")
    return full


class ReadFileTool:
    name = "read_file"

    def __init__(self) -> None:
        # told of each text file read, with its bytes (the text editor, when it is on)
        self.after_read: Callable[[Path, bytes], None] | None = None

    def definition(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": (
                "Read a text file of the repository, with line numbers. The path is relative "
                "to the repository root. Long files come in pages of up to "
                f"{MAX_LINES} lines; ask for the next page with start_line. Use start_line and "
                "end_line to read around a line a build error or a memory points at. Giving "
                "a folder lists what it holds (\".\" the repository root). Files under .git and files outside the "
                "repository cannot be read; credentials in a file are masked."
            ),
            "input_schema": {
                "type": "object",
                "properties": {
                    "path": {"type": "string", "description": "Path relative to the repository root, e.g. src/App/Program.cs"},
                    "start_line": {"type": "integer", "minimum": 1, "description": "First line to show (1-based)."},
                    "end_line": {"type": "integer", "minimum": 1, "description": "Last line to show, inclusive."},
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
        path = required_str(input, "path")
        start = optional_int(input, "start_line")
        end = optional_int(input, "end_line")
        if start is not None and start < 1:
            raise ToolInputError("Error: start_line counts from 1.")
        if end is not None and end < 1:
            raise ToolInputError("Error: end_line counts from 1.")
        if start is not None and end is not None and end < start:
            raise ToolInputError(f"Error: end_line {end} is before start_line {start}.")
        repo = Path(ctx.repo)
        if "." in path and set(path.split("/")) <= {".", ""}:
            # ".", "./": the root, which the model asks for first in a repository it does not know
            try:
                return self._listing(repo.resolve(), "")
            except OSError as exc:
                return ToolResult(text=os_problem(exc, "."), is_error=True, summary="cannot read")
        full = resolve_in_repository(path, repo)
        try:
            return self._read(full, path.strip("/"), start, end, ctx.cancel)
        except OSError as exc:
            return ToolResult(text=os_problem(exc, path.strip("/")), is_error=True, summary="cannot read")

    def _read(self, full: Path, path: str, start: int | None, end: int | None, cancel: Cancellation | None = None) -> ToolResult:
        shown = display_name(path)
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
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            return ToolResult(text=f"Error: {shown} is not a regular file.", is_error=True, summary="not a file")
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
        entries = []
        for child in sorted(folder.iterdir(), key=lambda p: p.name):
            if child.name.lower() == ".git":
                continue
            entries.append(display_name(child.name) + ("/" if child.is_dir() and not child.is_symlink() else ""))
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
