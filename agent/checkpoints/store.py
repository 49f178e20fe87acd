"""A checkpoint at each user turn: where the conversation stood, and what the turn changed.

Each turn of a session gets one, made as it begins: the user's words, where its messages
begin in the history, and then, as the turn goes, the text every repository file and every
memory file had before the turn first changed it and after the turn last did. The agent's
file changes reach it from the text editor as they are applied, a command's changed files
from the command tool (`TurnCheckpoint.record_files`: a path and its text before the
command; the text after is read there and then), and the memory tool's writes from the
memory tool. Only this session's own changes are recorded, so a rewind never touches what
another session or the user did, and says so when such a change is in its way.

Checkpoints live outside the repository, in devagent's data folder (one folder per
repository and session, files owner-only), never in the repository and never in its git.
`prune` keeps them within the age and size the user set ([checkpoints] in config.toml),
oldest first, as a session starts; the running session keeps its own within the size as
each turn begins, its oldest turns going first.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

log = logging.getLogger("devagent.checkpoints")

FOLDER = "checkpoints"
DEFAULT_MAX_MB = 200
DEFAULT_MAX_AGE_DAYS = 30
MAX_WORDS = 4000  # of the user's words kept in a checkpoint


@dataclass
class Before:
    """One file's text before the turn first changed it and after it last did (None: no file)."""

    before: str | None
    after: str | None


@dataclass
class Checkpoint:
    session: str
    turn: int
    words: str
    when: float
    history_at: int  # the index of the turn's first message in the session's history
    transcript: str = ""  # the session's transcript file name, for a rewind from the command line
    files: dict[str, Before] = field(default_factory=dict)  # repository path -> texts
    memory: dict[str, Before] = field(default_factory=dict)  # /memories/... path -> texts
    held_memory: list[str] = field(default_factory=list)  # ids of memory writes held for review

    def as_json(self) -> dict[str, Any]:
        return {
            "session": self.session, "turn": self.turn, "words": self.words, "when": self.when,
            "history_at": self.history_at, "transcript": self.transcript, "held_memory": self.held_memory,
            "files": {p: [b.before, b.after] for p, b in self.files.items()},
            "memory": {p: [b.before, b.after] for p, b in self.memory.items()},
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Checkpoint:
        def texts(value: Any) -> dict[str, Before]:
            return {str(p): Before(*pair) for p, pair in (value or {}).items()
                    if isinstance(pair, list) and len(pair) == 2 and all(v is None or isinstance(v, str) for v in pair)}

        return cls(str(data["session"]), int(data["turn"]), str(data.get("words", "")), float(data["when"]),
                   int(data["history_at"]), str(data.get("transcript", "")), texts(data.get("files")),
                   texts(data.get("memory")), [str(i) for i in data.get("held_memory") or []])

    @property
    def size(self) -> int:
        return sum(len(t or "") for b in (*self.files.values(), *self.memory.values()) for t in (b.before, b.after))


def checkpoints_root() -> Path:
    from memory.location import data_dir

    return data_dir() / FOLDER


def repository_folder(repo: Path) -> Path:
    from memory.location import repository_key

    return checkpoints_root() / repository_key(repo)


def _encoded(data: Any) -> bytes:
    return json.dumps(data, ensure_ascii=False).encode("utf-8", "surrogateescape")


def new_session_id() -> str:
    return f"{time.strftime('%Y%m%d%H%M%S')}-{os.getpid()}-{os.urandom(3).hex()}"


class CheckpointStore:
    """One session's checkpoints of one repository, on disk and in hand."""

    def __init__(self, repo: Path, session: str | None = None, max_mb: float = DEFAULT_MAX_MB) -> None:
        self.repo = Path(repo).resolve()
        self.session = session or new_session_id()
        self.max_bytes = max_mb * 1_000_000  # a long session keeps its newest turns within it
        self.folder = repository_folder(self.repo) / self.session
        self._lock = threading.Lock()
        self.current: Checkpoint | None = None

    # --- recording ---------------------------------------------------------------------

    def begin_turn(self, turn: int, words: str, history_at: int, transcript: str = "") -> TurnCheckpoint:
        """The checkpoint of a turn that begins now (its messages start at `history_at`)."""
        with self._lock:
            self._trim()
            self.current = Checkpoint(self.session, turn, words[:MAX_WORDS], time.time(), history_at, transcript)
            self._save(self.current)
            return TurnCheckpoint(self, self.current)

    def _trim(self) -> None:
        """This session's oldest checkpoints go while all of them pass the size limit: the
        earliest turns can no longer be gone back to, the latest always can."""
        try:
            names = sorted(n for n in os.listdir(self.folder) if n.startswith("turn-") and n.endswith(".json"))
            sizes = [(n, os.path.getsize(self.folder / n)) for n in names]
        except OSError:
            return
        total = sum(size for _, size in sizes)
        for name, size in sizes:
            if total <= self.max_bytes:
                break
            try:
                os.unlink(self.folder / name)
            except OSError:
                break
            total -= size
            log.info("checkpoint %s removed: the session's checkpoints passed %.0f MB", name, self.max_bytes / 1e6)

    def _save(self, checkpoint: Checkpoint) -> None:
        """Never raises: a checkpoint that cannot be written costs the rewind, not the turn."""
        from memory.atomic import write_file
        from memory.private import make_private

        try:
            make_private(self.folder)
            write_file(str(self.folder / f"turn-{checkpoint.turn:06d}.json"), _encoded(checkpoint.as_json()))
        except (OSError, ValueError) as err:
            log.warning("the checkpoint of turn %d was not saved: %s", checkpoint.turn, err)

    def _record(self, checkpoint: Checkpoint, part: str, changes: Iterable[tuple[str, str | None, str | None]]) -> None:
        with self._lock:
            kept = checkpoint.files if part == "files" else checkpoint.memory
            for path, before, after in changes:
                if path in kept:
                    kept[path].after = after  # the turn changed it before: its first text stays
                else:
                    kept[path] = Before(before, after)
            self._save(checkpoint)

    def _hold(self, checkpoint: Checkpoint, change_id: str) -> None:
        with self._lock:
            checkpoint.held_memory.append(change_id)
            self._save(checkpoint)

    # --- reading -------------------------------------------------------------------------

    def list(self) -> list[Checkpoint]:
        """This session's checkpoints, oldest first."""
        return load_session(self.folder)


@dataclass
class TurnCheckpoint:
    """The running turn's checkpoint, as the tools add to it."""

    store: CheckpointStore
    checkpoint: Checkpoint

    @property
    def turn(self) -> int:
        return self.checkpoint.turn

    def record_files(self, changed: Iterable[tuple[str, str | None]]) -> None:
        """Files the turn changed: each a path relative to the repository and its text before
        the change (None: there was no file). The text after is read now, so call it once the
        change is on disk (a command's, after the command ended)."""
        from agent.tools.editor.change_set import on_disk
        from agent.tools.paths import resolve_in_repository

        rows = []
        for path, before in changed:
            try:
                full = resolve_in_repository(path, self.store.repo)
                after = on_disk(full, self.store.repo)
            except Exception:  # not a file a rewind may write: left out, as the editor would refuse it
                log.info("a changed file is not checkpointed: %r", path)
                continue
            rows.append((str(full.relative_to(self.store.repo)), before, after))
        self.store._record(self.checkpoint, "files", rows)

    def record_file_texts(self, changed: Iterable[tuple[str, str | None, str | None]]) -> None:
        """Files with their text before and after, as the editor knows them when it applies."""
        self.store._record(self.checkpoint, "files", changed)

    def record_memory(self, changed: Iterable[tuple[str, str | None, str | None]]) -> None:
        """Memory files the turn's memory tool calls wrote: (path, text before, text after)."""
        self.store._record(self.checkpoint, "memory", changed)

    def record_held_memory(self, change_id: str) -> None:
        """A memory write the turn made that waits for the user's review."""
        self.store._hold(self.checkpoint, change_id)


def load_session(folder: Path) -> list[Checkpoint]:
    found = []
    try:
        names = sorted(n for n in os.listdir(folder) if n.startswith("turn-") and n.endswith(".json"))
    except OSError:
        return []
    for name in names:
        try:
            found.append(Checkpoint.from_json(json.loads((folder / name).read_text("utf-8", "surrogateescape"))))
        except (OSError, ValueError, KeyError, TypeError) as err:
            log.warning("checkpoint %s cannot be read: %s", folder / name, err)
    return sorted(found, key=lambda c: c.turn)


def sessions(repo: Path) -> list[str]:
    """The sessions with checkpoints in `repo`, newest first."""
    folder = repository_folder(repo)
    try:
        names = [n for n in os.listdir(folder) if (folder / n).is_dir()]
    except OSError:
        return []
    return sorted(names, key=lambda n: (folder / n).stat().st_mtime, reverse=True)


def _size(folder: Path) -> int:
    total = 0
    for root, _dirs, files in os.walk(folder):
        for name in files:
            try:
                total += os.path.getsize(os.path.join(root, name))
            except OSError:
                pass
    return total


def prune(max_mb: float = DEFAULT_MAX_MB, max_age_days: float = DEFAULT_MAX_AGE_DAYS, keep: Path | None = None,
          now: float | None = None) -> list[Path]:
    """Removes session folders older than `max_age_days`, then the oldest while all of them
    together pass `max_mb`; never `keep` (the running session's). What it removed."""
    root = checkpoints_root()
    now = time.time() if now is None else now
    folders = []
    try:
        for repository in os.scandir(root):
            if repository.is_dir(follow_symlinks=False):
                folders += [Path(s.path) for s in os.scandir(repository.path) if s.is_dir(follow_symlinks=False)]
    except OSError:
        return []
    aged = sorted(((f.stat().st_mtime, f, _size(f)) for f in folders), key=lambda row: row[0])
    removed = []
    total = sum(size for _, _, size in aged)
    for mtime, folder, size in aged:
        if keep is not None and folder == keep:
            continue
        if now - mtime > max_age_days * 86400 or total > max_mb * 1_000_000:
            shutil.rmtree(folder, ignore_errors=True)
            total -= size
            removed.append(folder)
    return removed
