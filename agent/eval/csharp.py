"""The first scenario: a C# solution (ClaudeReviewBot) in the middle of a rename.

On Friday the user says which project matters, which warnings are noise, and that the
rename's last call site waits for Monday; Monday builds the project that matters, says what
is left, finishes the rename and builds it. Its repository is fixture.py and sources.py
(with the C# in solution/), its compiler dotnet_standin.py, its rules scoring.py and
finish.py; the stale and cited variants change the repository between the two days.
"""

from __future__ import annotations

import shutil
from dataclasses import replace
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from agent.eval.finish import FINISH, build_verdict, score_finish
from agent.eval.fixture import Fixture, build_fixture, dotnet_on_path
from agent.eval.scoring import correct_out_of, score_friday, score_monday
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
    "Why is the build red?",
    "The core project is the one I care about. The CLI is just a wrapper.",
    "And CS1591 is noise, ignore it. Nullable warnings are real.",
    "What did I change?",
    "I'm renaming Patch to Diff in ChangedFile. I'll finish ReviewOrchestrator on Monday.",
    "Run the tests.",
)
MONDAY = (
    BRIEFING,
    "Build the project I care about.",
    "What's left to finish the rename?",
)


def run_friday(fixture: Fixture, config: AgentConfig, data: Path, friday: datetime, client: Any) -> dict[str, Any]:
    # Friday leaves the rename for Monday, and nobody is there to review a change
    config = replace(config, code_writes="off")
    with scoped_env(XDG_DATA_HOME=str(data)), dotnet_on_path(fixture):
        run = run_session(fixture.repo, config, FRIDAY, now=friday, client=client)
        folder = memory_folder(fixture.repo)
    files = memory_files(folder)
    age_files(data, friday)
    result = {
        "turns": turns_to_json(run.turns),
        "usage": usage_total(run.turns),
        "errors": turn_errors(run.turns),
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
        "usage": usage_total(run.turns),
        "errors": turn_errors(run.turns),
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
        age_files(data, friday)
        text = CITED_MEMORY
    fixture.fix_call_site()
    fixture.commit("Finish the rename: ReviewOrchestrator reads file.Diff", when=friday + timedelta(days=1))
    return text


class CSharpScenario:
    """The Friday/Monday of the C# rename, as the harness runs every scenario."""

    name = "csharp"
    title = "C# rename (ClaudeReviewBot, dotnet)"
    friday: tuple[str, ...] = FRIDAY
    monday: tuple[str, ...] = MONDAY + FINISH

    def build(self, place: Path) -> Fixture:
        return build_fixture(place)

    def run_friday(self, fixture: Fixture, config: AgentConfig, data: Path, friday: datetime, client: Any) -> dict[str, Any]:
        return run_friday(fixture, config, data, friday, client)

    def weekend(self, fixture: Fixture, config: AgentConfig, data: Path, friday: datetime,
                *, stale: bool, cited: bool) -> dict[str, Any]:
        """What the friday entry gains from the weekend (the cited memory), if anything."""
        if cited:
            return {"cited_memory": cite_call_site(fixture, config, data, friday)}
        if stale:
            fixture.fix_call_site()
        return {}

    def run_monday(self, fixture: Fixture, config: AgentConfig, friday_data: Path, data: Path, monday: datetime,
                   client: Any, *, stale: bool) -> dict[str, Any]:
        return run_monday(fixture, config, friday_data, data, monday, client, stale)

    def correct_out_of(self, stale: bool) -> int:
        return correct_out_of(stale)

    def names(self) -> set[str]:
        """The names this scenario is made of that the prompt-names check cannot find by their
        shape (it finds the C# types, error codes and projects in the files themselves)."""
        from agent.eval import cited, fixture, sources

        return {fixture.BRANCH, sources.SOLUTION_NAME, cited.CITED_PATH.rsplit("/", 1)[-1].removesuffix(".md")}
