"""The saved sessions of a repository: listing them, finding one to resume, and keeping
their total bounded.

A session's id is its transcript's file name without `.jsonl` (its start time and a short
random tail), so ids sort by date; any unambiguous part of one finds it.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from agent import transcripts

DEFAULT_MAX_AGE_DAYS = 90
DEFAULT_MAX_MB = 500


@dataclass(frozen=True)
class SessionInfo:
    id: str
    path: Path
    started: datetime
    first_question: str
    turns: int
    cost_usd: float
    model: str
    size: int


def session_id(path: Path) -> str:
    return path.name.removesuffix(".jsonl")


def listing(repo: Path) -> list[SessionInfo]:
    """The repository's sessions with something said in them, newest first."""
    found = []
    for path in reversed(transcripts.saved_sessions(repo)):
        info = describe(path)
        if info is not None and (info.turns or info.first_question):
            found.append(info)
    return found


def describe(path: Path) -> SessionInfo | None:
    saved = transcripts.load(path)
    if saved is None:
        return None
    try:
        size = path.stat().st_size
    except OSError:
        size = 0
    turns = {record.get("turn") for record in saved.turns}
    cost = sum(float(record["usage"].get("cost_usd") or 0) for record in saved.turns)
    return SessionInfo(
        id=session_id(path),
        path=path,
        started=saved.started,
        first_question=first_question(saved),
        turns=len(turns),
        cost_usd=cost,
        model=saved.model,
        size=size,
    )


def first_question(saved: transcripts.SavedSession) -> str:
    """The first thing the user said in the session itself (not replayed), on one line."""
    for saved_message in saved.messages:
        message = saved_message.message
        if saved_message.replayed or message.get("role") != "user":
            continue
        texts = [
            b.get("text", "")
            for b in transcripts.content_blocks(message)
            if isinstance(b, dict) and b.get("type") == "text" and not b.get("text", "").startswith(("Today is ", "(devagent:"))
        ]
        if texts:
            return " ".join(texts[-1].split())
    return ""


def find(repo: Path, wanted: str | None) -> tuple[Path | None, str | None]:
    """The transcript to resume: the latest with a finished turn when `wanted` is None, else
    the one whose id contains `wanted`. (path, None) or (None, one sentence why not)."""
    paths = list(reversed(transcripts.saved_sessions(repo)))
    if wanted is None:
        for path in paths:
            saved = transcripts.load(path)
            if saved is not None and saved.messages:
                return path, None
        return None, f"No saved session to resume in {repo}."
    wanted = wanted.strip().removesuffix(".jsonl")
    matches = [p for p in paths if wanted and wanted in session_id(p)]
    if not matches:
        return None, f"No saved session of {repo} has the id {wanted!r}; `devagent sessions` lists them."
    if len(matches) > 1:
        names = ", ".join(session_id(p) for p in matches[:3])
        return None, f"{wanted!r} matches {len(matches)} sessions ({names}...); give more of the id."
    return matches[0], None


def prune(
    *, max_age_days: int = DEFAULT_MAX_AGE_DAYS, max_mb: int = DEFAULT_MAX_MB, now: float | None = None, keep: Path | None = None
) -> list[Path]:
    """Removes transcripts of every repository last written more than `max_age_days` ago,
    then the oldest until all of them fit in `max_mb`. Returns what it removed.

    Age is the last write, not the start: a session resumed yesterday is yesterday's."""
    from memory.location import data_dir

    root = data_dir() / "transcripts"
    now = time.time() if now is None else now
    files: list[tuple[float, int, Path]] = []
    try:
        folders = [p for p in root.iterdir() if p.is_dir() and not p.is_symlink()]
    except OSError:
        return []
    for folder in folders:
        try:
            for path in folder.glob("*.jsonl"):
                stat = path.lstat()
                if path.is_file() and not path.is_symlink() and path != keep:
                    files.append((stat.st_mtime, stat.st_size, path))
        except OSError:
            continue
    files.sort()
    removed = []
    total = sum(size for _, size, _ in files)
    limit = max_mb * 1024 * 1024
    for mtime, size, path in files:
        if now - mtime <= max_age_days * 86400 and total <= limit:
            break
        try:
            os.unlink(path)
        except OSError:
            continue
        removed.append(path)
        total -= size
    return removed
