"""Going back to before a turn: what it would change (the preview), doing it, undoing it.

Three parts, each chosen on its own: the conversation (the session cuts its history back
to where the turn began; agent.loop.session), the code (every repository file the agent's
turns since changed, through the editor or a command, back to its text before the first of
them) and the memory (each memory file this session's memory tool wrote since, likewise).

A file is put back only when it still holds what the agent's last turn left in it: one
someone else changed since (the user, an editor, another session) is refused and named,
and the rest goes back. Files go back as the editor writes them (agent.tools.editor): under
their locks, confined to the repository, atomically, journalled first so that a crash is
finished or rolled back at the next start. Memory goes back through the store, whose own
check refuses a file changed since.

Every rewind keeps what it replaced, so that it can itself be undone, under the same rule:
a file changed since the rewind is refused and named.
"""

from __future__ import annotations

import json
import logging
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from agent.checkpoints.store import Checkpoint, repository_folder
from agent.tools.names import given_name, shown_name

if TYPE_CHECKING:
    from memory.seam import Store

log = logging.getLogger("devagent.checkpoints")

Part = Literal["conversation", "code", "memory"]
PARTS: tuple[Part, ...] = ("conversation", "code", "memory")
LAST_REWIND = "rewind-last.json"


@dataclass(frozen=True)
class Step:
    """One file's way back: from `now` (what the agent left there) to `then` (None: no file)."""

    path: str
    now: str | None
    then: str | None
    changed_since: bool = False  # someone else changed it after the agent: refused

    def counts(self) -> tuple[int, int]:
        import difflib

        old = (self.now or "").splitlines()
        new = (self.then or "").splitlines()
        added = removed = 0
        for line in difflib.unified_diff(old, new, lineterm="", n=0):
            if line.startswith("+") and not line.startswith("+++"):
                added += 1
            elif line.startswith("-") and not line.startswith("---"):
                removed += 1
        return added, removed

    def describe(self) -> str:
        shown = shown_name(self.path)  # the repository chose the name: one line, escaped
        if self.changed_since:
            return f"{shown}: changed since by someone else, left as it is"
        if self.then is None:
            return f"{shown}: removed (the agent created it)"
        if self.now is None:
            return f"{shown}: brought back (the agent removed it)"
        added, removed = self.counts()
        return f"{shown}: back as it was (+{added} −{removed})"


@dataclass
class Preview:
    """What going back to before `to`'s turn would change, part by part."""

    to: Checkpoint
    later: list[Checkpoint]  # the turns it goes back over, `to` first
    conversation: bool  # the conversation can be cut back there
    code: list[Step] = field(default_factory=list)
    memory: list[Step] = field(default_factory=list)
    held_memory: list[str] = field(default_factory=list)

    def lines(self, part: Part) -> list[str]:
        if part == "conversation":
            if not self.conversation:
                return ["The conversation cannot go back there (it was summarised or started again since)."]
            count = len(self.later)
            return [f"{count} turn{'s leave' if count != 1 else ' leaves'} the conversation, from “{_short(self.to.words)}”; "
                    "those words come back to the prompt."]
        steps = self.code if part == "code" else self.memory
        lines = [step.describe() for step in steps] or [f"No {'file' if part == 'code' else 'memory'} to put back."]
        if part == "memory" and self.held_memory:
            lines.append(f"{len(self.held_memory)} memory change(s) of these turns wait for your review in the memory "
                         "pane; reject them there.")
        return lines


def _short(words: str, limit: int = 60) -> str:
    flat = " ".join(words.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _disk(repo: Path, path: str) -> str | None | bool:
    """The file's text now; None for no file; False for what cannot be read as a file."""
    from agent.tools.editor.change_set import on_disk
    from agent.tools.paths import resolve_in_repository

    try:
        return on_disk(resolve_in_repository(path, repo), repo.resolve())
    except Exception:
        return False


def _steps(later: list[Checkpoint], part: str, current: Any) -> list[Step]:
    first: dict[str, str | None] = {}
    last: dict[str, str | None] = {}
    for checkpoint in later:
        for path, texts in (checkpoint.files if part == "files" else checkpoint.memory).items():
            first.setdefault(path, texts.before)
            last[path] = texts.after
    steps = []
    for path in sorted(first):
        now = current(path)
        if now == first[path]:
            continue  # already as it was (undone since, or changed and changed back)
        steps.append(Step(path, last[path], first[path], changed_since=now != last[path]))
    return steps


def _memory_text(store: Store | None, path: str) -> str | None | bool:
    if store is None:
        return False
    try:
        return store.current_text(path)
    except Exception:
        return False


def preview(checkpoints: list[Checkpoint], turn: int, repo: Path, store: Store | None,
            history: list[dict[str, Any]] | None = None) -> Preview | None:
    """What going back to before turn `turn` would change; None when there is no such turn.
    `history`: the session's messages, to tell whether the conversation can go back."""
    later = [c for c in checkpoints if c.turn >= turn]
    if not later or later[0].turn != turn:
        return None
    to = later[0]
    return Preview(
        to, later, conversation=history is not None and conversation_holds(history, to),
        code=_steps(later, "files", lambda path: _disk(repo, path)),
        memory=_steps(later, "memory", lambda path: _memory_text(store, path)),
        held_memory=[i for c in later for i in c.held_memory],
    )


def conversation_holds(history: list[dict[str, Any]], checkpoint: Checkpoint) -> bool:
    """Whether the turn's words still begin the conversation where its checkpoint says."""
    at = checkpoint.history_at
    if at >= len(history) or history[at].get("role") != "user":
        return False
    content = history[at].get("content")
    texts = [content] if isinstance(content, str) else [b.get("text", "") for b in content or [] if isinstance(b, dict)]
    return any(checkpoint.words.strip() in str(t) for t in texts)


# --- doing it -----------------------------------------------------------------------------


@dataclass
class Outcome:
    """What a rewind (or its undo) did: what went back, what was refused, and what undoes it."""

    done: list[str] = field(default_factory=list)  # a line each
    refused: list[str] = field(default_factory=list)  # paths changed since
    undo_code: list[Step] = field(default_factory=list)  # applied to undo it
    undo_memory: list[Step] = field(default_factory=list)

    def said(self) -> str:
        parts = []
        if self.done:
            parts.append("Back as it was: " + "; ".join(self.done) + ".")
        if self.refused:
            parts.append("Left as it is, changed since by someone else: " + ", ".join(self.refused) + ".")
        return " ".join(parts) or "Nothing needed to go back."


def put_files(repo: Path, steps: list[Step], outcome: Outcome) -> None:
    """Each step's file from `now` to `then`, under its lock, journalled; a file not at `now`
    any more is refused and named."""
    from agent.tools.editor.change_set import Write, file_mode, on_disk, write_all
    from agent.tools.editor.file_locks import FilesBusy, held
    from agent.tools.editor.journal import Record
    from agent.tools.paths import resolve_in_repository

    root = repo.resolve()
    wanted = []
    for step in steps:
        if step.changed_since:
            outcome.refused.append(shown_name(step.path))
            continue
        try:
            wanted.append((step, resolve_in_repository(step.path, repo)))
        except Exception:
            outcome.refused.append(shown_name(step.path))
    if not wanted:
        return
    try:
        with held([(s.path, full) for s, full in wanted]):
            writes = []
            for step, full in wanted:
                try:
                    now = on_disk(full, root)
                except OSError:
                    now = "\0unreadable"
                if now != step.now:  # changed between the preview and now
                    outcome.refused.append(shown_name(step.path))
                    continue
                writes.append(Write(shown_name(step.path), full, step.now, step.then, file_mode(full), root=root))
            if writes:
                write_all(writes, Record(repo, [], "applied"))
    except FilesBusy as busy:
        outcome.refused.append(f"{shown_name(busy.path)} (another devagent session is writing it)")
        return
    except OSError as err:
        outcome.refused.append(f"{shown_name(str(err.filename)) if err.filename else 'a file'} ({err.strerror or err}; nothing of the code was changed)")
        return
    for write in writes:
        outcome.done.append(write.path)  # as shown: the journal keeps names so
        outcome.undo_code.append(Step(given_name(write.path), write.new, write.base))


def put_memory(store: Store, steps: list[Step], outcome: Outcome) -> None:
    from memory.errors import CommandError, MemoryStoreError

    for step in steps:
        if step.changed_since:
            outcome.refused.append(step.path)
            continue
        try:
            store.apply_change(step.path, step.now, step.then)
        except (CommandError, MemoryStoreError, OSError):
            outcome.refused.append(step.path)
            continue
        outcome.done.append(step.path)
        outcome.undo_memory.append(Step(step.path, step.then, step.now))


def save_undo(repo: Path, session: str, outcome: Outcome, turn: int) -> None:
    """What undoes the last rewind, kept beside the session's checkpoints."""
    from memory.atomic import write_file
    from memory.private import make_private

    folder = repository_folder(repo) / session
    data = {"turn": turn, "code": [[s.path, s.now, s.then] for s in outcome.undo_code],
            "memory": [[s.path, s.now, s.then] for s in outcome.undo_memory]}
    try:
        make_private(folder)
        write_file(str(folder / LAST_REWIND), json.dumps(data, ensure_ascii=False).encode("utf-8", "surrogateescape"))
    except (OSError, ValueError) as err:
        log.warning("the undo of the rewind was not saved: %s", err)


def load_undo(repo: Path, session: str) -> tuple[int, list[Step], list[Step]] | None:
    path = repository_folder(repo) / session / LAST_REWIND
    try:
        data = json.loads(path.read_text("utf-8", "surrogateescape"))
        return (int(data["turn"]), [Step(*row) for row in data["code"]], [Step(*row) for row in data["memory"]])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def forget_undo(repo: Path, session: str) -> None:
    try:
        os.unlink(repository_folder(repo) / session / LAST_REWIND)
    except OSError:
        pass


def undo_files_and_memory(repo: Path, store: Store | None, code: list[Step], memory: list[Step]) -> Outcome:
    """The last rewind's files and memory back as it left them; a file changed since the
    rewind is refused and named."""
    outcome = Outcome()
    current = [Step(s.path, s.now, s.then, changed_since=_disk(repo, s.path) != s.now) for s in code]
    put_files(repo, current, outcome)
    if store is not None:
        mem = [Step(s.path, s.now, s.then, changed_since=_memory_text(store, s.path) != s.now) for s in memory]
        put_memory(store, mem, outcome)
    return outcome
