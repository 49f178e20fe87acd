"""Tool commands run in the user's environment, not devagent's, and in the repository's own
Python environment found the way its tooling would find it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from agent.cancel import Cancellation
from agent.settings.config import AgentConfig
from agent.tools.base import ToolContext
from agent.tools.build import BuildTool, RunTestsTool
from agent.tools.toolchain.plans import plan, python_env
from agent.tools.toolchain.user_environment import describe, user_environment
from tests.repos import git_repo
from tests.tools.repos import ctx_for, install_executable, python_repo

ROOT = Path(__file__).resolve().parents[2]


def _uv_cache() -> str | None:
    # Asked at import, before the fixtures point HOME at an empty folder: a cold cache
    # would download pytest on every run.
    uv = shutil.which("uv")
    if not uv:
        return None
    done = subprocess.run([uv, "cache", "dir"], capture_output=True, text=True)
    return done.stdout.strip() or None


UV_CACHE = _uv_cache()


def test_what_uv_run_added_is_taken_out(tmp_path):
    own = tmp_path / "devagent" / ".venv"
    (own / "bin").mkdir(parents=True)
    started = {
        "PATH": f"{own}/bin{os.pathsep}/usr/local/bin{os.pathsep}/usr/bin",
        "VIRTUAL_ENV": str(own),
        "UV_RUN_RECURSION_DEPTH": "1",
        "UV": "/usr/local/bin/uv",
        "HOME": "/home/me",
    }
    launch = describe(started, prefix=str(own), base_prefix="/usr")
    later = dict(started, DEVAGENT_VOICE="off", EXTRA="kept")
    env = user_environment(later, launch)
    assert env == {"PATH": f"/usr/local/bin{os.pathsep}/usr/bin", "HOME": "/home/me", "EXTRA": "kept"}


def test_a_virtualenv_the_user_activated_is_kept(tmp_path):
    # devagent installed in its own venv, started from a shell with the user's project venv active.
    own, theirs = tmp_path / "tools-venv", tmp_path / "project" / ".venv"
    for venv in (own, theirs):
        (venv / "bin").mkdir(parents=True)
    started = {"PATH": f"{theirs}/bin{os.pathsep}/usr/bin", "VIRTUAL_ENV": str(theirs)}
    launch = describe(started, prefix=str(own), base_prefix="/usr")
    assert user_environment(started, launch) == started


def test_commands_started_under_uv_run_see_the_users_environment(tmp_path):
    """devagent itself started with `uv run`, as the README says; its command sees no trace of it."""
    uv = shutil.which("uv")
    if uv is None:
        pytest.skip("uv is not installed")
    repo = git_repo(tmp_path / "repo")
    probe = "command -v python3; echo VENV=$VIRTUAL_ENV; echo DEPTH=$UV_RUN_RECURSION_DEPTH"
    script = (
        "import json, sys\nfrom pathlib import Path\nimport agent.tools\n"
        "from agent.settings.config import AgentConfig\nfrom agent.tools.base import ToolContext\n"
        "from agent.tools.build import RunTestsTool\n"
        f"r = RunTestsTool().run({{}}, ToolContext(Path({str(repo)!r}), None, AgentConfig(test_command={probe!r})))\n"
        "print(json.dumps({'log': r.log, 'prefix': sys.prefix}))\n"
    )
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "UV_RUN_RECURSION_DEPTH")}
    done = subprocess.run([uv, "run", "--frozen", "python", "-c", script], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    own = os.path.realpath(seen["prefix"])
    assert own != os.path.realpath(sys.base_prefix)  # it really ran inside devagent's venv
    assert "VENV=\n" in seen["log"] and "DEPTH=\n" in seen["log"]
    python3 = seen["log"].split("\n")[1]
    assert not os.path.realpath(python3).startswith(own + os.sep), python3


def test_a_repository_without_an_environment_is_not_tested_with_devagents_python(tmp_path):
    repo = python_repo(tmp_path / "calc", venv=False)
    found = python_env(repo)
    own = os.path.realpath(sys.prefix)
    if own != os.path.realpath(sys.base_prefix):
        assert not os.path.realpath(found.python[0]).startswith(own + os.sep)
    assert found.label in ("python3 on PATH", "python on PATH", "no Python found")


@pytest.mark.slow
def test_an_in_repository_venv_is_used_and_activated(tmp_path):
    repo = python_repo(tmp_path / "calc")
    (repo / "tests" / "test_where.py").write_text(
        "import os, sys\n\ndef test_where():\n    print('VENV', os.environ['VIRTUAL_ENV'])\n"
        "    print('FIRST', os.environ['PATH'].split(os.pathsep)[0])\n    assert False\n"
    )
    result = RunTestsTool().run({"filter": "where"}, ctx_for(repo))
    assert result.summary.endswith(" · .venv")
    assert "Python (.venv): pytest" in result.text
    assert f"VENV {repo / '.venv'}" in result.log and f"FIRST {repo / '.venv' / 'bin'}" in result.log


@pytest.mark.slow
def test_uv_lock_runs_in_uvs_environment_as_it_is(tmp_path, monkeypatch):
    if shutil.which("uv") is None:
        pytest.skip("uv is not installed")
    if UV_CACHE:
        monkeypatch.setenv("UV_CACHE_DIR", UV_CACHE)
    repo = python_repo(tmp_path / "calc", venv=False)
    (repo / "pyproject.toml").write_text(
        '[project]\nname = "calc"\nversion = "0.1.0"\nrequires-python = ">=3.11"\ndependencies = []\n\n'
        '[dependency-groups]\ndev = ["pytest"]\n'
    )
    (repo / "tests" / "test_where.py").write_text("import sys\n\ndef test_where():\n    assert sys.prefix == ''\n")
    locked = subprocess.run(["uv", "lock", "-q"], cwd=repo, capture_output=True, text=True, timeout=120, env=user_environment())
    if locked.returncode != 0:
        pytest.skip(f"uv could not lock (no index reachable?): {locked.stderr.strip()[:200]}")
    synced = subprocess.run(["uv", "sync", "-q"], cwd=repo, capture_output=True, text=True, timeout=120, env=user_environment())
    if synced.returncode != 0:
        pytest.skip(f"uv could not sync (no index reachable?): {synced.stderr.strip()[:200]}")
    # the user's environment holds one package the lock does not: a sync would remove it
    (site,) = (repo / ".venv" / "lib").glob("python3*/site-packages")
    (site / "extra.py").write_text("")
    info = site / "extra-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: extra\nVersion: 1.0\n")
    (info / "RECORD").write_text("extra.py,,\nextra-1.0.dist-info/METADATA,,\nextra-1.0.dist-info/RECORD,,\n")
    (info / "INSTALLER").write_text("uv\n")
    lock = (repo / "uv.lock").read_text()
    before = environment_state(repo / ".venv")
    result = RunTestsTool().run({}, ctx_for(repo))
    assert result.summary.endswith(" · uv's .venv"), result.text
    assert "Python (uv's .venv): pytest" in result.text
    # The repository's own .venv, made by uv from its lock, ran the tests.
    assert f"{repo / '.venv'}" in result.log
    assert "2 failed, 1 passed" in result.summary
    assert (repo / "uv.lock").read_text() == lock  # the lock is never rewritten
    assert environment_state(repo / ".venv") == before  # nothing synced, installed or removed


def environment_state(folder: Path) -> dict[str, tuple[int, int]]:
    """Every file of an environment with its size and modification time (bytecode aside)."""
    return {str(p.relative_to(folder)): (p.stat().st_size, p.stat().st_mtime_ns) for p in folder.rglob("*")
            if p.is_file() and "__pycache__" not in p.parts}


def test_a_uv_project_without_its_environment_is_not_synced_and_the_user_is_told_what_to_run(tmp_path):
    """`uv run --frozen` used to create .venv and install the lock into it, over the network."""
    repo = python_repo(tmp_path / "calc", venv=False)
    (repo / "pyproject.toml").write_text('[project]\nname = "calc"\nversion = "0.1.0"\ndependencies = ["pytest"]\n')
    (repo / "uv.lock").write_text('version = 1\nrequires-python = ">=3.11"\n')
    for tool in (RunTestsTool(), BuildTool()):
        result = tool.run({}, ctx_for(repo))
        assert result.is_error and "`uv sync`" in result.text and "never installs" in result.text, result.text
    assert not (repo / ".venv").exists()


def stand_in(bin_dir: Path, name: str, tmp_path: Path) -> Path:
    """A `name` program that records its argv and runs the rest as Python would."""
    script = tmp_path / f"{name}.py"
    record = tmp_path / f"{name}.calls"
    script.write_text(
        "import json, os, sys\n"
        f"with open({str(record)!r}, 'a') as f:\n    f.write(json.dumps(sys.argv[1:]) + '\\n')\n"
        "args = sys.argv[1:]\n"
        "while args and args[0] != 'python' and args[0] != '--':\n    args = args[1:]\n"
        "args = args[1:]\n"
        "if args[:2] != ['-m', 'pytest']:\n    args = ['-m', 'pytest'] + args\n"
        f"os.execv({sys.executable!r}, [{sys.executable!r}] + args)\n"
    )
    install_executable(bin_dir, name, script)
    return record


def managed_repo(tmp_path, monkeypatch, name: str, marker: str, content: str):
    """A Python repository without a .venv whose `marker` names the manager `name`, with a
    stand-in for it first on PATH: (the repository, the file the stand-in records calls in)."""
    repo = python_repo(tmp_path / "calc", venv=False)
    (repo / marker).write_text(content)
    bin_dir = tmp_path / "bin"
    record = stand_in(bin_dir, name, tmp_path)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    return repo, record


@pytest.mark.parametrize(
    "name, marker, content, label, runs",
    [
        ("poetry", "pyproject.toml", '[tool.poetry]\nname = "calc"\n', "poetry run", ["run", "python", "-m", "pytest"]),
    ],
)
@pytest.mark.slow
@pytest.mark.usefixtures("unsandboxed")
def test_configured_managers_are_used(tmp_path, monkeypatch, name, marker, content, label, runs):
    repo, record = managed_repo(tmp_path, monkeypatch, name, marker, content)
    result = RunTestsTool().run({}, ctx_for(repo))
    assert result.summary == f"1 failed, 1 passed · {label}", result.text
    (argv,) = [json.loads(line) for line in record.read_text().splitlines()]
    assert argv[: len(runs)] == runs


@pytest.mark.parametrize(
    "name, marker, content, command",
    [
        ("hatch", "pyproject.toml", '[project]\nname = "calc"\n[tool.hatch.envs.default]\ndependencies = ["pytest"]\n', "hatch test"),
        ("tox", "tox.ini", "[tox]\nenv_list = py\n[testenv]\ncommands = pytest {posargs}\n", "tox -e py"),
    ],
)
def test_managers_that_install_first_are_not_run_and_the_user_is_told(tmp_path, monkeypatch, name, marker, content, command):
    repo, record = managed_repo(tmp_path, monkeypatch, name, marker, content)
    result = RunTestsTool().run({}, ctx_for(repo))
    assert result.is_error and f"`{command}`" in result.text and "never installs" in result.text, result.text
    assert not record.exists()


@pytest.mark.slow
def test_a_manager_that_is_not_installed_is_noted(tmp_path, monkeypatch):
    repo = python_repo(tmp_path / "calc")
    (repo / "poetry.lock").write_text("")
    monkeypatch.setenv("PATH", os.pathsep.join(p for p in os.environ["PATH"].split(os.pathsep) if not (Path(p) / "poetry").exists()))
    result = RunTestsTool().run({}, ctx_for(repo))
    assert "Poetry project but poetry is not installed" in result.text
    assert result.summary.endswith(" · .venv")


def test_the_build_uses_the_repository_environment_too(tmp_path):
    repo = python_repo(tmp_path / "calc")
    built = plan(repo, "build", None, None, AgentConfig())
    assert built.steps[0].argv[0] == str(repo / ".venv" / "bin" / "python")
    result = BuildTool().run({}, ToolContext(repo, Cancellation(), AgentConfig()))
    assert result.summary == "ok, 0 warnings · .venv"
