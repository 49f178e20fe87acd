"""The Friday/Monday harness: one Friday per memory mode, then N Mondays from copies of it.

Each mode gets its own fixture repository and its own user data folder (XDG_DATA_HOME), so
memories and transcripts of one mode never reach another, and the user's real ones are
never read or written. After Friday the data folder is frozen; every Monday starts from a
fresh copy of it, so the Mondays of a mode differ only in what Monday does.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from agent.eval.finish import FINISH, build_verdict, score_finish
from agent.eval.fixture import Fixture, build_fixture, dotnet_on_path
from agent.eval.records_from_events import TurnRecorder
from agent.eval.scoring import score_friday, score_monday
from agent.eval.turn_records import TurnRecord, turns_to_json
from agent.settings.choices import MEMORY_MODES, MemoryMode
from agent.settings.config import AgentConfig

FRIDAY = (
    "Why is the build red?",
    "The core project is the one I care about. The CLI is just a wrapper.",
    "And CS1591 is noise, ignore it. Nullable warnings are real.",
    "What did I change?",
    "I'm renaming Patch to Diff in ChangedFile. I'll finish ReviewOrchestrator on Monday.",
    "Run the tests.",
)
# Monday opens with the welcome-back briefing (agent.loop.welcome_back) in place of a
# first question: it is scored as the first answer was.
BRIEFING = "(welcome back: the briefing devagent gives before the first question)"
MONDAY = (
    BRIEFING,
    "Build the project I care about.",
    "What's left to finish the rename?",
)

Progress = Callable[[int, int, str], None]


@dataclass
class EvalOptions:
    modes: tuple[MemoryMode, ...] = MEMORY_MODES
    runs: int = 3
    stale: bool = False
    # Friday's memory is the reference one, which cites the call site, fingerprinted through
    # the store; before Monday the rename is finished and committed (memory/evidence.py).
    cited: bool = False
    config: AgentConfig = field(default_factory=AgentConfig)
    # Where the fixtures and data folders go; a temporary folder, removed after, when None.
    workdir: Path | None = None
    keep_workdir: bool = False
    # For tests: a client to hand every session instead of one made from the environment.
    client_factory: Callable[[], Any] | None = None


def scenario_days(today: datetime | None = None) -> tuple[datetime, datetime]:
    """The latest Monday morning up to today, and the Friday afternoon before it.

    Real, recent dates: a memory's age is measured from its file time, which is set to the
    Friday, so the age a Monday sees and the date it is told stay within days of each other.
    """
    today = (today or datetime.now().astimezone()).astimezone()
    monday = (today - timedelta(days=today.weekday())).replace(hour=9, minute=0, second=0, microsecond=0)
    friday = (monday - timedelta(days=3)).replace(hour=16, minute=30)
    return friday, monday


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


def _age_files(folder: Path, when: datetime) -> None:
    stamp = when.timestamp()
    for path in folder.rglob("*") if folder.is_dir() else []:
        try:
            os.utime(path, (stamp, stamp))
        except OSError:
            pass


def _usage_total(turns: list[TurnRecord]) -> dict[str, Any]:
    keys = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens", "api_calls", "cost_usd")
    return {k: round(sum(float(t.usage.get(k) or 0) for t in turns), 6) for k in keys}


def _errors(turns: list[TurnRecord]) -> list[str]:
    return [f"turn {i + 1}: {t.error}" for i, t in enumerate(turns) if t.error]


def run_friday(fixture: Fixture, config: AgentConfig, data: Path, friday: datetime, client: Any) -> dict[str, Any]:
    # Friday leaves the rename for Monday, and nobody is there to review a change
    config = replace(config, code_writes="off")
    with scoped_env(XDG_DATA_HOME=str(data)), dotnet_on_path(fixture):
        run = run_session(fixture.repo, config, FRIDAY, now=friday, client=client)
        folder = memory_folder(fixture.repo)
    files = memory_files(folder)
    _age_files(data, friday)
    result = {
        "turns": turns_to_json(run.turns),
        "usage": _usage_total(run.turns),
        "errors": _errors(run.turns),
        "memory_files": files,
        "memory_score": score_friday(files).to_json(),
        "notes": run.notes,
        "notes_score": score_friday({"notes": run.notes}).to_json() if run.notes else None,
        "dotnet_calls": fixture.dotnet_calls(),
    }
    fixture.clear_dotnet_log()
    return result


def run_monday(
    fixture: Fixture, config: AgentConfig, friday_data: Path, data: Path, monday: datetime, client: Any, stale: bool
) -> dict[str, Any]:
    shutil.copytree(friday_data, data)
    fixture.clear_dotnet_log()
    before = fixture.call_site.read_text(encoding="utf-8")
    # the fourth step changes the code: nobody is there to review it
    config = replace(config, code_writes="auto")
    with scoped_env(XDG_DATA_HOME=str(data)), dotnet_on_path(fixture):
        run = run_session(
            fixture.repo, config, MONDAY + FINISH, now=monday, client=client, count_first_request=True, close=False
        )
        calls, fixed = fixture.dotnet_calls(), fixture.call_site_fixed()
        finish = score_finish(run.turns[len(MONDAY):], build_verdict(fixture.repo, config), fixed)
    fixture.call_site.write_text(before, encoding="utf-8")  # the next Monday starts from Friday's code
    return {
        "finish": finish.to_json(),
        "first_request_tokens": run.first_request_tokens,
        "first_request_error": run.first_request_error,
        "told": run.context,
        "score": score_monday(run.turns[: len(MONDAY)], stale=stale).to_json(),
        "usage": _usage_total(run.turns),
        "errors": _errors(run.turns),
        "turns": turns_to_json(run.turns),
        "dotnet_calls": calls,
        "call_site_fixed": fixed,
    }


def cite_call_site(fixture: Fixture, config: AgentConfig, data: Path, friday: datetime) -> str | None:
    """The cited variant, between Friday and Monday.

    Friday's memory becomes the reference one, which cites the call site, written through
    the store so its evidence is fingerprinted against Friday's working tree; then someone
    finishes the rename and commits it. Modes without the memory tool keep no memory.
    """
    from agent.eval.cited import CITED_INDEX, CITED_MEMORY, CITED_PATH
    from agent.settings.choices import MEMORY_TOOL_MODES
    from memory.store import MemoryStore

    text = None
    if config.memory_mode in MEMORY_TOOL_MODES:
        with scoped_env(XDG_DATA_HOME=str(data)):
            store = MemoryStore.for_repository(fixture.repo)
            for info in store.memories():
                store.delete(info.path)
            for path, body in ((CITED_PATH, CITED_MEMORY), ("/memories/MEMORY.md", CITED_INDEX)):
                message, refused = store.save(path, body)
                if refused:
                    raise RuntimeError(message)
        _age_files(data, friday)
        text = CITED_MEMORY
    fixture.fix_call_site()
    fixture.commit("Finish the rename: ReviewOrchestrator reads file.Diff", when=friday + timedelta(days=1))
    return text


def run_eval(options: EvalOptions, progress: Progress | None = None) -> dict[str, Any]:
    """Runs every Friday and Monday; returns the results as the JSON structure of the report."""
    progress = progress or (lambda done, total, label: None)
    if options.workdir is not None and options.workdir.exists() and any(options.workdir.iterdir()):
        raise FileExistsError(f"{options.workdir} is not empty; the evaluation needs a fresh folder")
    root = options.workdir or Path(tempfile.mkdtemp(prefix="devagent-eval-"))
    root.mkdir(parents=True, exist_ok=True)
    friday, monday = scenario_days()
    total = len(options.modes) * (1 + options.runs)
    done = 0
    results: dict[str, Any] = {
        "started": datetime.now().astimezone().isoformat(timespec="seconds"),
        "model": options.config.model,
        "effort": options.config.effort,
        "runs": options.runs,
        # The cited variant changes the repository before Monday too: it is scored as stale.
        "stale": options.stale or options.cited,
        "cited": options.cited,
        "friday": friday.isoformat(),
        "monday": monday.isoformat(),
        "friday_questions": list(FRIDAY),
        "monday_questions": list(MONDAY + FINISH),
        "modes": [],
    }
    try:
        for mode in options.modes:
            config = replace(options.config, memory_mode=mode)
            place = root / mode
            fixture = build_fixture(place)
            friday_data = place / "friday-data"
            friday_data.mkdir(parents=True, exist_ok=True)
            progress(done, total, f"{mode}: Friday")
            entry: dict[str, Any] = {"mode": mode, "mondays": []}
            try:
                entry["friday"] = run_friday(fixture, config, friday_data, friday, _client(options))
            except Exception as err:
                entry["friday"] = {"error": f"{type(err).__name__}: {err}", "memory_score": None}
            done += 1
            if options.cited:
                entry["friday"]["cited_memory"] = cite_call_site(fixture, config, friday_data, friday)
            elif options.stale:
                fixture.fix_call_site()
            for number in range(1, options.runs + 1):
                progress(done, total, f"{mode}: Monday {number} of {options.runs}")
                data = place / f"monday-{number}-data"
                try:
                    result = run_monday(
                        fixture, config, friday_data, data, monday, _client(options), options.stale or options.cited
                    )
                except Exception as err:
                    result = {"error": f"{type(err).__name__}: {err}", "score": None}
                entry["mondays"].append({"run": number, **result})
                done += 1
            results["modes"].append(entry)
        progress(done, total, "done")
    finally:
        if options.workdir is None and not options.keep_workdir:
            shutil.rmtree(root, ignore_errors=True)
    return results


def _client(options: EvalOptions) -> Any:
    return options.client_factory() if options.client_factory else None
