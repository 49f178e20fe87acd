"""The `devagent` entry point: every subcommand is wired, and bad input gets one line."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.repos import git_repo
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


@pytest.mark.slow
def test_memory_list_and_show_reach_the_users_memories_and_nested_ones(tmp_path, user_dirs):
    from memory.roots import open_memory

    repo = git_repo(tmp_path / "shop")
    memory = open_memory(repo)

    def note(name: str, kind: str) -> str:
        return f"---\nname: {name}\ndescription: about {name}\ntype: {kind}\n---\n{name} body.\n"

    for path, kind in (("/memories/user/me.md", "user"), ("/memories/sub/nested.md", "project"), ("/memories/core.md", "project")):
        assert memory.run({"command": "create", "path": path, "file_text": note(path.rsplit("/", 1)[-1][:-3], kind)})[1] is False
    listed = devagent("memory", "list", str(repo))
    assert listed.returncode == 0, listed.stderr
    paths = [line.split("\t")[0] for line in listed.stdout.splitlines()]
    assert set(paths) == {"/memories/user/me.md", "/memories/sub/nested.md", "/memories/core.md"}, listed.stdout
    mine = devagent("memory", "list", "--user", str(repo))
    assert [line.split("\t")[0] for line in mine.stdout.splitlines()] == ["/memories/user/me.md"], mine.stderr
    for name, body in (("/memories/user/me.md", "me body."), ("sub/nested", "nested body."), ("sub/nested.md", "nested body."), ("me", "me body.")):
        shown = devagent("memory", "show", name, str(repo))
        assert shown.returncode == 0 and body in shown.stdout, (name, shown.stderr)


def test_say_with_nothing_to_say_writes_nothing(tmp_path):
    out = tmp_path / "out.wav"
    result = devagent("say", "  ", "-o", str(out))
    assert result.returncode == 2 and "nothing to say" in result.stderr
    assert not out.exists()


def test_the_sessions_table_says_1_turn():
    from datetime import datetime
    from pathlib import Path

    from agent.conversation.saved_sessions import SessionInfo, table

    info = SessionInfo("20261109-0900-ab12", Path("x.jsonl"), datetime(2026, 11, 9, 9, 0), "hi", 1, 0.01, "m", 10)
    assert "  1 turn " in table([info])[0] and "turns" not in table([info])[0]


def test_eval_writes_its_report_outside_the_repository(user_dirs, tmp_path, monkeypatch):
    from datetime import datetime

    from tui.cli.eval import default_out

    monkeypatch.chdir(tmp_path)
    out = default_out(datetime(2026, 11, 9, 9, 0))
    assert not out.is_relative_to(tmp_path) and out.is_relative_to(user_dirs["state"])
