"""The Friday/Monday harness: one Friday per memory mode, then N Mondays from copies of it.

Each mode gets its own fixture repository and its own user data folder (XDG_DATA_HOME), so
memories and transcripts of one mode never reach another, and the user's real ones are
never read or written. After Friday the data folder is frozen; every Monday starts from a
fresh copy of it, so the Mondays of a mode differ only in what Monday does. What the
repository is, what is asked, what happens over the weekend and what counts as right belong
to the scenario (agent/eval/scenarios.py).
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from agent.eval.csharp import FRIDAY, MONDAY
from agent.eval.scenarios import SCENARIOS, Scenario
from agent.eval.sessions import BRIEFING, run_session, scoped_env
from agent.settings.choices import MEMORY_MODES, MemoryMode
from agent.settings.config import AgentConfig

__all__ = ["BRIEFING", "FRIDAY", "MONDAY", "EvalOptions", "run_eval", "run_scenarios", "run_session", "scoped_env"]

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
    # Which scenario run_eval runs (a name of SCENARIOS); run_scenarios takes several.
    scenario: str = "csharp"


def scenario_days(today: datetime | None = None) -> tuple[datetime, datetime]:
    """The latest Monday morning up to today, and the Friday afternoon before it.

    Real, recent dates: a memory's age is measured from its file time, which is set to the
    Friday, so the age a Monday sees and the date it is told stay within days of each other.
    """
    today = (today or datetime.now().astimezone()).astimezone()
    monday = (today - timedelta(days=today.weekday())).replace(hour=9, minute=0, second=0, microsecond=0)
    friday = (monday - timedelta(days=3)).replace(hour=16, minute=30)
    return friday, monday


def run_scenarios(options: EvalOptions, names: tuple[str, ...], progress: Progress | None = None) -> dict[str, Any]:
    """Every named scenario in turn, each as run_eval runs it, under one progress count."""
    progress = progress or (lambda done, total, label: None)
    if options.workdir is not None and options.workdir.exists() and any(options.workdir.iterdir()):
        raise FileExistsError(f"{options.workdir} is not empty; the evaluation needs a fresh folder")
    per = len(options.modes) * (1 + options.runs)
    total = per * len(names)
    results: dict[str, Any] = {
        "started": datetime.now().astimezone().isoformat(timespec="seconds"),
        "model": options.config.model, "effort": options.config.effort, "runs": options.runs, "scenarios": [],
    }
    for index, name in enumerate(names):
        def step(done: int, _total: int, label: str, offset: int = index * per, prefix: str = name) -> None:
            if label != "done" or offset + done == total:
                progress(offset + done, total, label if label == "done" else f"{prefix} {label}")
        workdir = options.workdir / name if options.workdir is not None else None
        results["scenarios"].append(run_eval(replace(options, scenario=name, workdir=workdir), step))
    return results


def run_eval(options: EvalOptions, progress: Progress | None = None) -> dict[str, Any]:
    """Runs every Friday and Monday; returns the results as the JSON structure of the report."""
    progress = progress or (lambda done, total, label: None)
    scenario: Scenario = SCENARIOS[options.scenario]
    if options.workdir is not None and options.workdir.exists() and any(options.workdir.iterdir()):
        raise FileExistsError(f"{options.workdir} is not empty; the evaluation needs a fresh folder")
    root = options.workdir or Path(tempfile.mkdtemp(prefix="devagent-eval-"))
    root.mkdir(parents=True, exist_ok=True)
    friday, monday = scenario_days()
    total = len(options.modes) * (1 + options.runs)
    done = 0
    results: dict[str, Any] = {
        "scenario": scenario.name,
        "title": scenario.title,
        "started": datetime.now().astimezone().isoformat(timespec="seconds"),
        "model": options.config.model,
        "effort": options.config.effort,
        "runs": options.runs,
        # The cited variant changes the repository before Monday too: it is scored as stale.
        "stale": options.stale or options.cited,
        "cited": options.cited,
        "friday": friday.isoformat(),
        "monday": monday.isoformat(),
        "friday_questions": list(scenario.friday),
        "monday_questions": list(scenario.monday),
        "correct_out_of": scenario.correct_out_of(options.stale or options.cited),
        "modes": [],
    }
    try:
        for mode in options.modes:
            config = replace(options.config, memory_mode=mode)
            place = root / mode
            fixture = scenario.build(place)
            friday_data = place / "friday-data"
            friday_data.mkdir(parents=True, exist_ok=True)
            progress(done, total, f"{mode}: Friday")
            entry: dict[str, Any] = {"mode": mode, "mondays": []}
            try:
                entry["friday"] = scenario.run_friday(fixture, config, friday_data, friday, _client(options))
            except Exception as err:
                entry["friday"] = {"error": f"{type(err).__name__}: {err}", "memory_score": None}
            done += 1
            entry["friday"].update(
                scenario.weekend(fixture, config, friday_data, friday, stale=options.stale, cited=options.cited)
            )
            for number in range(1, options.runs + 1):
                progress(done, total, f"{mode}: Monday {number} of {options.runs}")
                data = place / f"monday-{number}-data"
                try:
                    result = scenario.run_monday(
                        fixture, config, friday_data, data, monday, _client(options), stale=options.stale or options.cited
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
