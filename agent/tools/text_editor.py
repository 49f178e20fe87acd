"""Claude's text editor tool (text_editor_20250728), on the repository the session is in.

The API knows the tool and its commands (view, create, str_replace, insert); the
definition carries no schema of ours. Paths are confined exactly as read_file's are
(agent.tools.paths.resolve_in_repository: nothing outside the root, no symlink leading
out, nothing under .git), and only regular files are read or written, within read_file's
size cap. Success and error strings follow the tool's documentation
(https://platform.claude.com/docs/en/agents-and-tools/tool-use/text-editor-tool): a view
numbers its lines `N: text`, a replacement says "Successfully replaced text at exactly one
location.", no match and several matches are the documented errors.

What a write does is the user's choice (`code_writes`, agent.loop.held_changes): `auto` writes
at once, `review` holds the change in the reply's change set until the user applies or
keeps it, and `off` leaves the tool out of the session.
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from agent.marks import restore_marks
from agent.settings.choices import CodeWrites
from agent.tools.base import HeldCall, ToolContext, ToolInputError, ToolResult, required_str
from agent.tools.editor.change_set import ChangeSet, ChangeState, FileChange, file_mode, on_disk
from agent.tools.editor.confined_files import HardLinked
from agent.tools.editor.journal import Record
from agent.tools.files import MAX_LINES, MAX_LISTED, numbered_window
from agent.tools.guard import guarded
from agent.tools.masking import mask_text, masking_note
from agent.tools.names import given_name, shown_name
from agent.tools.paths import (
    MAX_FILE_BYTES,
    folder_entries,
    hard_link_edit_refusal,
    hard_link_refusal,
    quoted,
    resolve_in_repository,
)

EDITOR_TYPE = "text_editor_20250728"
EDITOR_NAME = "str_replace_based_edit_tool"
WRITE_COMMANDS = ("create", "str_replace", "insert")
COMMANDS = ("view", *WRITE_COMMANDS)
MASK_MARK = "[masked:"
DEFAULT_REPLY_CAP_MB = 12  # agent.settings.config's max_write_mb_per_reply, for a context without a config
# The model must not have to guess whether its change waits for the user (agent.loop.held_changes).
AUTO_APPLIED = "Applied: it is written on disk (changes apply at once in this session; nothing waits for the user)."
HELD = "Held for the user's review: {what}. The outcome follows when the user decides."


def _digest(text: str | None) -> str:
    return "" if text is None else hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()


def _lines(text: str) -> list[str]:
    """The text's lines with their endings, split at newlines only: a form feed or a lone
    carriage return inside a line is not a line break to the model's line numbers."""
    return re.findall(r"[^\n]*\n|[^\n]+$", text)


class TextEditorTool:
    name = EDITOR_NAME

    def __init__(self, writes: CodeWrites = "review") -> None:
        self.writes = writes
        # the text of each file as the model last saw it (a view, or its own edit)
        self.seen: dict[Path, str] = {}
        # review: the reply's held change set, which agent.loop.held_changes settles
        self.held: ChangeSet | None = None
        # auto: the turn's applied change set, one undo for all of it
        self.applied: ChangeSet | None = None
        self._turn_key: object = None
        self.turns = 0
        self.sets = 0
        # names this session's change sets in the journal, apart from other sessions'
        # (two sessions of one process in one second, too: a shared name made one's journal overwrite the other's)
        self.session_id = f"{time.strftime('%Y%m%d%H%M%S')}-{os.getpid()}-{os.urandom(3).hex()}"
        self.history: list[ChangeSet] = []  # this session's change sets, newest last
        self.root: Path | None = None  # the repository root, resolved, of the call being run
        # the size of each file this reply changed, as it will be written (agent.loop.held_changes
        # ends the reply), against the config's max_write_mb_per_reply
        self.reply_bytes: dict[Path, int] = {}
        # told of each applied change set (agent.loop.held_changes: memory evidence); the journal
        # is written by the apply itself, before any file
        self.after_apply: list[Any] = []

    def definition(self) -> dict[str, Any]:
        return {"type": EDITOR_TYPE, "name": EDITOR_NAME}

    def summarize_input(self, input: dict[str, Any]) -> str:
        command = input.get("command")
        path = input.get("path")
        if not isinstance(command, str):
            return "?"
        return f"{command} {str(path)[:80]}" if isinstance(path, str) else command

    def run(self, input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        result = guarded(self.name, lambda: self._run(input, ctx), ctx.cancel)
        # Only view hands over the repository's text; every other answer is the editor's own
        # sentence, the documented string the model knows.
        viewed = isinstance(input, dict) and input.get("command") == "view" and not result.is_error
        return result if viewed else replace(result, outside_text=False)

    # --- the commands -------------------------------------------------------------------

    def _run(self, input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        if not isinstance(input, dict):
            raise ToolInputError("Error: the input must be an object with a command and a path.")
        command = input.get("command")
        if command not in COMMANDS:
            known = ", ".join(COMMANDS)
            raise ToolInputError(f"Error: unknown command {str(command)[:40]!r}; this editor knows {known}.")
        path = given_name(required_str(input, "path"))  # as a listing showed it: quoted, escaped
        # every read and write goes through the session's root descriptor (ToolContext.base)
        root = self.root = ctx.base
        if command == "view" and path.rstrip("/") in ("", ".", str(Path(ctx.repo).resolve()), os.path.abspath(ctx.repo)):
            full = root  # the root itself, which read_file's confinement asks a file of
        else:
            full = resolve_in_repository(path, root, Path(ctx.repo))
        shown = shown_name(str(full.relative_to(root)))
        self._new_turn(ctx)
        if command == "view":
            return self._view(full, shown, input.get("view_range"))
        if self.writes == "off":
            return ToolResult(text="Error: changing files is off in this session by the user's choice.", is_error=True,
                              summary="writes are off")
        # create replaces the whole text; str_replace and insert build on it, so the text must be one
        # read_file would show (a hard link's is not: paths.hard_link_refusal)
        before = self._current(full, shown, must_exist=command != "create", single_name=command != "create")
        if command == "create":
            text = input.get("file_text")
            if not isinstance(text, str):
                raise ToolInputError("Error: create needs file_text, the whole text of the file.")
            if before is None and not str(full.relative_to(root)).isprintable():
                # A file the repository named so is read and changed; a new one is named by
                # the model, which has no reason to hide a newline or an escape in a name.
                raise ToolInputError(
                    f"Error: a new file's name may not hold a line break, a control or an invisible character: {shown}."
                )
            after, said = text, "File created successfully." if before is None else "File overwritten successfully."
        elif command == "str_replace":
            after, said = self._replace(before or "", input)
        else:
            after, said = self._insert(before or "", input)
        if MASK_MARK in after and MASK_MARK not in (before or ""):
            # the model saw a credential as this marker: writing it back would destroy the real value
            raise ToolInputError(
                f"Error: the new text of {shown} holds a {MASK_MARK} ...] marker, which stands for a credential you "
                "were not shown; writing it would replace the real value. Change the lines around it instead."
            )
        size = len(after.encode("utf-8", "surrogateescape"))
        if size > MAX_FILE_BYTES:
            raise ToolInputError(f"Error: the change would make {shown} larger than {MAX_FILE_BYTES / 1e6:.0f} MB, the limit.")
        self._within_reply_cap(full, shown, size, ctx)
        result = self._change(full, shown, before, after, said + _link_note(full, shown), ctx)
        if not result.is_error:
            self.reply_bytes[full] = size
        return result

    def _within_reply_cap(self, full: Path, shown: str, size: int, ctx: ToolContext) -> None:
        cap_mb = getattr(ctx.config, "max_write_mb_per_reply", None) or DEFAULT_REPLY_CAP_MB
        total = size + sum(n for path, n in self.reply_bytes.items() if path != full)
        if total > cap_mb * 1_000_000:
            raise ToolInputError(
                f"Error: {shown} was not changed: with it, this reply's changes would write {total / 1e6:.1f} MB, over "
                f"the {cap_mb} MB one reply may write (max_write_mb_per_reply in the user's config). Make the remaining "
                "changes in a later reply, or tell the user why they need more."
            )

    def reply_ended(self) -> None:
        """The reply's tool calls are all run: the next reply has the whole cap again."""
        self.reply_bytes = {}

    def _new_turn(self, ctx: ToolContext) -> None:
        # One Cancellation per turn: a new one is a new turn, whose changes undo apart.
        key = ctx.cancel if ctx.cancel is not None else None
        if key is not self._turn_key or key is None:
            self._turn_key = key
            self.turns += 1
            self.applied = None

    def _regular(self, full: Path, shown: str) -> os.stat_result | None:
        try:
            info = os.stat(full)
        except FileNotFoundError:
            return None
        if stat.S_ISDIR(info.st_mode):
            return info
        if not stat.S_ISREG(info.st_mode):
            raise ToolInputError(f"Error: {shown} is not a regular file (a device, a FIFO or a socket), so it is not opened.")
        if info.st_size > MAX_FILE_BYTES:
            raise ToolInputError(f"Error: {shown} is {info.st_size / 1e6:.1f} MB, over the {MAX_FILE_BYTES / 1e6:.0f} MB limit.")
        return info

    def _read(self, full: Path, shown: str, single_name: bool = False) -> str | None:
        """The file's text, read from the repository root down as a write goes: a folder
        swapped for a link or a pipe swapped in since the checks above is refused, not read."""
        try:
            return on_disk(full, self.root, single_name)
        except HardLinked as linked:
            raise ToolInputError(hard_link_edit_refusal(shown, linked.links)) from None
        except OSError as err:
            raise ToolInputError(f"Error: {shown} cannot be opened: {err.strerror or err}.") from None

    def _current(self, full: Path, shown: str, must_exist: bool, single_name: bool = False) -> str | None:
        """The file's text as this change builds on it: the reply's held change, else the disk."""
        staged = self.held.file(full) if self.held is not None else None
        if staged is not None:
            return staged.after
        info = self._regular(full, shown)
        if info is not None and stat.S_ISDIR(info.st_mode):
            raise ToolInputError(f"Error: {shown} is a folder; give the path of a file.")
        if info is None:
            if must_exist:
                raise ToolInputError(f"Error: File not found: {shown}. Create it with the create command.")
            return None
        text = self._read(full, shown, single_name)
        if text is not None and "\0" in text:
            raise ToolInputError(f"Error: {shown} is a binary file; the editor changes text files only.")
        if text is not None and full in self.seen and self.seen[full] != _digest(text):
            raise ToolInputError(
                f"Error: {shown} changed on disk since you last viewed it, so it was not changed. View it again first."
            )
        return text

    def _replace(self, text: str, input: dict[str, Any]) -> tuple[str, str]:
        old = input.get("old_str")
        new = input.get("new_str", "")
        if not isinstance(old, str) or old == "":
            raise ToolInputError("Error: str_replace needs old_str, the exact text to replace.")
        if not isinstance(new, str):
            raise ToolInputError("Error: new_str must be a string.")
        if old not in text and "\r\n" in text and "\r\n" not in old:
            old, new = old.replace("\n", "\r\n"), new.replace("\n", "\r\n")  # a CRLF file, quoted with LF
        if old not in text and restore_marks(old) in text:
            # the model copied a mark as the view showed it, escaped (agent/marks.py)
            old, new = restore_marks(old), restore_marks(new)
        count = text.count(old)
        if count == 0:
            raise ToolInputError("Error: No match found for replacement. Please check your text and try again.")
        if count > 1:
            raise ToolInputError(
                f"Error: Found {count} matches for replacement text. Please provide more context to make a unique match."
            )
        return text.replace(old, new, 1), "Successfully replaced text at exactly one location."

    def _insert(self, text: str, input: dict[str, Any]) -> tuple[str, str]:
        line = input.get("insert_line")
        new = input.get("insert_text", input.get("new_str"))
        if isinstance(line, bool) or not isinstance(line, int):
            raise ToolInputError("Error: insert needs insert_line, the line after which to insert (0 for the top).")
        if not isinstance(new, str):
            raise ToolInputError("Error: insert needs insert_text, the text to insert.")
        lines = _lines(text)
        if not 0 <= line <= len(lines):
            raise ToolInputError(f"Error: insert_line {line} is outside the file, which has {len(lines)} lines.")
        ending = "\r\n" if "\r\n" in text else "\n"
        if lines and line == len(lines) and not lines[-1].endswith("\n"):
            lines[-1] += ending
        piece = new if new.endswith("\n") else new + ending
        return "".join(lines[:line] + [piece] + lines[line:]), "Text inserted successfully."

    # --- writing, or holding ------------------------------------------------------------

    def _change(self, full: Path, shown: str, before: str | None, after: str, said: str, ctx: ToolContext) -> ToolResult:
        if after == before:
            return ToolResult(text=f"{said} (The text is the same as before, so {shown} is unchanged.)", summary="unchanged")
        if self.writes == "review":
            if self.held is None:
                self.sets += 1
                self.held = ChangeSet(f"{self.session_id}-{self.sets}", self.turns)
            staged = self.held.file(full)
            if staged is None:
                self.held.files.append(FileChange(shown, full, before, after, file_mode(full), self.root))
            else:
                staged.after = after
            # the loop keeps the HeldCall in the place of the result, which the settled set writes
            return ToolResult(text=HELD.format(what=shown), summary="held for your review", held=HeldCall(self.held.id, said))
        entry = self._turn_entry(full, shown, before, after)
        single = ChangeSet("", self.turns, [FileChange(shown, full, before, after, file_mode(full), self.root)])
        try:
            outcome = single.apply(self.record(entry, ctx.base))
        except OSError as err:
            return ToolResult(text=f"Error: {shown} could not be written ({err.strerror or err}), so it is unchanged.",
                              is_error=True, summary="not written")
        if single.state != "applied":
            return ToolResult(text=f"Error: {outcome}", is_error=True, summary="conflict")
        self.seen[full] = _digest(after)
        turn_set = self._took(entry)
        notes = self._applied(turn_set, ctx)
        text = f"{AUTO_APPLIED} {said}" + ("\n\n" + notes if notes else "")
        return ToolResult(text=text, summary=f"changed {shown}", screen=(f"Changed: {turn_set.describe()}", turn_set.diff(), "diff"))

    def record(self, change_set: ChangeSet, repo: Path, state: ChangeState = "applied") -> Record:
        """The journal of writing `change_set` (this session's), for its apply or undo."""
        return Record(repo, [(change_set, self.session_id)], state)

    def _turn_entry(self, full: Path, shown: str, before: str | None, after: str) -> ChangeSet:
        """The turn's change set as the journal holds it once this write is done: a copy,
        so that a write refused leaves the turn's set as it was."""
        current = self.applied
        if current is None:
            entry = ChangeSet(f"{self.session_id}-{self.sets + 1}", self.turns, state="applied")
        else:
            entry = ChangeSet(current.id, current.turn, [replace(f) for f in current.files], "applied", current.when)
        change = entry.file(full)
        if change is None:
            entry.files.append(FileChange(shown, full, before, after, file_mode(full), self.root))
        else:
            change.after = after
        return entry

    def _took(self, entry: ChangeSet) -> ChangeSet:
        if self.applied is None:
            self.sets += 1
            self.applied = entry
            self.history.append(entry)
        else:
            self.applied.files = entry.files
        return self.applied

    def _applied(self, change_set: ChangeSet, ctx: ToolContext) -> str:
        """What the hooks have to say about an applied change set (memory it touched)."""
        if ctx.checkpoint is not None:  # the turn's checkpoint keeps what a rewind puts back
            ctx.checkpoint.record_file_texts((f.name, f.before, f.after) for f in change_set.files)
        notes = []
        for hook in self.after_apply:
            try:
                note = hook(change_set, Path(ctx.repo))
            except Exception:  # a hook's failure must not undo a write that happened
                note = None
            if note:
                notes.append(note)
        return "\n".join(notes)

    def saw(self, full: Path, data: bytes) -> None:
        """The model read `full` another way (read_file), as `data`: a later edit is checked
        against it, as after a view (decoded as on_disk decodes, whatever read_file made of it)."""
        self.seen[full] = _digest(data.decode("utf-8", "surrogateescape"))

    def undo_turn(self, key: object, repo: Path) -> str | None:
        """The files a turn run under `key` wrote (auto) put back, once that turn was
        withdrawn: the speaker went on within the grace window, so the question it answered
        was never asked. A sentence for the user; None when the turn wrote nothing."""
        change_set = self.applied
        if key is None or key is not self._turn_key or change_set is None or change_set.state != "applied":
            return None
        try:
            said = change_set.undo(self.record(change_set, repo, "undone"))
        except OSError as err:
            return f"Not undone: {err.strerror or err} ({err.filename or change_set.describe()})."
        if change_set.undone:
            for change in change_set.files:
                # the model never saw this turn: what it last saw of the file is the old text
                if change.before is None:
                    self.seen.pop(change.full, None)
                else:
                    self.seen[change.full] = _digest(change.before)
        return said

    def settled(self, change_set: ChangeSet, ctx: ToolContext) -> str:
        """After the user applied a held set: remember what the model now knows, run the hooks."""
        for change in change_set.files:
            self.seen[change.full] = _digest(change.after)
        self.history.append(change_set)
        return self._applied(change_set, ctx)

    # --- view ---------------------------------------------------------------------------

    def _view(self, full: Path, shown: str, view_range: Any) -> ToolResult:
        info = self._regular(full, shown)
        if info is None:
            return ToolResult(text=f"Error: File not found: {shown}", is_error=True, summary="not found")
        if stat.S_ISDIR(info.st_mode):
            return self._listing(full, shown)
        try:
            text = on_disk(full, self.root, single_name=True) or ""
        except HardLinked as linked:  # its other names may be outside the repository
            return ToolResult(text=hard_link_refusal(shown, linked.links), is_error=True, summary="hard link")
        except OSError as err:
            raise ToolInputError(f"Error: {shown} cannot be opened: {err.strerror or err}.") from None
        if "\0" in text:
            return ToolResult(text=f"Error: {shown} is a binary file; the editor shows text only.", is_error=True, summary="binary")
        self.seen[full] = _digest(text)
        masked, hits = mask_text(text, "line")
        lines = [line.rstrip("\n").removesuffix("\r") for line in _lines(masked)]
        first, last = self._range(view_range, len(lines), shown)
        out, shown_last = numbered_window(lines, first, min(last, first + MAX_LINES - 1), lambda n, line: f"{n}: {line}")
        body = "\n".join(out) if out else f"{shown} is empty."
        if shown_last < last:
            body += f"\n\n(lines {first}-{shown_last} of {len(lines)}; view_range [{shown_last + 1}, -1] shows the rest)"
        note = masking_note([h for h in hits if first <= h.line <= shown_last])
        if note:
            body += "\n\n" + note
        return ToolResult(text=body, summary=f"lines {first}-{shown_last}" if out else "empty")

    def _range(self, view_range: Any, total: int, shown: str) -> tuple[int, int]:
        if view_range is None:
            return 1, total
        if (not isinstance(view_range, list) or len(view_range) != 2
                or not all(isinstance(n, int) and not isinstance(n, bool) for n in view_range)):
            raise ToolInputError("Error: view_range must be two line numbers, [start, end]; end -1 reads to the end.")
        start, end = view_range
        end = total if end == -1 else end
        if start < 1 or end < start:
            raise ToolInputError(f"Error: view_range {view_range} is not a range of lines (they count from 1).")
        if start > max(total, 1):
            raise ToolInputError(f"Error: {shown} has {total} lines; view_range starts past its end.")
        return start, min(end, total)

    def _listing(self, folder: Path, shown: str) -> ToolResult:
        entries = folder_entries(folder)
        listed = "\n".join(entries[:MAX_LISTED])
        more = f"\n... and {len(entries) - MAX_LISTED} more" if len(entries) > MAX_LISTED else ""
        label = shown if shown not in ("", ".") else "the repository root"
        return ToolResult(text=f"{quoted(label)} holds:\n{listed}{more}" if entries else f"{label} is an empty folder.",
                          summary=f"folder, {len(entries)} entries")


def _link_note(full: Path, shown: str) -> str:
    """What the model is told when the file it changes has other names: a write replaces the
    name with a file of its own (confined_files.replace_file renames a new file over it), so
    whatever else named the old file, inside the repository or not, keeps the old text."""
    try:
        links = os.stat(full, follow_symlinks=False).st_nlink
    except OSError:
        return ""
    if links < 2:
        return ""
    others = links - 1
    return (f" {shown} was a hard link (the same file under {links} names): the change is written as a file of its "
            f"own, so the other name{'s' if others != 1 else ''} of the old file keep{'' if others != 1 else 's'} "
            "the text it had.")
