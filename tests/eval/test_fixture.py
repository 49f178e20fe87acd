"""The fixture repository and its `dotnet` stand-in, run as real processes."""

from __future__ import annotations

import os
import subprocess
from importlib.resources import files

import pytest

from agent.eval import sources
from agent.eval.fixture import BRANCH, build_fixture, dotnet_on_path


@pytest.fixture
def fixture(tmp_path):
    return build_fixture(tmp_path / "eval")


def run(fixture, *args, cwd=None):
    env = {**os.environ, "PATH": f"{fixture.bin_dir}{os.pathsep}{os.environ['PATH']}"}
    return subprocess.run(
        ["dotnet", *args], cwd=cwd or fixture.repo, env=env, capture_output=True, text=True, timeout=30
    )


def git(fixture, *args):
    return subprocess.run(["git", *args], cwd=fixture.repo, capture_output=True, text=True, check=True).stdout


def test_repository_is_mid_rename_on_a_branch_with_uncommitted_changes(fixture):
    assert git(fixture, "branch", "--show-current").strip() == BRANCH
    changed = sorted(line[3:] for line in git(fixture, "status", "--porcelain").splitlines())
    assert changed == [
        "src/ClaudeReviewBot.Core/Diffs/DiffParser.cs",
        "src/ClaudeReviewBot.Core/Models/ChangedFile.cs",
        "src/ClaudeReviewBot.Core/Review/PromptBuilder.cs",
        "src/ClaudeReviewBot.Core/Review/ReviewOrchestrator.cs",
    ]
    # The committed version still says Patch everywhere: the rename exists only in the tree.
    assert "string? Patch" in git(fixture, "show", "HEAD:src/ClaudeReviewBot.Core/Models/ChangedFile.cs")
    lines = fixture.call_site.read_text().splitlines()
    assert lines[sources.CALL_SITE_LINE - 1].strip() == sources.LEFT_OVER
    assert sum(".Patch" in line for line in lines) == 1


def test_build_fails_with_one_cs1061_at_the_call_site_and_warns_cs1591(fixture):
    result = run(fixture, "build")
    assert result.returncode == 1
    errors = [line for line in result.stdout.splitlines() if ": error " in line]
    # MSBuild repeats every diagnostic in its summary after "Build FAILED."
    assert len(errors) == 2 and errors[0] == errors[1]
    assert errors[0].startswith(f"{fixture.call_site}(111,34): error CS1061: 'ChangedFile' does not contain")
    assert errors[0].endswith("ClaudeReviewBot.Core.csproj]")
    assert "warning CS1591" in result.stdout
    assert "    1 Error(s)" in result.stdout and "Build FAILED." in result.stdout


@pytest.mark.parametrize("target", ["src/ClaudeReviewBot.Core", "src/ClaudeReviewBot.Cli/ClaudeReviewBot.Cli.csproj", "ClaudeReviewBot.sln"])
def test_every_target_fails_while_the_call_site_is_left(fixture, target):
    result = run(fixture, "build", target, "--nologo", "-v", "q")
    assert result.returncode == 1
    assert "error CS1061" in result.stdout


def test_fixing_the_call_site_turns_build_and_tests_green(fixture):
    assert run(fixture, "test").returncode == 1
    fixture.fix_call_site()
    assert fixture.call_site_fixed()
    build = run(fixture, "build", "src/ClaudeReviewBot.Core")
    assert build.returncode == 0, build.stdout
    assert "Build succeeded." in build.stdout and "    0 Warning(s)" in build.stdout
    assert "CS1591" not in build.stdout
    assert f"ClaudeReviewBot.Core -> {fixture.repo}/src/ClaudeReviewBot.Core/bin/Debug/net8.0/ClaudeReviewBot.Core.dll" in build.stdout
    tests = run(fixture, "test")
    assert tests.returncode == 0
    assert "Passed!  - Failed:     0, Passed:     4, Skipped:     0, Total:     4" in tests.stdout
    filtered = run(fixture, "test", "--filter", "FullyQualifiedName~Binary")
    assert "Total:     1" in filtered.stdout


def test_stand_in_refuses_what_msbuild_refuses(fixture):
    missing = run(fixture, "build", "src/Nope")
    assert missing.returncode == 1 and "MSB1009" in missing.stdout
    empty = run(fixture, "build", cwd=fixture.repo / "src")
    assert empty.returncode == 1 and "MSB1003" in empty.stdout


def test_stand_in_logs_every_call_and_dotnet_on_path_restores_path(fixture):
    before = os.environ["PATH"]
    with dotnet_on_path(fixture):
        assert os.environ["PATH"].split(os.pathsep)[0] == str(fixture.bin_dir)
        subprocess.run(["dotnet", "build", "src/ClaudeReviewBot.Core"], cwd=fixture.repo, capture_output=True)
    assert os.environ["PATH"] == before
    assert fixture.dotnet_calls() == [["build", "src/ClaudeReviewBot.Core"]]
    fixture.clear_dotnet_log()
    assert fixture.dotnet_calls() == []


def test_building_over_an_existing_folder_is_refused_and_leaves_it_alone(tmp_path):
    kept = tmp_path / "eval" / "ClaudeReviewBot"
    kept.mkdir(parents=True)
    (kept / "notes.txt").write_text("mine")
    with pytest.raises(FileExistsError):
        build_fixture(tmp_path / "eval")
    assert (kept / "notes.txt").read_text() == "mine"


def test_the_sources_are_data_files_of_the_package():
    # C# kept as C# (read through importlib.resources, so the wheel carries them too), and
    # every placeholder filled in on both branches.
    folder = files("agent.eval") / "solution"
    assert (folder / sources.ORCHESTRATOR).is_file() and (folder / f"{sources.SOLUTION_NAME}.sln").is_file()
    for tree in (sources.tree("Patch"), sources.tree("Diff", left_over=True)):
        assert not any("{member}" in text or "{call_site}" in text or "{{" in text for text in tree.values())
    assert sources.tree("Diff", left_over=True)[sources.ORCHESTRATOR].splitlines()[sources.CALL_SITE_LINE - 1].strip() == sources.LEFT_OVER
