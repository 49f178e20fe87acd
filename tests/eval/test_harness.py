"""The whole harness against the Claude double and a scripted model.

These check the harness, not the model: that every number in the results is the one the
double's recorded requests say, that each Monday starts from the same Friday, that the
outputs are written, and that the staleness variant really fixes the call site.
"""

from __future__ import annotations

import json
import subprocess

import pytest

from agent.eval.harness import MONDAY, EvalOptions, run_eval
from agent.eval.report import markdown_table, write_report
from agent.loop.welcome_back import OWN_WORDS
from agent.settings.config import AgentConfig
from tests.eval.scripted_model import respond
from tests.marked_text import without_ids


def tokens_of(request) -> int:
    """A deterministic count the test can recompute from any recorded request."""
    body = request.body
    return len(json.dumps([body.get("system"), body.get("tools"), body.get("messages")], sort_keys=True)) // 4


class Runs:
    """Splits the double's recorded requests by the harness's progress reports."""

    def __init__(self, double) -> None:
        self.double = double
        self.marks: list[tuple[str, int]] = []

    def __call__(self, done: int, total: int, label: str) -> None:
        self.marks.append((label, len(self.double.requests)))

    def requests(self, label: str) -> list:
        for i, (name, start) in enumerate(self.marks):
            if name == label:
                end = self.marks[i + 1][1] if i + 1 < len(self.marks) else len(self.double.requests)
                return self.double.requests[start:end]
        raise KeyError(label)


def run(claude_double, tmp_path, modes, runs=2, stale=False):
    claude_double.responder = respond
    claude_double.count_tokens = tokens_of
    progress = Runs(claude_double)
    options = EvalOptions(
        modes=modes, runs=runs, stale=stale, config=AgentConfig(thinking="off"), workdir=tmp_path / "work"
    )
    results = run_eval(options, progress)
    return results, progress


def _no_ids(value):
    """`value` with every mark's id taken out of its strings."""
    if isinstance(value, str):
        return without_ids(value)
    if isinstance(value, list):
        return [_no_ids(v) for v in value]
    if isinstance(value, dict):
        return {k: _no_ids(v) for k, v in value.items()}
    return value


def messages_only(requests):
    return [r for r in requests if r.path.split("?")[0].rstrip("/") == "/v1/messages"]


def counts(requests):
    return [r for r in requests if r.path.split("?")[0].rstrip("/") == "/v1/messages/count_tokens"]


MODES = ("none", "history", "window", "summary", "on-demand", "preloaded", "index")


@pytest.mark.slow
def test_every_mode_against_the_double(claude_double, tmp_path):
    results, progress = run(claude_double, tmp_path, MODES, runs=2)
    assert [m["mode"] for m in results["modes"]] == list(MODES)
    labels = [label for label, _ in progress.marks]
    assert labels[-1] == "done" and len(labels) == len(MODES) * 3 + 1

    for mode in results["modes"]:
        name = mode["mode"]
        assert not mode["friday"].get("errors"), (name, mode["friday"])
        firsts = []
        for monday in mode["mondays"]:
            label = f"{name}: Monday {monday['run']} of 2"
            requests = progress.requests(label)
            calls = messages_only(requests)
            # API calls come from the session's own usage; they must match what the double saw.
            assert monday["score"]["api_calls"] + monday["finish"]["api_calls"] == len(calls), (name, monday["run"])
            # the fourth step: the editor finished the rename and the build is green
            assert monday["finish"] == {**monday["finish"], "edited": True, "built": True, "build_green": True}, name
            # The first-request count is the count of exactly the first request Monday sent.
            counted = counts(requests)
            assert len(counted) == 1
            first = calls[0].body
            assert counted[0].body["messages"] == first["messages"]
            assert counted[0].body["system"] == first["system"]
            assert counted[0].body["tools"] == first["tools"]
            assert monday["first_request_tokens"] == tokens_of(counted[0])
            # Monday sees Monday's date and none of another Monday's words.
            text = json.dumps(first)
            assert "Monday" in calls[0].first_user_text() or "Today is" in text
            for question in MONDAY[1:]:
                assert question not in text
            firsts.append(_no_ids(first))
        # Every Monday of a mode starts from the same Friday: the same first request, but for
        # the marks' ids, drawn afresh for each session (agent.marks).
        assert all(f == firsts[0] for f in firsts), name

    by_mode = {m["mode"]: m for m in results["modes"]}
    score = lambda mode, key: [m["score"][key] for m in by_mode[mode]["mondays"]]  # noqa: E731
    # What each mode's request carried decides the scripted answers; the harness must see it.
    assert score("none", "says_what_was_left") == [False, False]
    assert score("none", "builds_core_without_asking") == [False, False]
    assert score("history", "says_what_was_left") == [True, True]
    assert score("history", "builds_core_without_asking") == [True, True]
    assert score("window", "says_what_was_left") == [True, True]
    assert score("window", "builds_core_without_asking") == [False, False]
    for mode in ("summary", "on-demand", "preloaded", "index"):
        assert score(mode, "says_what_was_left") == [True, True], mode
        assert score(mode, "builds_core_without_asking") == [True, True], mode
    for mode in MODES:
        assert score(mode, "third_backed_by_tool") == [True, True], mode

    # Friday's memory: three files in the memory modes, one line of them state.
    for mode in ("on-demand", "preloaded", "index"):
        friday = by_mode[mode]["friday"]
        assert sorted(friday["memory_files"]) == ["/memories/plan.md", "/memories/project.md", "/memories/warnings.md"]
        assert friday["memory_score"]["memory_files"] == 3
        assert friday["memory_score"]["state_lines"] == 1
    for mode in ("none", "history", "window"):
        assert by_mode[mode]["friday"]["memory_score"]["memory_files"] == 0
    assert by_mode["summary"]["friday"]["notes_score"]["state_lines"] == 1

    paths = write_report(results, tmp_path / "out")
    table = paths["markdown"].read_text()
    assert table.count("\n| ") == len(MODES) + 1  # header and one row per mode
    assert "| No memory (`none`) |" in table
    assert paths["chart"].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    saved = json.loads(paths["json"].read_text())
    assert len(saved["modes"]) == len(MODES)
    assert all(len(m["mondays"]) == 2 and m["mondays"][0]["turns"] for m in saved["modes"])
    assert {s["mode"] for s in saved["summary"]} == set(MODES)
    print(markdown_table(results))


@pytest.mark.slow
def test_each_monday_gets_its_own_copy_of_friday(claude_double, tmp_path):
    results, _ = run(claude_double, tmp_path, ("history", "preloaded"), runs=2)
    work = tmp_path / "work"
    for mode in ("history", "preloaded"):
        friday = work / mode / "friday-data"
        friday_files = sorted(p.relative_to(friday) for p in friday.rglob("*") if p.is_file())
        assert friday_files
        for n in (1, 2):
            monday = work / mode / f"monday-{n}-data"
            for relative in friday_files:
                if relative.suffix == ".md":  # memories stay as Friday left them
                    assert (monday / relative).read_bytes() == (friday / relative).read_bytes()
            # Friday's folder never receives a Monday transcript.
            transcripts = [p for p in friday.rglob("*.jsonl")]
            assert len(transcripts) == 1
            assert OWN_WORDS not in transcripts[0].read_text()
    history = next(m for m in results["modes"] if m["mode"] == "history")
    assert history["mondays"][0]["first_request_tokens"] == history["mondays"][1]["first_request_tokens"]


@pytest.mark.slow
def test_stale_variant_fixes_the_call_site_before_monday(claude_double, tmp_path):
    results, progress = run(claude_double, tmp_path, ("preloaded",), runs=1, stale=True)
    mode = results["modes"][0]
    friday = mode["friday"]
    monday = mode["mondays"][0]
    # Friday built against the left-over call site, Monday against the fixed one.
    assert friday["dotnet_calls"][0][0] == "build"
    friday_build = next(i for t in friday["turns"] for i in t["items"] if i["kind"] == "tool" and i["name"] == "build")
    assert "CS1061" in friday_build["result"]
    assert monday["call_site_fixed"] is True
    fixed = (tmp_path / "work" / "preloaded" / "ClaudeReviewBot" / "src/ClaudeReviewBot.Core/Review/ReviewOrchestrator.cs")
    assert "file.Patch" not in fixed.read_text() and "var patchText = file.Diff;" in fixed.read_text()
    monday_builds = [i for t in monday["turns"] for i in t["items"] if i["kind"] == "tool" and i["name"] == "build"]
    assert monday_builds and all("CS1061" not in b["result"] for b in monday_builds)
    assert monday["dotnet_calls"] and all(c[0] == "build" for c in monday["dotnet_calls"])
    assert results["stale"] is True
    table = markdown_table(results)
    assert "Said red without building" in table
    assert monday["score"]["red_without_building"] is False


@pytest.mark.slow
def test_cli_writes_the_three_outputs_from_any_folder(claude_double, tmp_path, monkeypatch, capsys, user_dirs):
    import tempfile

    from tui.cli import main

    claude_double.responder = respond
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    elsewhere = tmp_path / "somewhere" / "else"
    elsewhere.mkdir(parents=True)
    monkeypatch.chdir(elsewhere)
    status = main(["eval", "--scenario", "csharp", "--runs", "1", "--modes", "none,preloaded", "--out", "report", "--effort", "low"])
    assert status == 0
    out = capsys.readouterr()
    assert "| Memory, preloaded (`preloaded`) |" in out.out
    assert "2/4 runs done, 2 left" in out.err and "4/4 runs done, 0 left" in out.err
    for name in ("report.md", "results.json", "chart.png"):
        assert (elsewhere / "report" / name).stat().st_size > 0
    assert (elsewhere / "report" / "chart.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    saved = json.loads((elsewhere / "report" / "results.json").read_text())
    assert [m["mode"] for m in saved["modes"]] == ["none", "preloaded"]
    assert saved["effort"] == "low"
    # Its fixtures and data folders were temporary, and the user's own data was never touched.
    assert list(scratch.iterdir()) == []
    assert list(user_dirs["data"].iterdir()) == []
    assert sorted(p.name for p in elsewhere.iterdir()) == ["report"]


def test_cli_without_a_key_says_how_to_set_one(monkeypatch, tmp_path, capsys, user_dirs):
    from tui.cli import main

    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_AUTH_TOKEN", raising=False)
    monkeypatch.chdir(tmp_path)
    assert main(["eval", "--runs", "1", "--modes", "none"]) == 2
    assert "ANTHROPIC_API_KEY" in capsys.readouterr().err
    assert not list(tmp_path.iterdir())


def test_cli_refuses_an_unknown_mode(capsys):
    from tui.cli import main

    with pytest.raises(SystemExit):
        main(["eval", "--modes", "none,forever"])
    assert "forever" in capsys.readouterr().err


@pytest.mark.slow
def test_an_api_error_on_monday_is_recorded_and_the_run_goes_on(claude_double, tmp_path):
    from tests.double.server import error

    refused = []

    def flaky(request):
        if not refused and OWN_WORDS in request.last_user_text():  # Monday's briefing
            refused.append(request)
            return error(400, "messages.0: scripted refusal")
        return respond(request)

    claude_double.count_tokens = tokens_of
    options = EvalOptions(modes=("none",), runs=1, config=AgentConfig(thinking="off"), workdir=tmp_path / "work")
    claude_double.responder = flaky
    results = run_eval(options)
    monday = results["modes"][0]["mondays"][0]
    assert monday["errors"] and "scripted refusal" in monday["errors"][0]
    assert monday["score"]["says_what_was_left"] is False
    # The later questions still ran: the second is answered, the third built.
    assert monday["turns"][2]["items"]
    assert "met an API or loop error" in markdown_table(results)


def test_cli_keep_refuses_a_folder_holding_an_earlier_run(claude_double, tmp_path, monkeypatch, capsys):
    from tui.cli import main

    earlier = tmp_path / "report" / "work" / "none"
    earlier.mkdir(parents=True)
    monkeypatch.chdir(tmp_path)
    assert main(["eval", "--runs", "1", "--modes", "none", "--out", "report", "--keep"]) == 2
    assert "earlier run" in capsys.readouterr().err
    assert claude_double.requests == []
    assert sorted(p.name for p in (tmp_path / "report").iterdir()) == ["work"]


@pytest.mark.slow
def test_stale_monday_that_repeats_the_note_is_caught(claude_double, tmp_path):
    from tests.double.server import reply

    def repeats_the_note(request):
        if OWN_WORDS in request.last_user_text() and "line 111" in request.system_text():
            return reply("You were renaming Patch to Diff. The build is red: ReviewOrchestrator still uses Patch at line 111.")
        return respond(request)

    claude_double.count_tokens = tokens_of
    claude_double.responder = repeats_the_note
    options = EvalOptions(
        modes=("none", "preloaded"), runs=1, stale=True, config=AgentConfig(thinking="off"), workdir=tmp_path / "work"
    )
    results = run_eval(options)
    none, preloaded = (m["mondays"][0]["score"] for m in results["modes"])
    assert preloaded["red_without_building"] is True
    assert none["red_without_building"] is False
    rows = [line for line in markdown_table(results).splitlines() if line.startswith("| Memory, preloaded")]
    assert "| 1 of 1 | 1 of 1 | 1 of 1 | 1 of 1 |" in rows[0]


@pytest.mark.slow
def test_cited_variant_tells_monday_the_call_site_changed(claude_double, tmp_path):
    claude_double.responder = respond
    claude_double.count_tokens = tokens_of
    options = EvalOptions(
        modes=("none", "preloaded", "index"), runs=1, cited=True, config=AgentConfig(thinking="off"), workdir=tmp_path / "work"
    )
    results = run_eval(options)
    assert results["cited"] is True and results["stale"] is True
    repo = tmp_path / "work" / "preloaded" / "ClaudeReviewBot"
    # The rename was finished and committed between Friday and Monday.
    log = subprocess.run(["git", "log", "--format=%s"], cwd=repo, capture_output=True, text=True, check=True).stdout
    assert log.splitlines()[0] == "Finish the rename: ReviewOrchestrator reads file.Diff"
    friday_head = subprocess.run(["git", "rev-parse", "--short=7", "HEAD~1"], cwd=repo, capture_output=True, text=True, check=True).stdout.strip()
    by_mode = {m["mode"]: m for m in results["modes"]}
    assert by_mode["none"]["friday"]["cited_memory"] is None and not by_mode["none"]["mondays"][0]["told"]
    for name in ("preloaded", "index"):
        told = by_mode[name]["mondays"][0]["told"]
        line = f"- /memories/project_rename.md: src/ClaudeReviewBot.Core/Review/ReviewOrchestrator.cs:111 changed since {friday_head}; 1 intact"
        assert line in told, told
    # What the model was told is what the double received.
    first_monday = [r for r in claude_double.messages_requests() if OWN_WORDS in r.last_user_text()]
    assert any("ReviewOrchestrator.cs:111 changed since" in r.system_text() for r in first_monday)
    paths = write_report(results, tmp_path / "out")
    report = paths["markdown"].read_text()
    assert report.startswith("# Friday and Monday (cited: Friday's memory cites the call site")
    section = report[report.index("## What Monday was told"):]
    assert "Memory, preloaded (`preloaded`):" in section and f"ReviewOrchestrator.cs:111 changed since {friday_head}" in section
    assert "`none`" not in section
