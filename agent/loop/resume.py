"""Continuing a saved session (`--resume`, the palette's Sessions): the session after its
last finished turn, and one line saying which (agent.conversation.saved_sessions lists and
finds them)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agent.conversation import saved_sessions, transcripts
from agent.loop.session import Session


def open_saved(repo: Path, config: Any, wanted: str | None, **options: Any) -> tuple[Session | None, str]:
    """A Session that continues a saved one (the latest when `wanted` is None), and one line
    saying which; or (None, why not)."""
    path, problem = saved_sessions.find(repo, wanted)
    if path is None:
        return None, problem or "No session to resume."
    saved = transcripts.load(path)
    if saved is None or not saved.messages:
        return None, f"The session {saved_sessions.session_id(path)} could not be read or has nothing to continue."
    session = Session(repo, config, resume=saved, **options)
    info = saved_sessions.describe(path)
    asked = f": {saved_sessions.shorten(info.first_question, 60)}" if info and info.first_question else ""
    turns = f"{info.turns} turn{'s' if info.turns != 1 else ''}" if info else "its turns"
    return session, f"Resumed the session of {saved.started:%d %b %Y %H:%M} ({turns}){asked}."
