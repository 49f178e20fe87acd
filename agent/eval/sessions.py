"""What every scenario's Friday and Monday share: a session run on the fixture with its
questions, the memory it left, and the user data folder it runs in."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from agent.eval.records_from_events import TurnRecorder
from agent.eval.turn_records import TurnRecord
from agent.settings.config import AgentConfig

# Monday opens with the welcome-back briefing (agent.loop.welcome_back) in place of a
# first question: it is scored as the first answer was.
BRIEFING = "(welcome back: the briefing devagent gives before the first question)"


@contextmanager
def scoped_env(**values: str) -> Iterator[None]:
    before = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for name, value in before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def _clock(start: datetime) -> Callable[[], datetime]:
    """A session clock that reads `start` plus the real time elapsed since it was made."""
    origin = time.monotonic()
    return lambda: start + timedelta(seconds=time.monotonic() - origin)


@dataclass
class SessionRun:
    turns: list[TurnRecord]
    first_request_tokens: int | None
    first_request_error: str | None
    notes: str | None
    # What the session's prompt said about memory as it started (preloaded files, the
    # index, evidence): the report quotes it.
    context: str = ""


def run_session(
    repo: Path,
    config: AgentConfig,
    questions: tuple[str, ...],
    *,
    now: datetime,
    client: Any = None,
    count_first_request: bool = False,
    close: bool = True,
) -> SessionRun:
    from agent.loop.session import Session
    from agent.workspace_trust import WorkspaceTrust

    # The evaluation's repository is the one it just built from its own data.
    session = Session(repo, config, client=client, now=_clock(now), trust=WorkspaceTrust(repo, for_this_run=True))
    recorder = TurnRecorder()
    replayed = len(session.messages)
    tokens: int | None = None
    token_error: str | None = None
    for number, question in enumerate(questions):
        recorder.begin(question)
        if question == BRIEFING:
            session.welcome_back(recorder)
        else:
            session.send(question, recorder)
        recorder.finish(session.messages)
        if number == 0 and count_first_request:
            tokens, token_error = count_first(session, replayed)
    notes = None
    if close:
        session.close()
        notes = _summary_notes(repo) if config.memory_mode == "summary" else None
    return SessionRun(recorder.records, tokens, token_error, notes, session.start.context)


def count_first(session: Any, replayed: int) -> tuple[int | None, str | None]:
    """Input tokens of the session's first request, from the token counting endpoint.

    The first request held the replayed history and the first user message, nothing after;
    the system prompt and tools are fixed for the session.
    """
    from agent.loop import claude
    messages = session.messages[: replayed + 1]
    params = claude.request_params(
        session.config, system=session.system, tools=session.tool_definitions, messages=messages
    )
    kwargs = {k: params[k] for k in ("model", "system", "tools", "messages", "thinking", "output_config") if k in params}
    if "thinking" in kwargs:
        # What comes back is no part of the count, and "updates" is a beta value.
        kwargs["thinking"] = {k: v for k, v in kwargs["thinking"].items() if k != "display"}
    try:
        return int(session.client.messages.count_tokens(**kwargs).input_tokens), None
    except Exception as err:  # a failed count leaves a gap in the table, not a failed run
        return None, f"{type(err).__name__}: {err}"


def _summary_notes(repo: Path) -> str | None:
    from agent.conversation import transcripts
    saved = transcripts.latest(repo, with_summary=True)
    return saved.summary if saved is not None else None


def memory_folder(repo: Path) -> Path:
    from memory.location import memory_dir_for

    return memory_dir_for(repo)


def memory_files(folder: Path) -> dict[str, str]:
    """Every memory file but the MEMORY.md index, by virtual path."""
    if not folder.is_dir():
        return {}
    files = {}
    for path in sorted(folder.rglob("*.md")):
        relative = path.relative_to(folder)
        if relative.as_posix() == "MEMORY.md" or any(part.startswith(".") for part in relative.parts):
            continue
        files["/memories/" + relative.as_posix()] = path.read_text(encoding="utf-8", errors="replace")
    return files


def age_files(folder: Path, when: datetime) -> None:
    stamp = when.timestamp()
    for path in folder.rglob("*") if folder.is_dir() else []:
        try:
            os.utime(path, (stamp, stamp))
        except OSError:
            pass


def usage_total(turns: list[TurnRecord]) -> dict[str, Any]:
    keys = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens", "api_calls", "cost_usd")
    return {k: round(sum(float(t.usage.get(k) or 0) for t in turns), 6) for k in keys}


def turn_errors(turns: list[TurnRecord]) -> list[str]:
    return [f"turn {i + 1}: {t.error}" for i, t in enumerate(turns) if t.error]
