"""`devagent ask` with the text editor, and `devagent undo`: the real commands in their own
processes against the Claude double."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from agent.tools.text_editor import EDITOR_NAME
from tests.double.server import tool_use

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.e2e
APP = "def greet(name):\n    return 'Hello ' + name\n"
RENAME = {"command": "str_replace", "path": "app.py", "old_str": "def greet", "new_str": "def welcome"}


@pytest.fixture
def repo(make_repo) -> Path:
    return make_repo(files={"app.py": APP}, under="")


def devagent(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(["uv", "run", "--no-sync", "devagent", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=120, env=env or os.environ.copy())


def test_ask_in_review_prints_the_diff_and_applies_nothing(claude_double, repo):
    claude_double.add(tool_use(EDITOR_NAME, RENAME))
    claude_double.add("It waits for you.")
    out = devagent("ask", "--repo", str(repo), "--memory", "none", "Rename greet.")
    assert out.returncode == 0, out.stderr
    assert "[would change app.py (+1 −1); not applied]" in out.stdout
    assert "-def greet(name):\n+def welcome(name):" in out.stdout
    assert (repo / "app.py").read_text() == APP
    result = claude_double.messages_requests()[1].tool_results()[0]
    assert result["is_error"] and result["content"].startswith("Not applied: devagent ask applies nothing")


def test_ask_in_auto_applies_and_undo_puts_it_back(claude_double, repo):
    claude_double.add(tool_use(EDITOR_NAME, RENAME))
    claude_double.add("Renamed.")
    env = {**os.environ, "DEVAGENT_CODE_WRITES": "auto"}
    out = devagent("ask", "--repo", str(repo), "--memory", "none", "Rename greet.", env=env)
    assert out.returncode == 0, out.stderr
    assert (repo / "app.py").read_text().startswith("def welcome(name):")
    undone = devagent("undo", str(repo))
    assert undone.returncode == 0, undone.stderr
    assert undone.stdout.startswith("Undone: app.py (+1 −1) is back as it was.")
    assert (repo / "app.py").read_text() == APP
    again = devagent("undo", str(repo))
    assert again.returncode == 1 and "no applied change" in again.stderr


def test_undo_refuses_a_file_edited_after_the_change(claude_double, repo):
    claude_double.add(tool_use(EDITOR_NAME, RENAME))
    claude_double.add("Renamed.")
    out = devagent("ask", "--repo", str(repo), "--memory", "none", "--code-writes", "auto", "Rename greet.")
    assert out.returncode == 0, out.stderr
    (repo / "app.py").write_text("def welcome(name):\n    return 'Hi ' + name\n")
    undone = devagent("undo", str(repo))
    assert undone.returncode == 1
    assert "Not undone: app.py changed since the change was applied" in undone.stderr
    assert "'Hi '" in (repo / "app.py").read_text()
