"""search: where something is in the repository, by its text.

ripgrep does the walk and the matching: it follows .gitignore, skips binary files, and is
fast on a repository of tens of thousands of files. What the model sees comes from devagent
itself: each file with a match shown is read as read_file reads it (confined, no link
followed, decoded the same way) and masked as a whole, so a private key whose lines match
one by one is still masked, and the lines and their numbers agree with read_file's.

A match that lies entirely inside a credential is dropped without a word, as if the line
did not match: otherwise a pattern tried letter by letter would read a masked value back.
"""

from __future__ import annotations

import base64
import json
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent.tools import ripgrep
from agent.tools.base import ToolContext, ToolInputError, ToolResult, optional_int, optional_str, required_str
from agent.tools.guard import guarded
from agent.tools.masking import Masked, mask_text_with_spans, masking_note
from agent.tools.names import given_name, shown_name
from agent.tools.paths import MAX_FILE_BYTES, PathRefused, os_problem, resolve_in_repository
from agent.tools.text_decoding import decode

MAX_SHOWN = 100  # matching lines shown in all
MAX_PER_FILE = 20
MAX_COUNTED = 100_000  # past this many matching lines the count stops
MAX_CONTEXT = 10
MAX_LINE_CHARS = 300
MAX_CHARS = 30_000
MAX_PATTERN_CHARS = 1_000
SEARCH_TIMEOUT = 30.0


def _bool(input: dict[str, Any], key: str) -> bool:
    value = input.get(key)
    if value is None:
        return False
    if not isinstance(value, bool):
        raise ToolInputError(f"Error: {key} must be true or false, got {value!r}.")
    return value


def rg_or_refuse() -> str:
    rg = ripgrep.rg_binary()
    if rg is None:
        raise ToolInputError(
            "Error: ripgrep (rg) is missing from devagent's environment, so the repository cannot be "
            "searched. Tell the user to reinstall devagent (uv sync brings it back)."
        )
    return rg


def search_scope(input: dict[str, Any], root: Path, named: Path | None = None) -> tuple[list[str], str]:
    """ripgrep's path argument (relative to the root) and how to name it, from `path`;
    `named`: the repository as the session names it (resolve_in_repository)."""
    path = optional_str(input, "path")
    path = given_name(path) if path is not None else None  # as a listing showed it
    if path is None or path.strip("/") in ("", "."):
        return [], ""
    full = resolve_in_repository(path, root, named)
    try:
        full.stat()
    except OSError as exc:
        raise PathRefused(os_problem(exc, path.strip("/"))) from None
    relative = full.relative_to(root).as_posix()
    if relative in ("", "."):
        return [], ""
    return ["--", relative], shown_name(relative)


def glob_arguments(input: dict[str, Any]) -> tuple[list[str], str]:
    glob = optional_str(input, "glob")
    if glob is None:
        return [], ""
    if "\0" in glob or "\n" in glob:
        raise ToolInputError("Error: glob holds a control character.")
    if any(part.lower() == ".git" for part in glob.lstrip("!").split("/")):
        raise ToolInputError("Error: .git is never searched; use git_status or git_diff for the repository state.")
    return ["--glob", glob], glob


def _path_of(data: dict[str, Any]) -> str:
    where = data.get("path") or {}
    if "text" in where:
        return str(where["text"])
    return os.fsdecode(base64.b64decode(where.get("bytes", "")))


def _line_bytes(data: dict[str, Any]) -> bytes:
    lines = data.get("lines") or {}
    if "text" in lines:
        return str(lines["text"]).encode("utf-8", "surrogateescape")
    return base64.b64decode(lines.get("bytes", ""))


@dataclass
class _FileHits:
    count: int = 0
    # line number -> the character ranges of its matches (for the credential check)
    lines: dict[int, list[tuple[int, int]]] = field(default_factory=dict)


@dataclass
class _Found:
    files: dict[str, _FileHits] = field(default_factory=dict)
    total: int = 0
    overflow: bool = False


def path_order(path: str) -> tuple[str, ...]:
    # By folder, as a directory walk in name order would meet them.
    return tuple(path.split("/"))


class _HardLink:
    """A matching file with more than one name, whose text is not shown (paths.hard_link_refusal)."""


HARD_LINK = _HardLink()


def _read_text(root: Path, relative: str) -> str | _HardLink | None:
    """The file's text as read_file would read it, HARD_LINK for a file read_file does not
    show because it has other names, or None when it cannot be read."""
    try:
        full = resolve_in_repository(relative, root)
        fd = os.open(full, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except (PathRefused, OSError):
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_FILE_BYTES:
            return None
        if info.st_nlink > 1:
            return HARD_LINK
        with os.fdopen(fd, "rb") as handle:
            fd = -1
            data = handle.read(MAX_FILE_BYTES + 1)
    except OSError:
        return None
    finally:
        if fd >= 0:
            os.close(fd)
    text, _ = decode(data)
    return text


def _cut(line: str, at: int) -> str:
    if len(line) <= MAX_LINE_CHARS:
        return line
    start = max(0, min(at - MAX_LINE_CHARS // 3, len(line) - MAX_LINE_CHARS))
    piece = line[start : start + MAX_LINE_CHARS]
    return ("…" if start else "") + piece + ("…" if start + MAX_LINE_CHARS < len(line) else "") + f" [line of {len(line):,} characters]"


def _inside(ranges: list[tuple[int, int]], secrets: list[tuple[int, int]]) -> bool:
    """Whether every match on the line overlaps a credential."""
    return bool(ranges) and all(any(s < e2 and s2 < e for s2, e2 in secrets) for s, e in ranges)


class SearchTool:
    name = "search"

    def definition(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": (
                "Where something is defined, used or mentioned: the files' lines matching a "
                f"regular expression (ripgrep) or exact text, as `path:line: text`, at most {MAX_SHOWN} "
                f"({MAX_PER_FILE} a file)."
            ),
            "input_schema": {
                "type": "object",
                "properties": {
                    "pattern": {"type": "string"},
                    "literal": {"type": "boolean", "description": "The pattern is plain text."},
                    "ignore_case": {"type": "boolean"},
                    "path": {"type": "string", "description": "A folder or file to search in."},
                    "glob": {"type": "string", "description": "Files to search, e.g. *.py; !*.md leaves some out."},
                    "context": {"type": "integer", "minimum": 0, "maximum": MAX_CONTEXT, "description": "Lines shown around each match."},
                },
                "required": ["pattern"],
            },
        }

    def summarize_input(self, input: dict[str, Any]) -> str:
        if not isinstance(input, dict):
            return "search"
        pattern = str(input.get("pattern", ""))
        shown = repr(pattern[:50]) if input.get("literal") else f"/{pattern[:50]}/"
        where = [str(input[key])[:40] for key in ("path", "glob") if input.get(key)]
        return shown + (f" in {' '.join(where)}" if where else "")

    def run(self, input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        return guarded(self.name, lambda: self._run(input, ctx), ctx.cancel)

    def _run(self, input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        if not isinstance(input, dict):
            raise ToolInputError("Error: the input must be an object with a pattern.")
        pattern = required_str(input, "pattern")
        if len(pattern) > MAX_PATTERN_CHARS:
            raise ToolInputError(f"Error: the pattern is {len(pattern):,} characters long; at most {MAX_PATTERN_CHARS:,}.")
        if "\0" in pattern:
            raise ToolInputError("Error: the pattern holds a NUL character.")
        literal = _bool(input, "literal")
        ignore_case = _bool(input, "ignore_case")
        context = optional_int(input, "context") or 0
        if not 0 <= context <= MAX_CONTEXT:
            raise ToolInputError(f"Error: context must be between 0 and {MAX_CONTEXT}.")
        # the session's root descriptor: ripgrep runs in it with relative paths, and each file
        # shown is read through it, so a folder put in the repository's place is not searched
        root = ctx.base
        if not root.is_dir():
            return ToolResult(text=f"Error: the repository folder {ctx.repo} does not exist.", is_error=True, summary="no folder")
        where_args, scope_name = search_scope(input, root, Path(ctx.repo))
        globs, glob_name = glob_arguments(input)
        options = ["--json"] + (["--fixed-strings"] if literal else []) + (["--ignore-case"] if ignore_case else [])
        argv = ripgrep.command(rg_or_refuse(), ripgrep.base_arguments(), options, globs, ripgrep.skip_globs(), "--regexp", pattern, where_args)
        found, failure = self._collect(argv, root, ctx)
        if failure is not None:
            return failure
        if found.overflow:
            # Which lines come first then depends on ripgrep's threads: a sorted run, stopped
            # once it has enough, makes the shown part the same every time.
            sorted_argv = ripgrep.command(argv[0], "--sort", "path", argv[1:])
            found, failure = self._collect(sorted_argv, root, ctx, stop_after=MAX_SHOWN + 1, total=found.total)
            if failure is not None:
                return failure
            found.overflow = True
        what = repr(pattern) if literal else f"/{pattern}/"
        where = " in " + " ".join(n for n in (scope_name, glob_name) if n) if scope_name or glob_name else ""
        return self._report(found, root, what + where, context, ctx)

    def _collect(
        self, argv: list[str], root: Path, ctx: ToolContext, *, stop_after: int | None = None, total: int = 0
    ) -> tuple[_Found, ToolResult | None]:
        found = _Found()
        run = ripgrep.Run(argv, root, SEARCH_TIMEOUT, ctx.cancel)
        shown = 0
        stream = run.lines()
        for raw in stream:
            try:
                message = json.loads(raw)
            except ValueError:
                continue
            if not isinstance(message, dict) or message.get("type") != "match":
                continue
            data = message.get("data") or {}
            path = _path_of(data)
            hits = found.files.setdefault(path, _FileHits())
            hits.count += 1
            found.total += 1
            if len(hits.lines) < MAX_PER_FILE:
                line = _line_bytes(data)
                ranges = [
                    (len(line[: m["start"]].decode("utf-8", "replace")), len(line[: m["end"]].decode("utf-8", "replace")))
                    for m in data.get("submatches") or []
                    if isinstance(m, dict) and isinstance(m.get("start"), int) and isinstance(m.get("end"), int)
                ]
                hits.lines[int(data.get("line_number") or 0)] = ranges
                shown += 1
            if found.total >= MAX_COUNTED or (stop_after is not None and shown >= stop_after):
                found.overflow = True
                break
        stream.close()  # stops ripgrep at once when it had more
        if run.cancelled:
            return found, ToolResult(text="The search was cancelled.", is_error=True, summary="cancelled")
        if run.timed_out:
            return found, ToolResult(
                text=f"The search took longer than {SEARCH_TIMEOUT:.0f} seconds and was stopped; narrow it with path or glob.",
                is_error=True, summary="timed out",
            )
        if run.returncode == 2 and not run.stopped and not found.files:
            message = ripgrep.rg_error(run.stderr) or "ripgrep failed"
            hint = " Set literal to search for the text as it is." if "regex" in message.lower() else ""
            stop = "" if message.endswith(".") else "."
            return found, ToolResult(text=f"Error: the search failed: {message}{stop}{hint}", is_error=True, summary="bad pattern" if hint else "failed")
        found.total = max(found.total, total)
        return found, None

    def _report(self, found: _Found, root: Path, what: str, context: int, ctx: ToolContext) -> ToolResult:
        blocks: list[str] = []
        hits_masked: list[Masked] = []
        shown_lines = shown_files = 0
        hidden = 0  # matches dropped: they lay inside a credential
        chars = 0
        cut_by_size = False
        unread: list[str] = []  # files ripgrep matched that could not be read again to show
        linked: list[str] = []  # files ripgrep matched that are hard links, not shown
        for path in sorted(found.files, key=path_order):
            if shown_lines >= MAX_SHOWN or cut_by_size:
                break
            hits = found.files[path]
            text = _read_text(root, path)
            if text is None or isinstance(text, _HardLink):
                (unread if text is None else linked).append(shown_name(path))
                continue
            masked, masked_hits, spans = mask_text_with_spans(text, f"{shown_name(path)} line", ctx.cancel)
            lines = masked.split("\n")
            originals = text.split("\n")
            starts = _line_starts(originals)
            keep: list[int] = []
            hidden_here = 0
            for number, ranges in sorted(hits.lines.items()):
                if not 1 <= number <= len(lines):
                    continue
                begin = starts[number - 1]
                end = begin + len(originals[number - 1])
                local = [(s - begin, e - begin) for s, e in spans if s < end and e > begin]
                if local and _inside(ranges, local):
                    hidden_here += 1
                    continue
                keep.append(number)
            hidden += hidden_here
            keep = keep[: MAX_SHOWN - shown_lines]
            if not keep:
                continue
            block = _block(shown_name(path), lines, keep, hits.lines, context)
            more = hits.count - hidden_here - len(keep)
            if more > 0:
                block.append(f"  ... {more:,} more matching line{'s' if more != 1 else ''} in this file")
            body = "\n".join(block)
            if blocks and chars + len(body) > MAX_CHARS:
                cut_by_size = True
                break
            blocks.append(body)
            chars += len(body)
            shown_lines += len(keep)
            shown_files += 1
            shown_numbers = set(_window_numbers(keep, context, len(lines)))
            hits_masked += [h for h in masked_hits if h.line in shown_numbers]
        total = max(found.total - hidden, shown_lines)
        files = len(found.files)
        unread_note = (
            f"{len(unread):,} file{'s' if len(unread) != 1 else ''} matched but could not be read again to show "
            f"(changed, replaced by a link or not a regular file since): {', '.join(unread[:20])}"
            + (f" and {len(unread) - 20:,} more" if len(unread) > 20 else "") + "."
        ) if unread else ""
        linked_note = (
            f"{len(linked):,} file{'s' if len(linked) != 1 else ''} matched but {'are' if len(linked) != 1 else 'is'} not "
            f"shown: {'each is' if len(linked) != 1 else 'it is'} a hard link (the same file under more than one name, the others possibly outside the "
            f"repository), whose text read_file does not show either: {', '.join(linked[:20])}"
            + (f" and {len(linked) - 20:,} more" if len(linked) > 20 else "") + "."
        ) if linked else ""
        unread_note = " ".join(n for n in (unread_note, linked_note) if n)
        if not blocks:
            if unread_note:
                return ToolResult(text=f"Matches for {what}, none shown. {unread_note}", summary="matches not shown")
            return ToolResult(
                text=f"No matches for {what}.", summary="no matches", outside_text=False,
            )
        counted = f"more than {total:,}" if found.overflow else f"{total:,}"
        head = f"{counted} matching line{'s' if total != 1 else ''} in {files:,} file{'s' if files != 1 else ''} for {what}"
        if shown_lines < total or found.overflow:
            head += f"; the first {shown_lines:,} in {shown_files:,} file{'s' if shown_files != 1 else ''} shown"
        footer = []
        if shown_lines < total or found.overflow:
            rest_files = files - shown_files
            footer.append(
                f"... {counted if found.overflow else f'{total - shown_lines:,}'} more matching lines"
                + (f" in {rest_files:,} more file{'s' if rest_files != 1 else ''}" if rest_files > 0 else "")
                + " not shown: narrow the search with path or glob, or a more exact pattern."
            )
        note = masking_note(hits_masked)
        if note:
            footer.append(note)
        if unread_note:
            footer.append(unread_note)
        text = head + ":\n\n" + "\n\n".join(blocks) + ("\n\n" + "\n".join(footer) if footer else "")
        summary = f"{counted} match{'es' if total != 1 else ''} in {files:,} file{'s' if files != 1 else ''}"
        return ToolResult(text=text, summary=summary)


def _line_starts(lines: list[str]) -> list[int]:
    starts, position = [], 0
    for line in lines:
        starts.append(position)
        position += len(line) + 1
    return starts


def _window_numbers(keep: list[int], context: int, count: int) -> list[int]:
    numbers: list[int] = []
    for number in keep:
        for n in range(max(1, number - context), min(count, number + context) + 1):
            if not numbers or n > numbers[-1]:
                numbers.append(n)
    return numbers


def _block(path: str, lines: list[str], keep: list[int], ranges: dict[int, list[tuple[int, int]]], context: int) -> list[str]:
    out: list[str] = []
    matched = set(keep)
    previous = 0
    for n in _window_numbers(keep, context, len(lines)):
        if context and previous and n > previous + 1:
            out.append("--")
        line = lines[n - 1].rstrip("\r")
        at = ranges.get(n, [(0, 0)])[0][0] if ranges.get(n) else 0
        mark = ":" if n in matched else "-"
        out.append(f"{path}{mark}{n}{mark} {_cut(line, at)}")
        previous = n
    return out
