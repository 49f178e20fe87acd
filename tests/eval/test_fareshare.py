"""The fareshare scenario through the Claude double, a scripted model answering from each
request alone, a real git repository and a real pytest run by the test tool."""

from __future__ import annotations

import json
import subprocess

import pytest

from agent.eval import side_by_side
from agent.eval.fareshare import FRIDAY, MONDAY
from agent.eval.fareshare_fixture import WEEKEND_SUBJECT
from agent.eval.harness import EvalOptions, run_eval, run_scenarios
from agent.settings.config import AgentConfig
from tests.eval import scripted_fareshare_model, scripted_model
from tests.eval.test_harness import tokens_of


def options(tmp_path, modes, **more):
    return EvalOptions(modes=modes, runs=1, config=AgentConfig(thinking="off"), workdir=tmp_path / "work", **more)


@pytest.mark.slow
def test_memory_carries_the_four_facts_and_the_weekend_is_checked(claude_double, tmp_path):
    claude_double.responder = scripted_fareshare_model.respond
    claude_double.count_tokens = tokens_of
    results = run_eval(options(tmp_path, ("none", "preloaded", "index"), scenario="python"))
    assert results["scenario"] == "python" and results["correct_out_of"] == 6
    assert results["friday_questions"] == list(FRIDAY) and results["monday_questions"] == list(MONDAY)
    by_mode = {m["mode"]: m for m in results["modes"]}

    for name in ("preloaded", "index"):
        friday = by_mode[name]["friday"]
        assert not friday["errors"], friday["errors"]
        assert friday["facts_kept"] == ["convention", "owner", "decision", "plan"]
        # Friday's test run was pytest, for real, in the repository's .venv
        run = next(i for t in friday["turns"] for i in t["items"] if i["kind"] == "tool" and i["name"] == "test")
        assert "4 passed" in run["result"], run["result"]
        monday = by_mode[name]["mondays"][0]
        assert monday["score"] == {**monday["score"], "reports_colleague": True, "next_is_the_bump": True,
                                   "test_is_plain_pytest": True, "names_owner": True,
                                   "keeps_sqlite_for_offline": True, "briefing_contradicted": [], "correct": 6}, name
        # the model's new test was written into the repository, and the suite passed with it
        assert "def test_shares_add_up_after_rounding" in monday["test_files_after"]["tests/test_fees.py"]
        assert monday["tests_green_after"] is True

    none = by_mode["none"]["mondays"][0]["score"]
    assert by_mode["none"]["friday"]["facts_kept"] == []
    # It saw the colleague's commit in the briefing's git_log, but keeps none of Friday's facts.
    assert none["reports_colleague"] is True
    assert (none["next_is_the_bump"], none["test_is_plain_pytest"], none["names_owner"],
            none["keeps_sqlite_for_offline"]) == (False, False, False, False)
    assert none["correct"] == 2

    repo = tmp_path / "work" / "preloaded" / "fareshare"
    log = subprocess.run(["git", "log", "--format=%an|%s"], cwd=repo, capture_output=True, text=True, check=True).stdout
    assert log.splitlines()[0] == f"Teodor Lind|{WEEKEND_SUBJECT}"
    # Each Monday leaves the repository as the weekend did: the next one starts from there.
    assert not (repo / "tests" / "test_fees.py").exists()
    status = subprocess.run(["git", "status", "--porcelain"], cwd=repo, capture_output=True, text=True, check=True)
    assert status.stdout == ""
    table = side_by_side.markdown({"scenarios": [results]})
    assert "| Memory, preloaded (`preloaded`) | 6.0 of 6 |" in table


@pytest.mark.slow
def test_a_briefing_that_repeats_the_plan_is_contradicted(claude_double, tmp_path):
    from agent.loop.welcome_back import OWN_WORDS
    from tests.double.server import reply

    def stale(request):
        if OWN_WORDS in request.last_user_text():
            return reply("Welcome back. Next on release 0.4 is to document --json in the README.")
        return scripted_fareshare_model.respond(request)

    claude_double.responder = stale
    claude_double.count_tokens = tokens_of
    results = run_eval(options(tmp_path, ("preloaded",), scenario="python"))
    score = results["modes"][0]["mondays"][0]["score"]
    assert score["briefing_contradicted"] == ["Next on release 0.4 is to document --json in the README."]
    assert score["reports_colleague"] is False and score["correct"] == 4


@pytest.mark.slow
def test_both_scenarios_side_by_side_from_the_command_line(claude_double, tmp_path, monkeypatch, capsys):
    from tui.cli import main

    # The scenarios run one after the other, C# first: from the Python Friday's first
    # question on, every request is the Python scenario's.
    python = []

    def either(request):
        if request.first_user_text().strip().endswith(FRIDAY[0]):
            python.append(True)
        return (scripted_fareshare_model if python else scripted_model).respond(request)

    claude_double.responder = either
    monkeypatch.chdir(tmp_path)
    assert main(["eval", "--runs", "1", "--modes", "preloaded", "--out", "report", "--scenario", "both"]) == 0
    out = capsys.readouterr()
    assert "4/4 runs done, 0 left" in out.err
    header = out.out.splitlines()[0]
    assert "C# rename (ClaudeReviewBot, dotnet): correct" in header
    assert "Python release checklist (fareshare, pytest): correct" in header
    row = next(line for line in out.out.splitlines() if line.startswith("| Memory, preloaded"))
    assert "| 3.0 of 3 |" in row and "| 6.0 of 6 |" in row
    saved = json.loads((tmp_path / "report" / "results.json").read_text())
    assert [s["scenario"] for s in saved["scenarios"]] == ["csharp", "python"]
    assert all(s["summary"][0]["mode"] == "preloaded" for s in saved["scenarios"])
    report = (tmp_path / "report" / "report.md").read_text()
    assert "## C# rename (ClaudeReviewBot, dotnet)" in report and "## Python release checklist" in report
    assert (tmp_path / "report" / "chart.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_run_scenarios_refuses_a_folder_in_use(tmp_path):
    (tmp_path / "work" / "python").mkdir(parents=True)
    with pytest.raises(FileExistsError):
        run_scenarios(options(tmp_path, ("none",)), ("csharp", "python"))
