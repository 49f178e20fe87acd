"""Repositories and programs the tool tests build: real git, real files, a dotnet stand-in."""

from __future__ import annotations

import glob
import os
import shutil
import stat
import sys
import tempfile
from pathlib import Path

from agent.cancel import Cancellation
from agent.settings.config import AgentConfig
from agent.tools.base import ToolContext
from tests.repos import git_repo

HERE = Path(__file__).parent


def ctx_for(repo: Path, cancel: Cancellation | None = None, **extra) -> ToolContext:
    return ToolContext(repo=repo, cancel=cancel or Cancellation(), config=AgentConfig(extra=extra))


def install_executable(bin_dir: Path, name: str, script: Path) -> Path:
    """Copies a Python script into bin_dir as `name`, runnable by the interpreter running the tests."""
    bin_dir.mkdir(parents=True, exist_ok=True)
    target = bin_dir / name
    target.write_text(f"#!{sys.executable}\n" + script.read_text())
    target.chmod(target.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return target


SOLUTION = """\
Microsoft Visual Studio Solution File, Format Version 12.00
Project("{{FAE04EC0-301F-11D3-BF4B-00C04F79EFBC}}") = "Shop.Core", "src\\Shop.Core\\Shop.Core.csproj", "{{11111111-1111-1111-1111-111111111111}}"
EndProject
Project("{{FAE04EC0-301F-11D3-BF4B-00C04F79EFBC}}") = "Shop.Cli", "src\\Shop.Cli\\Shop.Cli.csproj", "{{22222222-2222-2222-2222-222222222222}}"
EndProject
{tests}"""
TESTS_PROJECT = """\
Project("{FAE04EC0-301F-11D3-BF4B-00C04F79EFBC}") = "Shop.Tests", "tests\\Shop.Tests\\Shop.Tests.csproj", "{33333333-3333-3333-3333-333333333333}"
EndProject
"""
CSPROJ = """\
<Project Sdk="Microsoft.NET.Sdk">
  <PropertyGroup>
    <{tag}>{frameworks}</{tag}>
    <GenerateDocumentationFile>true</GenerateDocumentationFile>
  </PropertyGroup>
</Project>
"""
CHANGED_FILE = """\
namespace Shop.Core.Models;

/// <summary>One file of a change.</summary>
public record ChangedFile(string Path, string Diff)
{
    public int Size() => Diff.Length;
    public bool IsEmpty() => Diff.Length == 0;
}
"""
ORCHESTRATOR = """\
namespace Shop.Core.Review;

/// <summary>Reviews a change.</summary>
public class ReviewOrchestrator
{
    /// <summary>Runs.</summary>
    public string Run(ChangedFile file)
    {
        return file.Patch;
    }
}
"""


def dotnet_repo(root: Path, *, broken: bool = True, multi_target: bool = False, with_tests: bool = False) -> Path:
    """A .NET-shaped repository: a solution, a core library, a CLI, optionally tests."""
    repo = git_repo(root)
    (repo / "Shop.sln").write_text(SOLUTION.format(tests=TESTS_PROJECT if with_tests else ""))
    core = repo / "src" / "Shop.Core"
    (core / "Models").mkdir(parents=True)
    (core / "Review").mkdir(parents=True)
    tag, frameworks = ("TargetFrameworks", "net8.0;net9.0") if multi_target else ("TargetFramework", "net8.0")
    (core / "Shop.Core.csproj").write_text(CSPROJ.format(tag=tag, frameworks=frameworks))
    (core / "Models" / "ChangedFile.cs").write_text(CHANGED_FILE)
    body = ORCHESTRATOR if broken else ORCHESTRATOR.replace("file.Patch", "file.Diff")
    (core / "Review" / "ReviewOrchestrator.cs").write_text(body)
    cli = repo / "src" / "Shop.Cli"
    cli.mkdir(parents=True)
    (cli / "Shop.Cli.csproj").write_text(CSPROJ.format(tag="TargetFramework", frameworks="net8.0"))
    (cli / "Program.cs").write_text("/// <summary>Entry.</summary>\npublic static class Program { }\n")
    if with_tests:
        tests = repo / "tests" / "Shop.Tests"
        tests.mkdir(parents=True)
        (tests / "Shop.Tests.csproj").write_text(CSPROJ.format(tag="TargetFramework", frameworks="net8.0"))
        (tests / "OrchestratorTests.cs").write_text(
            "/// <summary>Tests.</summary>\npublic class OrchestratorTests\n{\n"
            "    [Fact] public void RunsReview() { }\n"
            "    [Fact] public void FailsOnEmptyDiff() { }\n}\n"
        )
    return repo


VENV_PYTHON = f"import os, sys\nos.execv({sys.executable!r}, [{sys.executable!r}] + sys.argv[1:])\n"


def python_repo(root: Path, *, venv: bool = True) -> Path:
    """A small Python project with one passing and one failing test.

    With `venv`, its `.venv/bin/python` is the interpreter running these tests (which has
    pytest), as a repository with its own environment would have; without, the tools fall
    back to whatever `python3` the user's PATH holds.
    """
    repo = git_repo(root)
    if venv:
        bin_dir = repo / ".venv" / "bin"
        bin_dir.mkdir(parents=True)
        (bin_dir / "python").write_text(f"#!{sys.executable}\n" + VENV_PYTHON)
        (bin_dir / "python").chmod(0o755)
    (repo / "pyproject.toml").write_text('[project]\nname = "calc"\nversion = "0.1.0"\n')
    (repo / "calc").mkdir()
    (repo / "calc" / "__init__.py").write_text("def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a + b\n")
    (repo / "tests").mkdir()
    (repo / "tests" / "test_calc.py").write_text(
        "from calc import add, sub\n\n\ndef test_add():\n    assert add(2, 2) == 4\n\n\n"
        "def test_sub():\n    assert sub(5, 3) == 2\n"
    )
    return repo


def tree(root: Path) -> set[str]:
    """Every path under root, to check that a test left nothing behind."""
    return {p.relative_to(root).as_posix() for p in root.rglob("*")}


def reports_left() -> set[str]:
    """The report folders of test runs (agent.tools.toolchain.report_requests) still on disk."""
    return set(glob.glob(os.path.join(tempfile.gettempdir(), "devagent-report-*")))


def has(program: str) -> bool:
    return shutil.which(program) is not None
