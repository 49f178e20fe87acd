"""The reader process (memory/git): a read that hangs is stopped without freezing the app, Esc
stops one, nothing in the repository's folder can stand in for devagent's code, another
user's repository is refused, and the app itself never imports pygit2."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from agent.tools.base import ToolContext
from agent.tools.git import GitStatusTool
from memory.git.reading import GitUnreadable, ask, head
from tests.repos import git, git_repo

ROOT = Path(__file__).resolve().parents[2]


def test_a_read_that_blocks_is_stopped_and_the_app_runs_on(tmp_path):
    repo = git_repo(tmp_path / "shop", {"a.txt": "a\n"}, commit=True)
    os.mkfifo(tmp_path / "pipe")
    git(repo, "config", "include.path", str(tmp_path / "pipe"))  # libgit2 blocks opening it
    ticks = 0
    stop = threading.Event()

    def tick() -> None:
        nonlocal ticks
        while not stop.is_set():
            ticks += 1
            time.sleep(0.05)

    ticker = threading.Thread(target=tick)
    ticker.start()
    started = time.monotonic()
    try:
        with pytest.raises(GitUnreadable) as caught:
            ask(repo, {"op": "status"}, timeout=1.5)
    finally:
        stop.set()
        ticker.join()
    took = time.monotonic() - started
    assert caught.value.kind == "timed-out" and "took longer than 2 seconds" in str(caught.value)
    assert took < 10
    assert ticks >= 15  # this interpreter kept running while the reader was stuck


def test_esc_stops_a_read(tmp_path):
    repo = git_repo(tmp_path / "shop", {"a.txt": "a\n"}, commit=True)
    os.mkfifo(tmp_path / "pipe")
    git(repo, "config", "include.path", str(tmp_path / "pipe"))
    pressed = time.monotonic() + 0.3
    with pytest.raises(GitUnreadable) as caught:
        ask(repo, {"op": "status"}, timeout=30, cancelled=lambda: time.monotonic() > pressed)
    assert caught.value.kind == "cancelled"


def test_a_module_in_the_repository_cannot_stand_in_for_the_reader(tmp_path):
    mark = tmp_path / "ran"
    code = f"open({str(mark)!r}, 'w').close()\n"
    repo = git_repo(tmp_path / "shop", {"memory/__init__.py": code, "memory/git/__init__.py": code,
                                        "memory/git/reader.py": code, "pygit2.py": code, "json.py": code}, commit=True)
    for folder in (repo, repo / "memory", repo / "memory" / "git"):
        result = GitStatusTool().run({}, ToolContext(folder))
        assert result.text.startswith("Branch: main"), result.text
    assert not mark.exists()


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a repository to another user needs root")
def test_a_repository_of_another_user_is_refused_with_the_command_that_allows_it(tmp_path, monkeypatch):
    repo = git_repo(tmp_path / "theirs", {"a.txt": "a\n"}, commit=True)
    for path in [repo, *repo.rglob("*")]:
        os.lchown(path, 65534, 65534)
    monkeypatch.setenv("HOME", str(tmp_path))  # no global safe.directory of this machine applies
    result = GitStatusTool().run({}, ToolContext(repo))
    assert result.is_error and result.summary == "not your repository"
    assert f"git config --global --add safe.directory {repo}" in result.text
    assert head(repo) == {"commit": None, "branch": None}


def test_the_app_never_imports_pygit2():
    probe = (
        "import sys, pathlib, agent.tools, memory.git.reading, memory.evidence, tui.app\n"
        "from agent.tools import developer_tools\n"
        "from tui.screens.startup import read_branch\n"
        "developer_tools()\n"
        "read_branch(pathlib.Path('.'))  # the status line's branch, read as the app starts\n"
        "print('pygit2' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "False", done.stderr[-2000:]
    importers = sorted(
        path.relative_to(ROOT).as_posix()
        for package in ("memory", "agent", "tui")
        for path in (ROOT / package).rglob("*.py")
        if "import pygit2" in path.read_text(encoding="utf-8") or "from pygit2" in path.read_text(encoding="utf-8")
    )
    assert importers == ["memory/git/history.py", "memory/git/opening.py", "memory/git/snapshots.py", "memory/git/worktree.py"]


def test_the_tools_read_the_folder_the_session_opened_not_what_took_its_path(tmp_path):
    """Through the session's root descriptor (/proc/self/fd/N, held by the reader under the
    same number): the repository moved away and another put at its path, the tools still
    read the one the session opened, and name it by the path the user gave."""
    from agent.tools.editor.confined_files import RepositoryRoot
    from agent.tools.git_diff import GitDiffTool
    from agent.tools.git_log import GitLogTool

    repo = git_repo(tmp_path / "shop", {"mine.txt": "mine\n"}, commit=True)
    (repo / "mine.txt").write_text("changed\n")
    root = RepositoryRoot(repo)
    repo.rename(tmp_path / "moved")
    git_repo(tmp_path / "shop", {"theirs.txt": "theirs\n"}, commit=True, branch="decoy")
    ctx = ToolContext(repo, root=root)
    status = GitStatusTool().run({}, ctx)
    assert status.text.startswith("Branch: main") and "modified: mine.txt" in status.text, status.text
    assert "+changed" in GitDiffTool().run({}, ctx).screen[1]
    log = GitLogTool().run({}, ctx)
    assert log.text.startswith("1 commit on main") and "theirs" not in log.text


def test_a_partial_clone_opens_and_what_it_lacks_is_named_not_fetched(tmp_path):
    from agent.tools.git_diff import GitDiffTool

    repo = git_repo(tmp_path / "blobless", {"notes.txt": "first\n", "kept.txt": "kept\n"}, commit=True)
    blob = git(repo, "rev-parse", "HEAD:notes.txt").strip()
    (repo / ".git" / "objects" / blob[:2] / blob[2:]).unlink()
    for key, value in (("core.repositoryformatversion", "1"), ("extensions.partialClone", "origin"),
                       ("remote.origin.promisor", "true"), ("remote.origin.url", str(tmp_path / "nowhere"))):
        git(repo, "config", key, value)
    (repo / "notes.txt").write_text("other\n")
    (repo / "kept.txt").write_text("kept too\n")
    status = GitStatusTool().run({}, ToolContext(repo))
    assert "  modified: notes.txt\n" in status.text + "\n" and "  modified: kept.txt (+1 -1)" in status.text, status.text
    diff = GitDiffTool().run({}, ToolContext(repo))
    assert "notes.txt (its content is not in this partial clone, and is not fetched)" in diff.text
    assert "+    1: kept too" in diff.text
