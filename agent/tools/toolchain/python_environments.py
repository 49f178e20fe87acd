"""Which Python environment a repository's own tooling would run its code in.

Looked for the way a developer of the repository would run the tests by hand: `uv run`
where there is a uv.lock, `poetry run` for a Poetry project, the interpreter of an in-repo
`.venv` or `venv`, `hatch test` or `tox -e py` where the project configures them, and only
then the user's own `python3`. A manager whose lock or configuration is there but whose
program is not installed is noted, and the next way is tried.
"""

from __future__ import annotations

import os
import re
import shutil
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

VENV_FOLDERS = (".venv", "venv", "env")


@dataclass
class PythonEnv:
    label: str  # what the tool line says: "uv run", "poetry run", ".venv", "hatch", ...
    python: list[str]  # runs this environment's python; arguments follow
    pytest: list[str]  # runs pytest in it; pytest's arguments follow
    env: dict[str, str] = field(default_factory=dict)  # added to the command's environment
    notes: list[str] = field(default_factory=list)
    passes_arguments: bool = True  # False: tox configured without {posargs}


def pyproject(repo: Path) -> dict[str, Any]:
    try:
        with open(repo / "pyproject.toml", "rb") as f:
            return tomllib.load(f)
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
        return {}


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def _which(program: str, environ: Mapping[str, str]) -> str | None:
    return shutil.which(program, path=environ.get("PATH", os.defpath))


class EnvironmentMissing(Exception):
    """The repository's tools would create or install an environment first; devagent does
    not, and the text says what the user can run instead."""

    summary = "no environment"


def _venv_at(folder: Path, environ: Mapping[str, str], label: str) -> PythonEnv | None:
    python = folder / "bin" / "python"
    if not (python.is_file() and os.access(python, os.X_OK)):
        return None
    # What activating it does: its bin first on PATH, VIRTUAL_ENV set.
    path = str(folder / "bin") + os.pathsep + environ.get("PATH", os.defpath)
    env = {"VIRTUAL_ENV": str(folder), "PATH": path}
    return PythonEnv(label, [str(python)], [str(python), "-m", "pytest"], env)


def _venv(repo: Path, environ: Mapping[str, str]) -> PythonEnv | None:
    for name in VENV_FOLDERS:
        found = _venv_at(repo / name, environ, name)
        if found is not None:
            return found
    return None


def _hatch_configured(repo: Path, tool: dict[str, Any]) -> bool:
    return bool(tool.get("hatch", {}).get("envs")) or (repo / "hatch.toml").is_file()


def _tox_config(repo: Path, tool: dict[str, Any]) -> str | None:
    """The tox configuration's text, or None when tox is not configured."""
    if (repo / "tox.ini").is_file():
        return _read(repo / "tox.ini")
    if "tox" in tool:
        return str(tool["tox"])
    setup_cfg = _read(repo / "setup.cfg")
    if re.search(r"^\[tox:tox\]", setup_cfg, re.M):
        return setup_cfg
    return None


def find(repo: Path, environ: Mapping[str, str]) -> PythonEnv:
    """The environment for `repo`, looking for programs on the user's PATH in `environ`."""
    notes: list[str] = []
    tool = pyproject(repo).get("tool", {})
    found = _managed(repo, environ, tool, notes) or _venv(repo, environ) or _configured(repo, environ, tool, notes)
    if found is None:
        python = _which("python3", environ) or _which("python", environ)
        if python:
            found = PythonEnv(f"{Path(python).name} on PATH", [python], [python, "-m", "pytest"])
        else:
            notes.append("No Python was found on the user's PATH and the repository has no environment of its own.")
            found = PythonEnv("no Python found", ["python3"], ["python3", "-m", "pytest"])
    found.notes = notes + found.notes
    return found


def _managed(repo: Path, environ: Mapping[str, str], tool: dict[str, Any], notes: list[str]) -> PythonEnv | None:
    if (repo / "uv.lock").is_file():
        # `uv run` would first sync the environment to the lock (installing over the network);
        # the environment uv made is used as it is, through its own interpreter.
        folder = Path(environ.get("UV_PROJECT_ENVIRONMENT") or ".venv")
        found = _venv_at(repo / folder if not folder.is_absolute() else folder, environ, "uv's .venv")
        if found is None:
            raise EnvironmentMissing(
                f"The repository uses uv (uv.lock) but its environment {folder} does not exist yet. devagent runs "
                "build and test in the environment as it is and never installs anything: tell the user to run `uv sync` "
                f"in {repo} to create it, then ask again.")
        return found
    if (repo / "poetry.lock").is_file() or "poetry" in tool:
        poetry = _which("poetry", environ)
        if poetry:
            return PythonEnv("poetry run", [poetry, "run", "python"], [poetry, "run", "python", "-m", "pytest"])
        notes.append("The repository is a Poetry project but poetry is not installed, so its environment was not used.")
    return None


def _configured(repo: Path, environ: Mapping[str, str], tool: dict[str, Any], notes: list[str]) -> PythonEnv | None:
    # `hatch test` and `tox` create their environments and install into them before they run
    # anything; devagent never installs, so it says what the user can run instead.
    for configured, command in ((_hatch_configured(repo, tool), "hatch test"), (_tox_config(repo, tool) is not None, "tox -e py")):
        if configured:
            raise EnvironmentMissing(
                f"The repository runs its tests through `{command}`, which creates and installs an environment "
                f"first, and it has no .venv of its own. devagent runs tests in an environment as it is and never "
                f"installs anything: tell the user to run `{command}` themselves, or to create a .venv with the "
                "test dependencies, or to set the test command for this repository in devagent's config.toml.")
    return None
