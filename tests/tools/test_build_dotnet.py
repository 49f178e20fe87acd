"""build and test on a .NET-shaped repository, through a `dotnet` that prints MSBuild output."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest

from agent.cancel import Cancellation
from agent.events import ToolOutcome
from agent.settings.config import AgentConfig
from agent.tools.base import ToolContext
from agent.tools.build import BuildTool, RunTestsTool
from tests.processes import alive
from tests.tools.repos import ctx_for, dotnet_repo, reports_left, tree

OUTPUT = Path(__file__).parent / "runner_output"


def test_build_lists_the_error_once_and_counts_warnings_by_code(tmp_path, fake_dotnet):
    repo = dotnet_repo(tmp_path / "shop")
    result = BuildTool().run({}, ctx_for(repo))

    assert not result.is_error  # the build ran; its failure is the answer
    assert result.text.startswith("Build failed (.NET: dotnet build Shop.sln")
    assert "1 error, 2 warnings" in result.text
    # MSBuild printed the error twice (in place and in the summary): listed once.
    assert result.text.count("CS1061") == 1
    assert "src/Shop.Core/Review/ReviewOrchestrator.cs:9:21 CS1061: 'ChangedFile' does not contain a definition for 'Patch'" in result.text
    assert "[Shop.Core.csproj]" in result.text
    assert "CS1591 x2" in result.text
    assert result.summary == "1 error, 2 warnings"
    # The full log keeps every line MSBuild printed, repeats included.
    assert result.log.count("error CS1061") == 2
    assert "Time Elapsed" in result.log
    # Paths are shown relative to the repository: the model reads them back with read_file.
    assert str(repo) not in result.text


def test_errors_come_before_warnings(tmp_path, fake_dotnet):
    repo = dotnet_repo(tmp_path / "shop")
    text = BuildTool().run({}, ctx_for(repo)).text
    assert text.index("Errors:") < text.index("Warnings by code:")


def test_multi_targeted_project_reports_each_diagnostic_once(tmp_path, fake_dotnet):
    repo = dotnet_repo(tmp_path / "shop", multi_target=True)
    result = BuildTool().run({}, ctx_for(repo))
    # Two frameworks, each printed in place and in the summary: four copies in the log.
    assert result.log.count("error CS1061") == 4
    assert result.text.count("CS1061") == 1
    assert "1 error, 2 warnings" in result.text


def test_fixed_build_succeeds(tmp_path, fake_dotnet):
    repo = dotnet_repo(tmp_path / "shop", broken=False)
    result = BuildTool().run({}, ctx_for(repo))
    assert not result.is_error
    assert result.text.startswith("Build succeeded")
    assert "0 errors, 2 warnings" in result.text
    assert result.summary == "ok, 2 warnings"


def test_build_one_project_by_its_short_name(tmp_path, fake_dotnet):
    repo = dotnet_repo(tmp_path / "shop", broken=False)
    result = BuildTool().run({"project": "Core"}, ctx_for(repo))
    assert "dotnet build src/Shop.Core/Shop.Core.csproj" in result.text
    assert result.text.startswith("Build succeeded")


def test_build_one_project_by_path(tmp_path, fake_dotnet):
    repo = dotnet_repo(tmp_path / "shop")
    result = BuildTool().run({"project": "src/Shop.Cli/Shop.Cli.csproj"}, ctx_for(repo))
    assert result.text.startswith("Build succeeded")
    assert "0 errors, 0 warnings" in result.text


def test_unknown_project_lists_what_there_is(tmp_path, fake_dotnet):
    repo = dotnet_repo(tmp_path / "shop")
    result = BuildTool().run({"project": "Web"}, ctx_for(repo))
    assert result.is_error
    assert "no project called Web" in result.text
    assert "src/Shop.Core/Shop.Core.csproj" in result.text


def test_project_outside_the_repository_is_refused(tmp_path, fake_dotnet):
    repo = dotnet_repo(tmp_path / "sandbox" / "shop")
    (tmp_path / "sandbox" / "Other.csproj").write_text("<Project />")
    for project in ("../Other.csproj", str(tmp_path / "sandbox" / "Other.csproj"), "--version"):
        result = BuildTool().run({"project": project}, ctx_for(repo))
        assert result.is_error, project
        assert "Other.csproj ->" not in (result.log or "")


def test_msbuild_error_without_a_file(tmp_path, fake_dotnet):
    repo = dotnet_repo(tmp_path / "shop")
    config = AgentConfig(build_command="dotnet build Missing.sln")
    result = BuildTool().run({}, ToolContext(repo, Cancellation(), config))
    assert result.text.startswith("Build failed (configured command: dotnet build Missing.sln; exit code 1")
    assert "  MSB1009: Project file does not exist." in result.text


def test_test_reports_failed_tests_with_their_reason(tmp_path, fake_dotnet):
    repo = dotnet_repo(tmp_path / "shop", broken=False, with_tests=True)
    result = RunTestsTool().run({}, ctx_for(repo))
    assert not result.is_error
    assert result.text.startswith("Tests failed (.NET: dotnet test Shop.sln")
    assert "1 failed, 1 passed" in result.text
    assert "FailsOnEmptyDiff: Assert.Equal() Failure: Values differ" in result.text
    assert result.summary == "1 failed, 1 passed"


@pytest.mark.usefixtures("unsandboxed")
def test_test_passes_the_filter_to_dotnet(tmp_path, fake_dotnet, monkeypatch):
    repo = dotnet_repo(tmp_path / "shop", broken=False, with_tests=True)
    calls = tmp_path / "argv"
    monkeypatch.setenv("FAKE_DOTNET_ARGV", str(calls))
    RunTestsTool().run({"filter": "FullyQualifiedName~Runs", "project": "Shop.Tests"}, ctx_for(repo))
    RunTestsTool().run({}, ctx_for(repo))
    argvs = [line.split("\0") for line in calls.read_text().splitlines()]
    assert [argv[:-4] for argv in argvs] == [
        ["test", "tests/Shop.Tests/Shop.Tests.csproj", "-nologo", "--filter", "FullyQualifiedName~Runs"],
        ["test", "Shop.sln", "-nologo"],
    ]
    # and each run asks for TRX files in a folder of its own, outside the repository
    assert all(argv[-4:-1] == ["--logger", "trx", "--results-directory"] for argv in argvs)
    assert argvs[0][-1] != argvs[1][-1] and not argvs[0][-1].startswith(str(repo))


@pytest.mark.usefixtures("unsandboxed")
def test_test_reads_the_trx_files_dotnet_writes(tmp_path, fake_dotnet, monkeypatch):
    # Two test projects, two TRX files (real ones, from xUnit and NUnit runs); the console
    # of the stand-in says "1 failed, 1 passed", so the counts show which was read.
    repo = dotnet_repo(tmp_path / "shop", broken=False, with_tests=True)
    trx = [str(OUTPUT / "dotnet_xunit_failures.trx"), str(OUTPUT / "dotnet_nunit_failures.trx")]
    monkeypatch.setenv("FAKE_DOTNET_TRX", os.pathsep.join(trx))
    before = reports_left()
    result = RunTestsTool().run({}, ctx_for(repo))
    assert result.summary == "8 failed, 7 passed, 2 skipped"
    assert result.outcome == ToolOutcome.FAILED
    assert result.text.startswith("Tests failed (.NET: dotnet test Shop.sln; exit code 1,")
    assert "  DotnetTests.XUnitTests.CalculatorTests.Failing_Test: Assert.Equal() Failure; Expected: 3; Actual: 2" in result.text
    assert "  SampleProject.NUnit.TestServiceTests.FailTest: Expected: True; But was: False" in result.text
    assert "FailsOnEmptyDiff" not in result.text
    assert reports_left() == before, "the TRX folder was left behind"
    assert ".trx" not in "".join(tree(repo))


@pytest.mark.usefixtures("unsandboxed")
def test_without_a_trx_file_the_console_is_read(tmp_path, fake_dotnet, monkeypatch):
    # Asked for TRX, dotnet wrote none (a test platform that ignores the logger does that).
    repo = dotnet_repo(tmp_path / "shop", broken=False, with_tests=True)
    calls = tmp_path / "argv"
    monkeypatch.setenv("FAKE_DOTNET_ARGV", str(calls))
    result = RunTestsTool().run({}, ctx_for(repo))
    assert "--logger\0trx" in calls.read_text()
    assert result.summary == "1 failed, 1 passed"
    assert "FailsOnEmptyDiff: Assert.Equal() Failure: Values differ" in result.text


def test_a_trx_file_that_cannot_be_read_leaves_the_console(tmp_path, fake_dotnet, monkeypatch):
    repo = dotnet_repo(tmp_path / "shop", broken=False, with_tests=True)
    cut = tmp_path / "cut.trx"
    cut.write_bytes((OUTPUT / "dotnet_xunit_failures.trx").read_bytes()[:3000])  # a run killed mid-write
    monkeypatch.setenv("FAKE_DOTNET_TRX", str(cut))
    result = RunTestsTool().run({}, ctx_for(repo))
    assert result.summary == "1 failed, 1 passed"
    assert "FailsOnEmptyDiff: Assert.Equal() Failure: Values differ" in result.text


@pytest.mark.usefixtures("unsandboxed")
def test_microsoft_testing_platform_is_not_given_vstest_options(tmp_path, fake_dotnet, monkeypatch):
    # With global.json choosing the new platform, dotnet test refuses --logger: ask nothing.
    repo = dotnet_repo(tmp_path / "shop", broken=False, with_tests=True)
    (repo / "global.json").write_text('{\n  // the new dotnet test\n  "test": { "runner": "Microsoft.Testing.Platform" }\n}\n')
    calls = tmp_path / "argv"
    monkeypatch.setenv("FAKE_DOTNET_ARGV", str(calls))
    monkeypatch.setenv("FAKE_DOTNET_TRX", str(OUTPUT / "dotnet_xunit_failures.trx"))
    result = RunTestsTool().run({}, ctx_for(repo))
    assert [line.split("\0") for line in calls.read_text().splitlines()] == [["test", "Shop.sln", "-nologo"]]
    assert result.summary == "1 failed, 1 passed"


def test_a_filter_that_looks_like_an_option_is_refused(tmp_path, fake_dotnet, monkeypatch):
    repo = dotnet_repo(tmp_path / "shop", broken=False, with_tests=True)
    calls = tmp_path / "argv"
    monkeypatch.setenv("FAKE_DOTNET_ARGV", str(calls))
    result = RunTestsTool().run({"filter": "--results-directory=/tmp/x"}, ctx_for(repo))
    assert result.is_error
    assert "filter may not start with '-'" in result.text
    assert not calls.exists()


def test_test_with_a_broken_build_says_tests_did_not_run(tmp_path, fake_dotnet):
    repo = dotnet_repo(tmp_path / "shop", with_tests=True)
    result = RunTestsTool().run({}, ctx_for(repo))
    assert result.text.startswith("Tests did not run: the build failed (.NET: dotnet test Shop.sln; exit code 1,")
    assert "): 1 error, 2 warnings." in result.text
    assert "CS1061" in result.text
    assert result.summary == "1 error, 2 warnings, tests did not run"


def test_connection_string_in_the_build_log_is_masked(tmp_path, fake_dotnet):
    repo = dotnet_repo(tmp_path / "shop")
    password = "Tr0ub4dor&3xyz"
    (repo / "echo-during-build.txt").write_text(
        f'"ConnectionStrings": {{ "Db": "Server=db;Database=shop;User Id=app;Password={password};" }}\n'
        "AWS_ACCESS_KEY_ID=AKIAIOSFODNN7Q4W2ZLM\n"
    )
    result = BuildTool().run({}, ctx_for(repo))
    for field in (result.text, result.log, result.summary):
        assert password not in field
        assert "AKIAIOSFODNN7Q4W2ZLM" not in field
    assert "[masked: password]" in result.log
    assert "[masked: AWS access key ID]" in result.log
    # The model is told what was masked and where, since it never sees the log itself.
    assert "Note: 2 credential-shaped strings were masked (password, output line 5; AWS access key ID, output line 6)." in result.text
    assert result.log.splitlines()[4].startswith('"ConnectionStrings"')


def test_missing_dotnet_is_a_sentence(tmp_path, monkeypatch):
    repo = dotnet_repo(tmp_path / "shop")
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    result = BuildTool().run({}, ctx_for(repo))
    assert result.is_error
    assert result.text == "Error: dotnet is not installed on this machine (not found on PATH), so the build could not run."


@pytest.mark.slow
@pytest.mark.usefixtures("unsandboxed")
def test_timeout_stops_the_build_and_its_children(tmp_path, fake_dotnet, monkeypatch):
    repo = dotnet_repo(tmp_path / "shop")
    pids_file = tmp_path / "pids"
    monkeypatch.setenv("FAKE_DOTNET_SLEEP", "60")
    monkeypatch.setenv("FAKE_DOTNET_PIDS", str(pids_file))
    start = time.monotonic()
    result = BuildTool().run({}, ctx_for(repo, build_timeout=1.5))
    elapsed = time.monotonic() - start
    assert result.is_error
    assert result.summary == "timed out"
    assert "did not finish within 1.5 s and was stopped" in result.text
    assert "MSBuild version" in result.text  # the last lines it printed
    assert elapsed < 20
    for pid in map(int, pids_file.read_text().split()):
        assert _gone(pid), pid


@pytest.mark.usefixtures("unsandboxed")
def test_cancel_kills_the_whole_process_tree(tmp_path, fake_dotnet, monkeypatch):
    repo = dotnet_repo(tmp_path / "shop")
    pids_file = tmp_path / "pids"
    monkeypatch.setenv("FAKE_DOTNET_SLEEP", "60")
    monkeypatch.setenv("FAKE_DOTNET_PIDS", str(pids_file))
    cancel = Cancellation()
    results = []
    worker = threading.Thread(target=lambda: results.append(BuildTool().run({}, ctx_for(repo, cancel))))
    worker.start()
    deadline = time.monotonic() + 20
    while not (pids_file.exists() and len(pids_file.read_text().split()) == 2):
        assert time.monotonic() < deadline, "the build never started"
        time.sleep(0.05)
    parent, child = map(int, pids_file.read_text().split())
    assert alive(parent) and alive(child)
    cancel.cancel()
    worker.join(20)
    assert not worker.is_alive()
    [result] = results
    assert result.is_error
    assert result.summary == "cancelled"
    assert "cancelled" in result.text
    assert _gone(parent)
    assert _gone(child)


def test_configured_build_command_replaces_detection(tmp_path, fake_dotnet):
    repo = dotnet_repo(tmp_path / "shop")
    config = AgentConfig(build_command="echo custom build of {project}; exit 3")
    result = BuildTool().run({"project": "Shop.Core"}, ToolContext(repo, Cancellation(), config))
    assert result.text.startswith("Build failed (configured command: echo custom build of Shop.Core; exit 3; exit code 3")
    assert "custom build of Shop.Core" in result.log


def test_configured_command_from_the_user_config_file(tmp_path, fake_dotnet):
    repo = dotnet_repo(tmp_path / "shop", broken=False, with_tests=True)
    config_dir = Path(os.environ["XDG_CONFIG_HOME"]) / "devagent"
    config_dir.mkdir(parents=True)
    (config_dir / "config.toml").write_text(f'[repos."{repo}"]\ntest = "dotnet test Shop.sln -nologo --filter {{filter}}"\n')
    config = AgentConfig.from_env_and_args(None, repo=repo)
    result = RunTestsTool().run({"filter": "Runs"}, ToolContext(repo, Cancellation(), config))
    assert "configured command: dotnet test Shop.sln -nologo --filter Runs" in result.text
    assert "1 failed, 1 passed" in result.text


def _gone(pid: int, within: float = 5.0) -> bool:
    """Whether the process is gone; a SIGKILLed process takes a moment to be torn down."""
    deadline = time.monotonic() + within
    while alive(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def test_dotnet_that_is_not_executable_is_a_sentence(tmp_path, monkeypatch):
    repo = dotnet_repo(tmp_path / "shop")
    bin_dir = tmp_path / "odd-bin"
    bin_dir.mkdir()
    (bin_dir / "dotnet").write_text("#!/bin/sh\necho never\n")  # no execute bit
    monkeypatch.setenv("PATH", str(bin_dir))
    result = BuildTool().run({}, ctx_for(repo))
    assert result.is_error
    assert result.text == "Error: dotnet is not executable, so the build could not run."
