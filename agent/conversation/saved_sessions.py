"""The saved sessions of a repository: listing them, finding one to resume, and keeping
their total bounded.

A session's id is its transcript's file name without `.jsonl` (its start time and a short
random tail), so ids sort by date; any unambiguous part of one finds it.
"""

from __future__ import annotations

import json
import os
import re
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from agent.conversation import transcripts

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
    """What the list shows of one transcript. Only the header, the turn records and the
    messages up to the first question are parsed: a day's transcript holds megabytes of
    tool results, and the list reads every transcript of the repository."""
    try:
        with path.open(encoding="utf-8", errors="replace") as lines:
            header = json.loads(next(lines))
            if not isinstance(header, dict) or header.get("type") != "session":
                return None
            early = transcripts.SavedSession(path=path, started=datetime.fromisoformat(header["started"]))
            turns: dict[int, float] = {}
            question = ""
            for line in lines:
                if line.startswith('{"type": "turn"'):
                    record = json.loads(line)
                    turns[int(record.get("turn") or 0)] = float((record.get("usage") or {}).get("cost_usd") or 0)
                elif not question and line.startswith('{"type": "message"'):
                    record = json.loads(line)
                    early.messages = [transcripts.SavedMessage(early.started, 0, record["message"], bool(record.get("replayed")))]
                    question = first_question(early)
            size = path.stat().st_size
    except (OSError, ValueError, KeyError, TypeError, StopIteration):
        return None
    return SessionInfo(
        id=session_id(path),
        path=path,
        started=early.started,
        first_question=question,
        turns=len(turns),
        cost_usd=sum(turns.values()),
        model=str(header.get("model") or ""),
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
    """The transcript to resume: the one used last (its file written last) with a finished
    turn when `wanted` is None, else the one whose id contains `wanted`. (path, None) or
    (None, one sentence why not)."""
    paths = list(reversed(transcripts.saved_sessions(repo)))
    if wanted is None:
        # a session resumed yesterday and used today is the latest, whenever it began
        for path in sorted(paths, key=_last_written, reverse=True):
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


def _last_written(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


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


def as_markdown(path: Path) -> str:
    """A saved session to read: what the user said, what came back, and the tools used."""
    saved = transcripts.load(path)
    if saved is None:
        return "This transcript could not be read."
    lines = [f"# Session of {saved.started:%A %d %B %Y, %H:%M}", ""]
    for saved_message in saved.messages:
        message = saved_message.message
        for block in transcripts.content_blocks(message):
            if not isinstance(block, dict):
                continue
            kind = block.get("type")
            if kind == "text" and message.get("role") == "user" and not block.get("text", "").startswith("Today is "):
                lines += [f"**You:** {block['text']}", ""]
            elif kind == "text":
                lines += [block.get("text", ""), ""]
            elif kind == "tool_use":
                lines += [f"- *{block.get('name')}*", ""]
            elif kind == "compaction":
                lines += ["*(earlier conversation summarised)*", ""]
    return "\n".join(printable(line) for line in "\n".join(lines).strip().split("\n")) + "\n"


def table(infos: list[SessionInfo]) -> list[str]:
    """One line a session: id, date, turns, cost, first question."""
    return [
        f"{i.id}  {i.started:%Y-%m-%d %H:%M}  {i.turns:>3} {'turn ' if i.turns == 1 else 'turns'}  ${i.cost_usd:7.4f}  {printable(shorten(i.first_question, 60))}"
        for i in infos
    ]


def shorten(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def prune_for(config: Any, *, keep: Path | None = None) -> list[Path]:
    """prune() with the user's settings; never raises: a start-up must not fail on it."""
    try:
        return prune(
            max_age_days=int(getattr(config, "transcripts_max_age_days", DEFAULT_MAX_AGE_DAYS)),
            max_mb=int(getattr(config, "transcripts_max_mb", DEFAULT_MAX_MB)),
            keep=keep,
        )
    except Exception:
        return []


def printable(text: str) -> str:
    """`text` without control characters: a first question can hold anything."""
    return "".join(c if c.isprintable() or c == "\t" else "\N{REPLACEMENT CHARACTER}" for c in text)


def resume_value(value: str | None) -> tuple[str | None, str | None]:
    """Splits what followed --resume: (the id, or None for the latest; and text that was not
    an id but the next argument, a turn or a path). An id is digits, 'T', '-' and hex, as
    `devagent sessions` prints it."""
    if value is None or value == "":
        return None, None
    if re.fullmatch(r"[0-9]{4,}[0-9T]*(-[0-9a-f]{0,6})?|[0-9a-f]{6}", value.strip()):
        return value.strip(), None
    return None, value
