"""A missing Debian package skips its tests and the summary says what to install; under
CI=true it fails them, so CI cannot pass by skipping."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
TMUX_TESTS = "tests/tui/test_tmux_typing.py"

pytestmark = pytest.mark.slow


def _run_without_tmux(tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    empty = tmp_path / "bin"
    empty.mkdir()  # a PATH with nothing on it: tmux is nowhere to be found
    environment = {k: v for k, v in os.environ.items() if k != "CI"}
    environment.update(PATH=str(empty), **env)
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-n", "0", "-p", "no:cacheprovider", TMUX_TESTS],
                          cwd=REPO, env=environment, capture_output=True, text=True, timeout=300)


def test_a_missing_package_skips_and_the_summary_names_it(tmp_path):
    run = _run_without_tmux(tmp_path)
    assert run.returncode == 0, run.stdout[-3000:]
    assert " skipped" in run.stdout and "failed" not in run.stdout
    assert "this machine lacks Debian packages they need" in run.stdout
    assert "sudo apt-get install -y tmux" in run.stdout


def test_under_ci_a_missing_package_fails_the_run(tmp_path):
    run = _run_without_tmux(tmp_path, CI="true")
    assert run.returncode == 1, run.stdout[-3000:]
    assert "CI=true and a system package is missing" in run.stdout
    assert " skipped" not in run.stdout
