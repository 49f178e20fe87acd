"""The second scenario: fareshare, a Python command line tested with pytest.

Unlike the first it keeps no build error and no rename: on Friday the user states facts a
repository cannot tell (a convention, who owns a module, a decision and its reason) and a
plan shaped as a checklist with one step done; over the weekend a colleague does the
plan's next step and commits it. Monday opens with the briefing and then needs those
facts. The rules are in fareshare_scoring.py, the repository in fareshare_fixture.py.
"""

from __future__ import annotations

import shutil
from dataclasses import replace
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from agent.eval.fareshare_fixture import WEEKEND_SUBJECT, PythonFixture, build_python_fixture
from agent.eval.fareshare_scoring import OUT_OF, facts_kept, score_fareshare_monday
from agent.eval.scoring import score_friday
from agent.eval.sessions import (
    BRIEFING,
    age_files,
    memory_files,
    memory_folder,
    run_session,
    scoped_env,
    turn_errors,
    usage_total,
)
from agent.eval.turn_records import turns_to_json
from agent.settings.config import AgentConfig

FRIDAY = (
    "Run the tests.",
    "Tests here are plain pytest functions with fixtures in conftest.py, never unittest classes.",
    "Margit owns payouts/; any change there goes through her.",
    "We keep SQLite, not Postgres, because the CLI must run offline.",
    "Release 0.4 checklist: 1. add --json to the export command (done), 2. document it in the README, "
    "3. bump the version. I'll carry on with it on Monday.",
)
MONDAY = (
    BRIEFING,
    "What's next for the release?",
    "Add a test for the rounding in payouts/fees.py.",
    "Should we switch the store to Postgres?",
)


def tests_green(repo: Path, config: AgentConfig) -> bool:
    """Whether the suite passes now, by the test tool the model has."""
    from agent.tool_outcome import ToolOutcome
    from agent.tools.base import ToolContext
    from agent.tools.build import RunTestsTool

    result = RunTestsTool().run({}, ToolContext(repo, config=config))
    return not result.is_error and (result.outcome or "ok") == ToolOutcome.OK


class FareshareScenario:
    name = "python"
    title = "Python release checklist (fareshare, pytest)"
    friday: tuple[str, ...] = FRIDAY
    monday: tuple[str, ...] = MONDAY

    def build(self, place: Path) -> PythonFixture:
        return build_python_fixture(place)

    def run_friday(self, fixture: PythonFixture, config: AgentConfig, data: Path, friday: datetime,
                   client: Any) -> dict[str, Any]:
        config = replace(config, code_writes="off")  # Friday only talks
        with scoped_env(XDG_DATA_HOME=str(data)):
            run = run_session(fixture.repo, config, FRIDAY, now=friday, client=client)
            files = memory_files(memory_folder(fixture.repo))
        age_files(data, friday)
        kept = dict(files)
        if run.notes:
            kept["notes"] = run.notes
        return {
            "turns": turns_to_json(run.turns),
            "usage": usage_total(run.turns),
            "errors": turn_errors(run.turns),
            "memory_files": files,
            "memory_score": score_friday(files).to_json(),
            "notes": run.notes,
            "notes_score": score_friday({"notes": run.notes}).to_json() if run.notes else None,
            "facts_kept": facts_kept(kept),
        }

    def weekend(self, fixture: PythonFixture, config: AgentConfig, data: Path, friday: datetime,
                *, stale: bool, cited: bool) -> dict[str, Any]:
        """Teodor documents --json on Saturday: the checklist's second step is done. The C#
        scenario's variants (stale, cited) change nothing here: this weekend always happens."""
        fixture.document_json(friday + timedelta(days=1))
        return {"weekend": WEEKEND_SUBJECT, "weekend_head": fixture.head()}

    def run_monday(self, fixture: PythonFixture, config: AgentConfig, friday_data: Path, data: Path,
                   monday: datetime, client: Any, *, stale: bool) -> dict[str, Any]:
        shutil.copytree(friday_data, data)
        head = fixture.head()
        config = replace(config, code_writes="auto")  # the new test is written: nobody reviews it
        with scoped_env(XDG_DATA_HOME=str(data)):
            run = run_session(fixture.repo, config, MONDAY, now=monday, client=client,
                              count_first_request=True, close=False)
            green = tests_green(fixture.repo, config)
        written = {p: t for p, t in fixture.test_files().items()}
        fixture.reset_to(head)  # the next Monday starts from the weekend's repository
        return {
            "first_request_tokens": run.first_request_tokens,
            "first_request_error": run.first_request_error,
            "told": run.context,
            "score": score_fareshare_monday(run.turns).to_json(),
            "tests_green_after": green,
            "test_files_after": written,
            "usage": usage_total(run.turns),
            "errors": turn_errors(run.turns),
            "turns": turns_to_json(run.turns),
        }

    def correct_out_of(self, stale: bool) -> int:
        return OUT_OF

    def names(self) -> set[str]:
        """What this scenario is made of, for the check that no prompt names it: the package,
        its modules, the people, the stores, the flag, the release."""
        from agent.eval import fareshare_fixture as f

        people = {f.OWNER, *f.COLLEAGUE["GIT_AUTHOR_NAME"].split()}
        modules = {"fareshare", "payouts", "fees", "settle", "store", "cli", "conftest"}
        return people | {"SQLite", "Postgres", "--json", "release 0.4", "export command", "unittest"} | {
            f"{m}.py" for m in modules - {"fareshare", "payouts"}} | {f.NAME, f.OWNED, "payouts/"}
