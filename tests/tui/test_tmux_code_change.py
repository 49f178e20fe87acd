"""A failing pytest project fixed through the real `devagent` in tmux: the model's change
waits as a diff, Enter applies it, and the tests it runs next are green."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from agent.tools.text_editor import EDITOR_NAME
from tests.double.server import reply, text, tool_use
from tests.repos import git_repo
from tests.system_packages import needs
from tests.tui.scenario import DoubleProcess
from tests.tui.test_tmux import devagent_in_tmux, quit_app
from tui.screens.trust import TYPED_AHEAD_SECONDS

pytestmark = [pytest.mark.e2e, needs("tmux")]

CALC = "def add(a, b):\n    return a - b\n"
TESTS = "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"


def project(root: Path) -> SimpleNamespace:
    repo = git_repo(root / "calc", {"calc.py": CALC, "test_calc.py": TESTS})
    # the project's own environment, as a developer's would be: one with pytest
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", str(repo / ".venv")], check=True)
    (repo / ".gitignore").write_text(".venv/\n")
    env = {name: str(root / name.lower()) for name in ("XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_RUNTIME_DIR")}
    for folder in env.values():
        Path(folder).mkdir(mode=0o700)
    env["PATH"] = "/usr/local/bin:/usr/bin:/bin"
    return SimpleNamespace(repo=repo, env=env)


def script() -> dict:
    fix = {"command": "str_replace", "path": "calc.py", "old_str": "return a - b", "new_str": "return a + b"}
    return {"replies": [
        reply(tool_use("test", {})),
        reply(text("add subtracts; here is the fix."), tool_use(EDITOR_NAME, fix)),
        reply(tool_use("test", {})),
        reply(text("Fixed add; the tests pass now.")),
    ], "default": reply(text("Done."))}


def test_a_failing_project_is_fixed_by_enter_and_its_tests_go_green(tmp_path_factory):
    # a short folder: the dialog's command line below is read whole, and the test's own
    # folder name (plus pytest-xdist's popen-gwN) would wrap it at 140 columns
    tmp_path = tmp_path_factory.mktemp("fix")
    world = project(tmp_path)
    with DoubleProcess(script(), tmp_path / "double") as double, \
            devagent_in_tmux(tmp_path, world, double, (140, 42), "--no-voice") as tmux:
        tmux.wait_for("Ask about this repository")
        tmux.run("send-keys", "-t", "app", "-l", "Fix the failing test.")
        tmux.run("send-keys", "-t", "app", "Enter")
        # a fresh clone: its tests run only once the user trusts it, shown what runs
        screen = tmux.wait_for("Trust this repository?", timeout=120)
        assert "calc/.venv/bin/python -m" in screen and "pytest -q -rfE" in screen, screen
        assert not list(world.repo.glob("**/__pycache__"))  # pytest has not imported anything yet
        time.sleep(TYPED_AHEAD_SECONDS + 0.2)  # a key in the dialog's first moment was typed for the prompt
        tmux.run("send-keys", "-t", "app", "y")
        screen = tmux.wait_for("Change waiting: calc.py (+1 −1)", "+    return a + b", timeout=120)
        assert "-    return a - b" in screen
        assert (world.repo / "calc.py").read_text() == CALC  # nothing written before Enter
        tmux.run("send-keys", "-t", "app", "Enter")
        tmux.wait_for("the tests pass now", timeout=120)
        assert (world.repo / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"
        requests = double.requests()
        results = [b for r in requests for m in r["body"]["messages"][-1:] if isinstance(m["content"], list)
                   for b in m["content"] if b.get("type") == "tool_result"]
        assert "1 failed" in str(results[0]["content"]), results[0]
        assert str(results[1]["content"]).startswith("The user applied the change.")
        assert "1 passed" in str(results[2]["content"]), results[2]
        quit_app(tmux)
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", str(world.repo)], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout
