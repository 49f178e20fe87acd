"""How a session starts from the conversations before it: what the replay modes send again
(`history` the last session whole, `window` its last turns), the summary mode's notes, and
the start every mode fills in (agent.recall.memory_modes chooses by mode)."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from agent.conversation import transcripts
from agent.marks import marked


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


def replayed(repo: Path, turns: int | None) -> SessionStart:
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


def summary_notes(repo: Path) -> SessionStart:
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
