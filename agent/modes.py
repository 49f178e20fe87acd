"""How a session starts from the ones before it: the --memory modes.

Each mode decides three things for a new session: whether it has the memory tool, what goes
in the session's own system block after the stable prompt (preloaded memories, the index,
the previous session's notes), and which earlier messages are replayed before the first new
user message.
"""

from __future__ import annotations

import copy
import time
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent import transcripts
from agent.choices import MEMORY_TOOL_MODES, MemoryMode
from agent.tools.masking import mask_messages, mask_text, masking_note

if TYPE_CHECKING:
    from memory.preload import LeftOut, Preload


@dataclass
class SessionStart:
    memory_tool: bool = False
    context: str = ""
    replay: list[dict[str, Any]] = field(default_factory=list)
    # When each replayed message was said, for the saved transcript.
    replay_times: list[datetime] = field(default_factory=list)


def prepare(mode: MemoryMode, repo: Path, *, store: Any = None, window_turns: int = 2, now: datetime | None = None) -> SessionStart:
    """The session's start, with every credential in it masked: a memory, a transcript or
    a summary may hold one that reached the disk some other way, and the model must
    receive these the way it receives tool results."""
    start = _prepare(mode, repo, store=store, window_turns=window_turns, now=now)
    if start.context:
        context, hits = mask_text(start.context, "line")
        note = masking_note(hits)
        start.context = f"{context}\n\n{note}" if note else context
    start.replay = mask_messages(start.replay)
    return start


def _prepare(mode: MemoryMode, repo: Path, *, store: Any, window_turns: int, now: datetime | None) -> SessionStart:
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
            if store is not None and mode == "preloaded":
                start.context = preloaded_memory(store, repo, now=now)
            elif store is not None and mode == "index":
                start.context = memory_index(store)
        except Exception as err:
            # An unreadable memory folder must not stop the session; the model is told, and
            # the memory tool will report the same problem if it is used.
            start.context = f"Your memory directory could not be read as this session started ({type(err).__name__}: {err})."
        return start
    raise ValueError(f"unknown memory mode {mode!r}")


def resumed(mode: MemoryMode, saved: transcripts.SavedSession) -> SessionStart:
    """A resumed session starts as the saved one did: the same tools and its own system
    block as it was then, not as memory is now, so its requests begin the same way."""
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
    for saved in kept:
        copied = copy.deepcopy(saved.message)
        message = strip_thinking(copied) if turns is not None else copied
        if message is None:
            continue
        replay.append(message)
        times.append(saved.time)
    if turns is not None and replay:
        # The date lived in the first message of that session, which the window may have
        # cut; without it the model cannot tell these turns are from another day.
        first = replay[0]
        # A window of a window would stack labels; the old one names the same date anyway.
        kept_blocks = [b for b in transcripts.content_blocks(first) if not _is_label(b)]
        first["content"] = [{"type": "text", "text": date_label(times[0])}, *kept_blocks]
    return SessionStart(replay=replay, replay_times=times)


def _summary(repo: Path) -> SessionStart:
    previous = transcripts.latest(repo, with_summary=True)
    if previous is None or not previous.summary:
        return SessionStart()
    when = previous.summary_time or previous.started
    context = (
        f"Notes you wrote at the end of the previous session, on {when.strftime('%A, %d %B %Y')}. "
        "They say what was true then; check the repository before repeating a claim about the code.\n\n"
        f"<notes>\n{previous.summary.strip()}\n</notes>"
    )
    return SessionStart(context=context)


# --- memory in the prompt ---------------------------------------------------------------


def preloaded_memory(store: Any, repo: Path, *, now: datetime | None = None) -> str:
    moment = now.timestamp() if now is not None else time.time()
    snapshot = memory_snapshot(store.preload(), moment).strip()
    if not snapshot:
        return (
            "Your memory directory /memories is empty: nothing has been saved for this "
            "repository yet. No need to view it."
        )
    parts = [
        "Your memory directory as this session started: every file, with its age. "
        "It is already loaded, so there is no need to view it before answering; use the "
        "memory tool to change it.",
        snapshot,
    ]
    findings = _staleness(store, repo)
    if findings:
        parts.append(findings)
    problems = _index_problems(store)
    if problems:
        parts.append(problems)
    return "\n\n".join(parts)


def memory_snapshot(loaded: Preload, now: float) -> str:
    """The preloaded files, each with its age so that an old claim reads as old, then what
    the caps left out. Empty when there is no memory."""
    parts: list[str] = []
    for item in loaded.files:
        # A memory must not be able to close its own element and speak as the prompt.
        body = item.text.rstrip().replace("</memory>", "<\\/memory>")
        where = item.path
        for raw, escaped in (("&", "&amp;"), ('"', "&quot;"), ("<", "&lt;"), (">", "&gt;")):
            where = where.replace(raw, escaped)
        parts.append(f'<memory path="{where}" age="{age_text(now - item.modified)}">\n{body}\n</memory>\n')
    if loaded.left_out:
        parts.append(left_out_note(loaded.left_out))
    return "".join(parts)


MAX_NAMED = 20  # left-out files named in the prompt


def left_out_note(left_out: list[LeftOut]) -> str:
    """The lines that tell the model what is in the folder but not in its prompt."""
    lines = ["Not preloaded (read one with the memory tool's view command when a question needs it):"]
    lines += [f"- {item.path}: {item.reason}" for item in left_out[:MAX_NAMED]]
    if len(left_out) > MAX_NAMED:
        lines.append(f"- and {len(left_out) - MAX_NAMED:,} more")
    return "\n".join(lines) + "\n"


def age_text(seconds: float) -> str:
    """How old a memory is, in the unit a reader would use."""
    seconds = max(0.0, seconds)
    for limit, unit, size in (
        (3600, "minute", 60),
        (86400, "hour", 3600),
        (14 * 86400, "day", 86400),
        (60 * 86400, "week", 7 * 86400),
        (730 * 86400, "month", 30 * 86400),
        (float("inf"), "year", 365 * 86400),
    ):
        if seconds < limit:
            count = int(seconds // size)
            if unit == "minute" and count == 0:
                return "just now"
            return f"{count} {unit}" + ("" if count == 1 else "s")
    return "unknown"  # pragma: no cover


def memory_index(store: Any) -> str:
    index = store.index_text().strip()
    if not index:
        return (
            "Your memory index /memories/MEMORY.md is empty or missing. Memory files, if any, "
            "can still be listed with the memory tool's view command."
        )
    parts = [
        "Your memory index, /memories/MEMORY.md, as this session started. Read a memory file "
        "with the memory tool when it is relevant to the question.",
        f"<memory path=\"/memories/MEMORY.md\">\n{index}\n</memory>",
    ]
    problems = _index_problems(store)
    if problems:
        parts.append(problems)
    return "\n\n".join(parts)


def _staleness(store: Any, repo: Path) -> str:
    try:
        stale = store.stale_references(repo)
    except Exception:
        return ""
    if not stale:
        return ""
    lines = [
        "Staleness check, run on the repository just now: these memories name files or lines "
        "that no longer exist. Treat them as out of date until a tool confirms them."
    ]
    for path, missing in sorted(stale.items()):
        lines.append(f"- {path}: {', '.join(missing)}")
    return "\n".join(lines)


def _index_problems(store: Any) -> str:
    try:
        problems = store.index_problems()
    except Exception:
        return ""
    if not problems:
        return ""
    return "Index check: " + " ".join(problems)
