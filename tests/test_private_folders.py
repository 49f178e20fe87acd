"""Every folder devagent makes for itself is owner-only (0700) and every file of user data
0600, under the umask users really have (022) and the one that leaves everything open (000).

The umask is set in the child process (the test process's umask is shared by every thread
of the test run): the app itself, headless, for the memory pane and the logs, and `devagent
ask` against the Claude double for transcripts, memories, held changes and the journal of
code changes.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.double.server import tool_use
from tests.repos import git_repo

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.e2e

APP = textwrap.dedent(
    """
    import asyncio, os, sys
    from pathlib import Path

    from agent.settings.config import AgentConfig
    from memory.location import memory_dir_for, user_memory_dir
    from tui.app import DevAgentApp
    from tui.terminal import agent_log_path, log_path, start_logging, stderr_to_log

    os.umask(int(sys.argv[2], 8))
    repo = Path(sys.argv[1])
    start_logging()

    async def main():
        app = DevAgentApp(repo, AgentConfig(thinking="off"), probe_voice=False)
        async with app.run_test(size=(120, 40)) as pilot:
            for _ in range(200):
                watching = any(w.group == "memory-watch" and not w.is_finished for w in app.workers)
                if watching and memory_dir_for(repo).is_dir() and user_memory_dir().is_dir():
                    break
                await pilot.pause(0.05)
            else:
                raise SystemExit("the memory pane never watched its folders")

    with stderr_to_log(log_path()):
        asyncio.run(main())
    # past the size where the log turns over: the new file is made by the handler itself
    import logging
    logging.getLogger("devagent").warning("x" * 1_100_000)
    logging.getLogger("devagent").warning("after the turn-over")
    print(agent_log_path())
    """
)


def _git_repo(path: Path) -> Path:
    return git_repo(path, {"README.md": "# app\n"})


def _loose(*tops: Path) -> list[str]:
    """Every folder under `tops` (them included) that is not 0700, every file not 0600."""
    found = []
    for top in tops:
        for folder, _folders, files in os.walk(top):
            for name, want in [(None, 0o700)] + [(f, 0o600) for f in files]:
                path = Path(folder) if name is None else Path(folder) / name
                mode = stat.S_IMODE(path.lstat().st_mode)
                if mode != want:
                    found.append(f"{oct(mode)} {path.relative_to(top.parent)}")
    return sorted(found)


def _under_umask(umask: str, argv: list[str], **kwargs) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["sh", "-c", f'umask {umask} && exec "$@"', "sh", *argv],
        cwd=ROOT, capture_output=True, text=True, timeout=180, **kwargs,
    )


@pytest.mark.parametrize("umask", ["022", "000"])
def test_the_app_makes_its_data_and_state_folders_owner_only(tmp_path, user_dirs, umask, monkeypatch):
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    # nothing made before the app: the data and state folders are the app's to make
    user_dirs["data"].rmdir()
    user_dirs["state"].rmdir()
    repo = _git_repo(tmp_path / "sandbox" / "app")
    run = _under_umask(umask, [sys.executable, "-c", APP, str(repo), umask])
    assert run.returncode == 0, run.stderr[-3000:]
    log = Path(run.stdout.strip().splitlines()[-1])
    assert "after the turn-over" in log.read_text() and log.with_name(log.name + ".1").is_file()
    assert _loose(user_dirs["data"], user_dirs["state"]) == []


@pytest.mark.parametrize("umask", ["022", "000"])
def test_ask_keeps_transcripts_memories_held_changes_and_the_journal_owner_only(tmp_path, user_dirs, claude_double, umask):
    user_dirs["data"].rmdir()
    user_dirs["state"].rmdir()
    repo = _git_repo(tmp_path / "sandbox" / "app")
    note = "---\nname: build\ndescription: how to build\ntype: project\n---\nRun make.\n"
    claude_double.add(
        tool_use("memory", {"command": "create", "path": "/memories/topic/deep/build.md", "file_text": note}, id="m1"),
        tool_use("memory", {"command": "create", "path": "/memories/user/terse.md", "file_text": note}, id="m2"),
        tool_use("str_replace_based_edit_tool", {"command": "create", "path": "src/new/app.py", "file_text": "x = 1\n"}, id="e1"),
    )
    claude_double.add("Done.")
    run = _under_umask(umask, ["uv", "run", "--no-sync", "devagent", "ask", "--repo", str(repo), "--code-writes", "auto",
                               "Remember how to build, then add src/new/app.py."])
    assert run.returncode == 0, run.stderr[-3000:]
    results = [r["content"] for r in claude_double.messages_requests()[1].tool_results()]
    assert "created" in results[0].lower() and results[1].startswith("Held for review") and "created" in results[2].lower(), results
    assert (repo / "src" / "new" / "app.py").read_text() == "x = 1\n"
    for kept in ("memories", "user-memory", "transcripts", "changes"):
        assert (user_dirs["data"] / "devagent" / kept).is_dir(), kept
    assert _loose(user_dirs["data"], user_dirs["state"]) == []


def test_make_private_sets_0700_on_each_level_it_makes_and_leaves_existing_ones(tmp_path):
    from memory.private import make_private

    existing = tmp_path / "mine"
    existing.mkdir(mode=0o755)
    os.chmod(existing, 0o755)
    make_private(existing / "a" / "b")
    assert stat.S_IMODE(existing.stat().st_mode) == 0o755
    assert [stat.S_IMODE((existing / p).stat().st_mode) for p in ("a", "a/b")] == [0o700, 0o700]
    (tmp_path / "file").write_text("")
    with pytest.raises(NotADirectoryError):
        make_private(tmp_path / "file" / "below")
