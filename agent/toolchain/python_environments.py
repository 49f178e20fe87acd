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


def _venv(repo: Path, environ: Mapping[str, str]) -> PythonEnv | None:
    for name in VENV_FOLDERS:
        folder = repo / name
        python = folder / "bin" / "python"
        if python.is_file() and os.access(python, os.X_OK):
            # What activating it does: its bin first on PATH, VIRTUAL_ENV set.
            path = str(folder / "bin") + os.pathsep + environ.get("PATH", os.defpath)
            env = {"VIRTUAL_ENV": str(folder), "PATH": path}
            return PythonEnv(name, [str(python)], [str(python), "-m", "pytest"], env)
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
        uv = _which("uv", environ)
        if uv:
            # --frozen: run from the lock as it is, never rewrite the user's uv.lock.
            prefix = [uv, "run", "--frozen"]
            return PythonEnv("uv run", prefix + ["python"], prefix + ["python", "-m", "pytest"])
        notes.append("The repository has a uv.lock but uv is not installed, so its environment was not used.")
    if (repo / "poetry.lock").is_file() or "poetry" in tool:
        poetry = _which("poetry", environ)
        if poetry:
            return PythonEnv("poetry run", [poetry, "run", "python"], [poetry, "run", "python", "-m", "pytest"])
        notes.append("The repository is a Poetry project but poetry is not installed, so its environment was not used.")
    return None


def _configured(repo: Path, environ: Mapping[str, str], tool: dict[str, Any], notes: list[str]) -> PythonEnv | None:
    if _hatch_configured(repo, tool):
        hatch = _which("hatch", environ)
        if hatch:
            # `--` so that pytest's options are not read as hatch's own.
            return PythonEnv("hatch", [hatch, "run", "python"], [hatch, "test", "--"])
        notes.append("The repository configures Hatch environments but hatch is not installed, so they were not used.")
    config = _tox_config(repo, tool)
    if config is not None:
        tox = _which("tox", environ)
        if tox:
            python = _which("python3", environ) or "python3"
            return PythonEnv("tox -e py", [python], [tox, "-e", "py", "--"], passes_arguments="{posargs" in config)
        notes.append("The repository configures tox but tox is not installed, so its environments were not used.")
    return None
