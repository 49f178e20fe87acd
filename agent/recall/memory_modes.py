"""How a session starts in each --memory mode.

Each mode decides three things for a new session: whether it has the memory tool, what goes
in the session's own system block after the stable prompt (preloaded memories, the index,
the previous session's notes), and which earlier messages are replayed before the first new
user message (agent.conversation.replay).
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from agent.conversation import transcripts
from agent.conversation.replay import SessionStart, replayed, summary_notes
from agent.marks import escape_marks
from agent.recall import briefing, changes
from agent.settings.choices import MEMORY_TOOL_MODES, MemoryMode
from agent.tools.masking import mask_messages, mask_text, masking_note
from memory.freshness import DEFAULT_AGING_DAYS

if TYPE_CHECKING:
    from memory.seam import Store


def prepare(
    mode: MemoryMode,
    repo: Path,
    *,
    store: Store | None = None,
    window_turns: int = 2,
    now: datetime | None = None,
    aging_days: int = DEFAULT_AGING_DAYS,
    since: str = briefing.STARTED,
) -> SessionStart:
    """The session's start, with every credential in it masked: a memory, a transcript or
    a summary may hold one that reached the disk some other way, and the model must
    receive these the way it receives tool results."""
    start = _prepare(mode, repo, store=store, window_turns=window_turns, now=now, aging_days=aging_days, since=since)
    if start.context:
        context, hits = mask_text(start.context, "line")
        note = masking_note(hits)
        start.context = f"{context}\n\n{note}" if note else context
    masked = mask_messages(start.replay)
    # A message masked now is not the one the model saw: thinking after it is not valid.
    start.replay_prefixes = [
        was if new == old else None for new, old, was in zip(masked, start.replay, start.replay_prefixes, strict=True)
    ]
    start.replay = masked
    return start


def _prepare(
    mode: MemoryMode, repo: Path, *, store: Store | None, window_turns: int, now: datetime | None, aging_days: int,
    since: str = briefing.STARTED,
) -> SessionStart:
    if mode == "none":
        return SessionStart()
    if mode == "history":
        return replayed(repo, turns=None)
    if mode == "window":
        return replayed(repo, turns=window_turns)
    if mode == "summary":
        return summary_notes(repo)
    if mode in MEMORY_TOOL_MODES:
        start = SessionStart(memory_tool=True)
        try:
            # Read before the context is: a file changed in between is told once too often,
            # never missed.
            start.seen = changes.seen(store, mode)
            if store is not None and mode == "preloaded":
                start.context = preloaded_memory(store, repo, now=now, aging_days=aging_days, since=since)
            elif store is not None and mode == "index":
                start.context = memory_index(store, repo, now=now, aging_days=aging_days, since=since)
        except Exception as err:
            # An unreadable memory folder must not stop the session; the model is told, and
            # the memory tool will report the same problem if it is used.
            start.context = f"Your memory directory could not be read as this session started ({type(err).__name__}: {err})."
        return start
    raise ValueError(f"unknown memory mode {mode!r}")


def resumed(
    mode: MemoryMode,
    saved: transcripts.SavedSession,
    repo: Path | None = None,
    *,
    store: Store | None = None,
    now: datetime | None = None,
    aging_days: int = DEFAULT_AGING_DAYS,
) -> SessionStart:
    """A resumed session has the saved one's tools, and its memory as it is now: the user may
    have deleted, edited or added memories since, and the old block would tell the model
    otherwise. The prompt cache of those requests has long expired (it lives minutes), so a
    new block costs nothing that was not lost already. Modes that do not read memory keep
    the block they started with (the summary mode's notes)."""
    if mode in MEMORY_TOOL_MODES and store is not None and repo is not None:
        return prepare(mode, repo, store=store, now=now, aging_days=aging_days)
    return SessionStart(memory_tool=mode in MEMORY_TOOL_MODES, context=saved.context)


def preloaded_memory(
    store: Store, repo: Path, *, now: datetime | None = None, aging_days: int = DEFAULT_AGING_DAYS,
    since: str = briefing.STARTED,
) -> str:
    stamp = now.timestamp() if now is not None else None
    context = briefing.preloaded(store, repo, now=stamp, aging_days=aging_days, since=since)
    problems = _index_problems(store) if context != briefing.EMPTY else ""
    return f"{context}\n\n{problems}" if problems else context


def memory_index(
    store: Store, repo: Path | None = None, *, now: datetime | None = None, aging_days: int = DEFAULT_AGING_DAYS,
    since: str = briefing.STARTED,
) -> str:
    stamp = now.timestamp() if now is not None else None
    context = briefing.index(store, repo, now=stamp, aging_days=aging_days, since=since)
    problems = _index_problems(store) if store.index_text().strip() else ""
    return f"{context}\n\n{problems}" if problems else context


def _index_problems(store: Store) -> str:
    try:
        problems = store.index_problems()
    except Exception:
        return ""
    if not problems:
        return ""
    return escape_marks("Index check: " + " ".join(problems))
