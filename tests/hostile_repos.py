"""Repositories whose code leaves a mark when it runs: the workspace trust tests' fixtures.

Each place a repository can make devagent run its code writes a file into `marks/` (outside
the repository): its `.venv/bin/python` (logging the exact argv it was started with),
`conftest.py`, npm's `prebuild` and `build`, a Rust `build.rs`, and git's `core.fsmonitor`,
hooks, `diff.external`, a clean filter and a textconv driver in `.git/config`.
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

from tests.repos import GIT_ENV, git_repo

GIT = GIT_ENV


def _script(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(0o755)


def marks(root: Path) -> Path:
    folder = root / "marks"
    folder.mkdir(exist_ok=True)
    return folder


def dropped(root: Path) -> list[str]:
    return sorted(p.name for p in marks(root).iterdir())


def hostile_git(repo: Path, root: Path) -> None:
    """A committed repository whose config runs programs from `git status` and `git diff`,
    with an unstaged change of the same size (so git must read the file through its filter)."""
    mark = marks(root)
    tool = root / "tools"
    _script(tool / "fsmonitor", f"#!/bin/sh\ntouch {shlex.quote(str(mark / 'fsmonitor'))}\nexit 1\n")
    _script(tool / "hooks" / "post-index-change", f"#!/bin/sh\ntouch {shlex.quote(str(mark / 'hook'))}\n")
    _script(tool / "clean", f"#!/bin/sh\ntouch {shlex.quote(str(mark / 'filter'))}\ncat\n")
    _script(tool / "textconv", f"#!/bin/sh\ntouch {shlex.quote(str(mark / 'textconv'))}\ncat \"$1\"\n")
    _script(tool / "extdiff", f"#!/bin/sh\ntouch {shlex.quote(str(mark / 'extdiff'))}\n")
    git_repo(repo, {".gitattributes": "*.txt filter=evil diff=evil\n", "notes.txt": "first\n"}, commit=True)
    with open(repo / ".git" / "config", "a") as config:
        config.write(
            f"[core]\n\tfsmonitor = {tool / 'fsmonitor'}\n\thooksPath = {tool / 'hooks'}\n"
            f"[filter \"evil\"]\n\tclean = {tool / 'clean'}\n\trequired = true\n"
            f"[diff \"evil\"]\n\ttextconv = {tool / 'textconv'}\n"
            f"[diff]\n\texternal = {tool / 'extdiff'}\n"
        )
    (repo / "notes.txt").write_text("other\n")  # same size: git has to read it to know


def python_repo(root: Path) -> Path:
    """A Python project with its own .venv (a python that logs its argv, then runs ours),
    a conftest.py and one passing test; its git config is hostile too."""
    repo = root / "shop"
    repo.mkdir(parents=True)
    mark = marks(root)
    (repo / "pyproject.toml").write_text('[project]\nname = "shop"\nversion = "0"\n')
    (repo / "conftest.py").write_text(f"open({str(mark / 'conftest')!r}, 'w').close()\n")
    (repo / "tests").mkdir()
    (repo / "tests" / "test_shop.py").write_text("def test_sells():\n    assert 1 + 1 == 2\n")
    _script(repo / ".venv" / "bin" / "python",
            f"#!/bin/sh\nprintf '%s\\0' \"$0\" \"$@\" >> {shlex.quote(str(mark / 'venv-python'))}\n"
            f"exec {shlex.quote(sys.executable)} \"$@\"\n")
    (repo / ".gitignore").write_text(".venv/\n")
    hostile_git(repo, root)
    return repo


def argv_ran(root: Path) -> list[str]:
    """The command lines the repository's .venv python was started with, as a shell shows them."""
    raw = (marks(root) / "venv-python").read_bytes().decode()
    parts = raw.split("\0")[:-1]
    # one record per start: it begins with the interpreter's own path
    first = parts[0]
    runs: list[list[str]] = []
    for part in parts:
        if part == first:
            runs.append([])
        runs[-1].append(part)
    return [" ".join(shlex.quote(a) if "\n" not in a else f"<{a.count(chr(10)) + 1}-line script>" for a in run) for run in runs]


def node_repo(root: Path) -> Path:
    repo = root / "web"
    repo.mkdir(parents=True)
    mark = marks(root)
    scripts = {"prebuild": f"touch {shlex.quote(str(mark / 'prebuild'))}", "build": f"touch {shlex.quote(str(mark / 'build'))}",
               "pretest": f"touch {shlex.quote(str(mark / 'pretest'))}", "test": f"touch {shlex.quote(str(mark / 'test'))}"}
    (repo / "package.json").write_text(json.dumps({"name": "web", "version": "0.0.0", "scripts": scripts}))
    return repo


def rust_repo(root: Path) -> Path:
    repo = root / "crate"
    (repo / "src").mkdir(parents=True)
    mark = marks(root)
    (repo / "Cargo.toml").write_text('[package]\nname = "crate"\nversion = "0.1.0"\nedition = "2021"\n')
    (repo / "src" / "main.rs").write_text("fn main() {}\n")
    (repo / "build.rs").write_text(f'fn main() {{ std::fs::write({json.dumps(str(mark / "build.rs"))}, "").unwrap(); }}\n')
    return repo
