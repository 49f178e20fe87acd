"""How a session starts from the ones before it: the --memory modes.

Each mode decides three things for a new session: whether it has the memory tool, what goes
in the session's own system block after the stable prompt (preloaded memories, the index,
the previous session's notes), and which earlier messages are replayed before the first new
user message.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent.conversation import transcripts
from agent.marks import escape_marks, marked
from agent.recall import briefing as memory_context
from agent.recall import changes as memory_changes

# The prompt text of preloading lives in agent/recall/briefing.py; these names stay here too.
from agent.recall.briefing import age_text, left_out_note, memory_snapshot  # noqa: F401
from agent.settings.choices import MEMORY_TOOL_MODES, MemoryMode
from agent.tools.masking import mask_messages, mask_text, masking_note
from memory.freshness import DEFAULT_AGING_DAYS

if TYPE_CHECKING:
    from memory.seam import Store


@dataclass
class SessionStart:
    memory_tool: bool = False
    context: str = ""
    replay: list[dict[str, Any]] = field(default_factory=list)
    # When each replayed message was said, for the saved transcript.
    replay_times: list[datetime] = field(default_factory=list)
    # The prefix each went out under (agent.conversation.history.prefix_of); None when unknown or changed.
    replay_prefixes: list[str | None] = field(default_factory=list)
    # What of memory `context` gives the model (agent.recall.changes); None when nothing.
    seen: dict[str, str | None] | None = None


def prepare(
    mode: MemoryMode,
    repo: Path,
    *,
    store: Store | None = None,
    window_turns: int = 2,
    now: datetime | None = None,
    aging_days: int = DEFAULT_AGING_DAYS,
    since: str = memory_context.STARTED,
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
    since: str = memory_context.STARTED,
) -> SessionStart:
    if mode == "none":
        return SessionStart()
    if mode == "history":
        return _replay(repo, turns=None)
    if mode == "window":
        return _replay(repo, turns=window_turns)
    if mode == "summary":
        return _summary(repo)
    if mode in MEMORY_TOOL_MODES:
        start = SessionStart(memory_tool=True)
        try:
            # Read before the context is: a file changed in between is told once too often,
            # never missed.
            start.seen = memory_changes.seen(store, mode)
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


# --- replaying a conversation ------------------------------------------------------------


def completed(messages: list[transcripts.SavedMessage]) -> list[transcripts.SavedMessage]:
    """The conversation up to its last finished turn.

    A turn that failed or was cancelled can leave a user message without an answer, or a
    tool call without its result; the next session's first message must follow a reply.
    """
    end = 0
    for i, saved in enumerate(messages):
        m = saved.message
        if m.get("role") == "assistant" and not any(
            isinstance(b, dict) and b.get("type") == "tool_use" for b in transcripts.content_blocks(m)
        ):
            end = i + 1
    return messages[:end]


def turn_starts(messages: list[transcripts.SavedMessage]) -> list[int]:
    """Indexes of user messages the user typed or said, as opposed to tool results."""
    starts = []
    for i, saved in enumerate(messages):
        m = saved.message
        if m.get("role") != "user":
            continue
        if any(isinstance(b, dict) and b.get("type") == "tool_result" for b in transcripts.content_blocks(m)):
            continue
        starts.append(i)
    return starts


def strip_thinking(message: dict[str, Any]) -> dict[str, Any] | None:
    """The message without thinking blocks; None when nothing else was in it.

    A thinking block's signature binds it to the exact conversation before it. A window cuts
    the front of that conversation, so a kept block would be rejected (400) or dropped.
    """
    blocks = [b for b in transcripts.content_blocks(message) if not (isinstance(b, dict) and b.get("type") in ("thinking", "redacted_thinking"))]
    if not blocks:
        return None
    return {"role": message["role"], "content": blocks}


LABEL_START = "(This conversation is from an earlier session, on "


def date_label(when: datetime) -> str:
    return f"{LABEL_START}{when.strftime('%A, %d %B %Y')}.)"


def _is_label(block: Any) -> bool:
    return isinstance(block, dict) and block.get("type") == "text" and str(block.get("text", "")).startswith(LABEL_START)


def _replay(repo: Path, turns: int | None) -> SessionStart:
    previous = transcripts.latest(repo)
    if previous is None:
        return SessionStart()
    kept = completed(previous.messages)
    if turns is not None:
        starts = turn_starts(kept)
        if not starts:
            return SessionStart()
        kept = kept[starts[-turns] if len(starts) >= turns else starts[0] :]
    replay: list[dict[str, Any]] = []
    times: list[datetime] = []
    prefixes: list[str | None] = []
    for saved in kept:
        copied = copy.deepcopy(saved.message)
        message = strip_thinking(copied) if turns is not None else copied
        if message is None:
            continue
        replay.append(message)
        times.append(saved.time)
        prefixes.append(saved.prefix if turns is None else None)
    if turns is not None and replay:
        # The date lived in the first message of that session, which the window may have
        # cut; without it the model cannot tell these turns are from another day.
        first = replay[0]
        # A window of a window would stack labels; the old one names the same date anyway.
        kept_blocks = [b for b in transcripts.content_blocks(first) if not _is_label(b)]
        first["content"] = [{"type": "text", "text": date_label(times[0])}, *kept_blocks]
    return SessionStart(replay=replay, replay_times=times, replay_prefixes=prefixes)


def _summary(repo: Path) -> SessionStart:
    previous = transcripts.latest(repo, with_summary=True)
    if previous is None or not previous.summary:
        return SessionStart()
    when = previous.summary_time or previous.started
    context = (
        f"Notes you wrote at the end of the previous session, on {when.strftime('%A, %d %B %Y')}. "
        "They say what was true then; check the repository before repeating a claim about the code.\n\n"
        + marked("notes", previous.summary.strip())
    )
    return SessionStart(context=context)


# --- memory in the prompt ---------------------------------------------------------------


def preloaded_memory(
    store: Store, repo: Path, *, now: datetime | None = None, aging_days: int = DEFAULT_AGING_DAYS,
    since: str = memory_context.STARTED,
) -> str:
    stamp = now.timestamp() if now is not None else None
    context = memory_context.preloaded(store, repo, now=stamp, aging_days=aging_days, since=since)
    problems = _index_problems(store) if context != memory_context.EMPTY else ""
    return f"{context}\n\n{problems}" if problems else context


def memory_index(
    store: Store, repo: Path | None = None, *, now: datetime | None = None, aging_days: int = DEFAULT_AGING_DAYS,
    since: str = memory_context.STARTED,
) -> str:
    stamp = now.timestamp() if now is not None else None
    context = memory_context.index(store, repo, now=stamp, aging_days=aging_days, since=since)
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
