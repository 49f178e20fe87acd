"""How a build or test run ended travels with its result and the tool-finished event: a
run that failed is a successful tool call, but never a success."""

from __future__ import annotations

import threading
import time

import pytest

from agent.cancel import Cancellation
from agent.events import ToolFinished, ToolOutcome
from agent.settings.config import AgentConfig
from agent.tools.base import ToolContext
from agent.tools.build import BuildTool, RunTestsTool
from tests.agent.sessions import session as new_session
from tests.agent.sessions import trusted
from tests.double.server import text, tool_use
from tests.repos import git_repo
from tests.tools.repos import ctx_for, python_repo


def write_tests(repo, name: str, body: str) -> None:
    (repo / "tests" / name).write_text(body)


def test_a_build_exiting_101_is_failed_not_ok(tmp_path):
    repo = git_repo(tmp_path / "crate")
    command = "echo 'error: could not compile `demo` (lib) due to 1 previous error' >&2; exit 101"
    result = BuildTool().run({}, ToolContext(repo, Cancellation(), AgentConfig(build_command=command)))
    assert not result.is_error
    assert result.outcome == ToolOutcome.FAILED
    assert result.summary != "ok, 0 warnings" and "101" in result.summary


@pytest.mark.slow
def test_pytest_errors_without_failures_are_errors(tmp_path):
    repo = python_repo(tmp_path / "calc")
    for i in range(5):
        write_tests(repo, f"test_broken_{i}.py", "import not_a_module_anywhere\n\ndef test_x():\n    pass\n")
    result = RunTestsTool().run({"project": "tests"}, ctx_for(repo))
    assert "exit code 2" in result.text
    assert result.outcome == ToolOutcome.ERROR
    assert "5 errors" in result.summary


@pytest.mark.slow
def test_pytest_31_failed_297_passed_is_failed(tmp_path):
    repo = python_repo(tmp_path / "calc")
    (repo / "tests" / "test_calc.py").unlink()
    write_tests(repo, "test_many.py", (
        "import pytest\n\n@pytest.mark.parametrize('n', range(328))\n"
        "def test_n(n):\n    assert n >= 31\n"
    ))
    result = RunTestsTool().run({}, ctx_for(repo))
    assert result.summary == "31 failed, 297 passed · .venv"
    assert result.outcome == ToolOutcome.FAILED


@pytest.mark.slow
def test_no_tests_collected_is_nothing_run(tmp_path):
    repo = python_repo(tmp_path / "calc")
    (repo / "tests" / "test_calc.py").unlink()
    result = RunTestsTool().run({}, ctx_for(repo))
    assert result.outcome == ToolOutcome.EMPTY
    assert result.text.startswith("No tests ran")
    filtered = python_repo(tmp_path / "other")
    result = RunTestsTool().run({"filter": "matches_nothing"}, ctx_for(filtered))
    assert result.outcome == ToolOutcome.EMPTY


@pytest.mark.slow
def test_passing_tests_are_ok(tmp_path):
    repo = python_repo(tmp_path / "calc")
    (repo / "tests" / "test_calc.py").write_text("def test_ok():\n    assert True\n")
    assert RunTestsTool().run({}, ctx_for(repo)).outcome == ToolOutcome.OK


def test_a_cancelled_run_is_cancelled(tmp_path):
    repo = git_repo(tmp_path / "slow")
    cancel = Cancellation()
    ctx = ToolContext(repo, cancel, AgentConfig(build_command="sleep 30"))
    threading.Timer(0.5, cancel.cancel).start()
    began = time.monotonic()
    result = BuildTool().run({}, ctx)
    assert time.monotonic() - began < 10
    assert result.outcome == ToolOutcome.CANCELLED


@pytest.mark.slow
def test_the_outcome_reaches_the_tool_finished_event(claude_double, tmp_path):
    repo = python_repo(tmp_path / "calc")
    claude_double.add(tool_use("test", {}))
    claude_double.add(text("One test fails."))
    session = new_session(repo, trust=trusted(repo), memory_mode="none")
    events: list = []
    session.send("run the tests", events.append)
    session.close()
    (finished,) = [e for e in events if isinstance(e, ToolFinished)]
    assert finished.is_error is False
    assert finished.outcome == ToolOutcome.FAILED


def test_an_event_without_an_outcome_takes_it_from_is_error():
    assert ToolFinished(1, "t", "git_status", 0.1, False, "clean").outcome == ToolOutcome.OK
    assert ToolFinished(1, "t", "read_file", 0.1, True, "not found").outcome == ToolOutcome.ERROR
    assert ToolFinished(1, "t", "test", 0.1, False, "", None, "empty").outcome == ToolOutcome.EMPTY
