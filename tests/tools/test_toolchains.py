"""Toolchain detection from marker files (no toolchain needed) and the commands planned."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from agent.cancel import Cancellation
from agent.settings.config import AgentConfig
from agent.tools.base import ToolContext, ToolInputError
from agent.tools.toolchain.plans import detect, dotnet_target, plan, python_env
from tests.repos import git_repo
from tests.tools.repos import dotnet_repo


def touch(path, text=""):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


@pytest.mark.parametrize(
    "files, expected",
    [
        (["App.sln"], "dotnet"),
        (["src/Api/Api.csproj"], "dotnet"),
        (["Lib.fsproj"], "dotnet"),
        (["pyproject.toml"], "python"),
        (["setup.py"], "python"),
        (["requirements.txt"], "python"),
        (["scripts/tool.py", "tests/test_tool.py"], "python"),
        (["package.json"], "node"),
        (["Cargo.toml"], "rust"),
        (["go.mod"], "go"),
        (["README.md"], None),
        # .NET wins over a front end's package.json or helper scripts beside the solution.
        (["App.sln", "package.json", "pyproject.toml"], "dotnet"),
        # Projects inside output or dependency folders are not the repository's own.
        (["node_modules/x/X.csproj", "package.json"], "node"),
        (["bin/Debug/Old.csproj", "go.mod"], "go"),
    ],
)
def test_detect(tmp_path, files, expected):
    for name in files:
        touch(tmp_path / name)
    assert detect(tmp_path) == expected


def test_dotnet_target_choice(tmp_path):
    repo = dotnet_repo(tmp_path / "shop", with_tests=True)
    assert dotnet_target(repo, None) == "Shop.sln"
    assert dotnet_target(repo, "Shop.Core") == "src/Shop.Core/Shop.Core.csproj"
    assert dotnet_target(repo, "core") == "src/Shop.Core/Shop.Core.csproj"
    assert dotnet_target(repo, "src/Shop.Cli") == "src/Shop.Cli/Shop.Cli.csproj"
    assert dotnet_target(repo, "Shop.sln") == "Shop.sln"
    (repo / "Shop.sln").unlink()
    with pytest.raises(ToolInputError, match="several to choose from"):
        dotnet_target(repo, None)
    touch(repo / "Other.sln")
    touch(repo / "More.sln")
    with pytest.raises(ToolInputError, match="several: More.sln, Other.sln"):
        dotnet_target(repo, None)


def test_single_project_without_solution(tmp_path):
    touch(tmp_path / "src" / "Only" / "Only.csproj")
    assert dotnet_target(tmp_path, None) == "src/Only/Only.csproj"


def test_python_plan_uses_the_project_virtual_environment(tmp_path):
    repo = git_repo(tmp_path / "py")
    touch(repo / "pyproject.toml", "[project]\nname='x'\n[tool.pyright]\n")
    venv_python = touch(repo / ".venv" / "bin" / "python")
    venv_python.chmod(0o755)
    assert python_env(repo).python == [str(venv_python)] and python_env(repo).label == ".venv"
    test = plan(repo, "test", "tests", "slow and not db", AgentConfig())
    assert test.steps[0].argv[:3] == [str(venv_python), "-m", "pytest"]
    assert test.steps[0].argv[-6:-3] == ["tests", "-k", "slow and not db"]
    # pytest is asked for a JUnit report, in a folder outside the repository
    assert test.steps[0].argv[-3:] == [f"--junitxml={test.report.path}", "-o", "junit_family=xunit1"]
    assert not test.report.path.startswith(str(repo)) and test.report.format == "junit"
    build = plan(repo, "build", None, None, AgentConfig())
    assert [s.label.split()[0] for s in build.steps] == ["compile", "pyright"]


def test_python_plan_without_type_checker(tmp_path):
    touch(tmp_path / "setup.py")
    build = plan(tmp_path, "build", None, None, None)
    assert len(build.steps) == 1
    assert build.steps[0].argv[0] == python_env(tmp_path).python[0]


def test_node_plan(tmp_path):
    touch(tmp_path / "package.json", json.dumps({"scripts": {"build": "tsc", "test": "jest"}}))
    assert plan(tmp_path, "build", None, None, None).steps[0].argv == ["npm", "run", "build"]
    jest = plan(tmp_path, "test", "web", "cart", None)
    assert jest.steps[0].argv == ["npm", "run", "test", "--workspace", "web", "--", "cart", "--json", f"--outputFile={jest.report.path}"]
    assert jest.results == "jest" and jest.report.format == "jest-json"


def test_node_without_scripts(tmp_path):
    touch(tmp_path / "package.json", json.dumps({"scripts": {"test": 'echo "Error: no test specified" && exit 1', "lint": "eslint"}}))
    with pytest.raises(ToolInputError, match=r"no build script \(scripts: lint, test\)"):
        plan(tmp_path, "build", None, None, None)
    with pytest.raises(ToolInputError, match="no test script"):
        plan(tmp_path, "test", None, None, None)
    touch(tmp_path / "package.json", "{not json")
    with pytest.raises(ToolInputError, match="package.json could not be read"):
        plan(tmp_path, "build", None, None, None)


def test_rust_and_go_plans(tmp_path):
    rust = tmp_path / "rust"
    touch(rust / "Cargo.toml")
    assert plan(rust, "test", "core", "parse", None).steps[0].argv == [
        "cargo", "test", "--message-format=short", "--color", "never", "-p", "core", "parse",
    ]
    go = tmp_path / "go"
    touch(go / "go.mod")
    assert plan(go, "build", None, None, None).steps[0].argv == ["go", "build", "./..."]
    assert plan(go, "test", "internal/...", "TestCart", None).steps[0].argv == ["go", "test", "-json", "./internal/...", "-run", "TestCart"]
    with pytest.raises(ToolInputError):
        plan(go, "build", "../other", None, None)


def test_nothing_recognised_is_no_bad_input_and_says_how_to_set_a_command(tmp_path):
    """A folder with no toolchain: nothing the model sent was wrong. The result says there is
    nothing to build and gives the config lines that would give it a build; those lines, put in
    the config file as given, make the next build run."""
    from agent.events import ToolOutcome
    from agent.tools.build import BuildTool, RunTestsTool
    from tests.tools.repos import ctx_for

    repo = tmp_path / "notes"
    repo.mkdir()
    result = BuildTool().run({}, ctx_for(repo))
    assert (result.summary, result.outcome) == ("nothing to build", ToolOutcome.EMPTY)
    assert result.text.startswith("There is nothing to build here: no build system recognised")
    config = Path(os.environ["XDG_CONFIG_HOME"]) / "devagent" / "config.toml"
    lines = result.text.split(f"set one in {config}:\n", 1)[1]
    assert lines == f'[repos."{repo}"]\nbuild = "make"'
    assert RunTestsTool().run({}, ctx_for(repo)).summary == "no tests to run"

    config.parent.mkdir(parents=True)
    config.write_text(lines.replace('"make"', '"echo built it"') + "\n")
    built = BuildTool().run({}, ToolContext(repo=repo, cancel=Cancellation(), config=AgentConfig().for_repository(repo)))
    assert built.outcome == ToolOutcome.OK and "built it" in built.log


def test_override_placeholders(tmp_path):
    touch(tmp_path / "go.mod")
    config = AgentConfig(test_command="make check PKG={project} RUN={filter}")
    step = plan(tmp_path, "test", "it's", "a b", config).steps[0]
    assert step.argv == ["/bin/sh", "-c", "make check PKG='it'\"'\"'s' RUN='a b'"]
    config = AgentConfig(build_command="make")
    built = plan(tmp_path, "build", "api", None, config)
    assert built.notes == ["The configured build command has no {project} placeholder, so project 'api' was not used."]
