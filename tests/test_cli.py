"""The `devagent` entry point: every subcommand is wired, and bad input gets one line."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tui.cli import SUBCOMMANDS


def devagent(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tui.cli", *args], capture_output=True, text=True, timeout=60
    )


def test_help_names_every_subcommand_and_the_app_options():
    result = devagent("--help")
    assert result.returncode == 0
    for name in SUBCOMMANDS:
        assert f"  {name} " in result.stdout
    for option in ("--no-voice", "--memory", "--model", "--effort"):
        assert option in result.stdout


@pytest.mark.parametrize("name", sorted(SUBCOMMANDS))
def test_every_subcommand_has_its_own_help(name):
    result = devagent(name, "--help")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f"usage: devagent {name}")


@pytest.mark.e2e
def test_a_missing_repository_is_one_line_not_a_traceback(tmp_path):
    result = devagent("--no-voice", str(tmp_path / "no-such-repo"))
    assert result.returncode != 0
    assert "Traceback" not in result.stderr + result.stdout
    assert len((result.stderr + result.stdout).strip().splitlines()) == 1


def test_the_apps_options_may_come_before_a_subcommand(tmp_path):
    result = devagent("--model", "claude-sonnet-5-5", "ask", "--help")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("usage: devagent ask")
    # --no-voice means nothing to a subcommand: it is no error
    result = devagent("--no-voice", "sessions", str(tmp_path))
    assert result.returncode == 0, result.stderr
    assert "usage:" not in result.stderr + result.stdout
