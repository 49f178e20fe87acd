"""The text editor's writes on hostile paths change nothing outside the repository.

The repository sits in a sandbox full of bait: a file above it, a sibling folder whose name
shares its prefix, a symlink inside it that leads out, its .git, a FIFO and a file past the
size cap. Every write command on each path must be an error that says why, and the
sandbox outside the repository must stay byte for byte what it was.

The outer test runs this module again inside a private mount namespace with everything
but the sandbox mounted read-only (as tests/memory/test_hostile_readonly.py does for the
memory store), so a write that escaped would fail with EROFS instead of landing somewhere
real.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agent.tools.base import ToolContext
from agent.tools.paths import MAX_FILE_BYTES
from agent.tools.text_editor import TextEditorTool
from tests.read_only_rerun import rerun_read_only

INNER = os.environ.get("EDITOR_HOSTILE_INNER") == "1"
BAIT = "BAIT-editor-do-not-touch"


def sandbox(base: Path) -> tuple[Path, Path]:
    box = base / "sandbox"
    repo = box / "work" / "repo"
    (repo / "src").mkdir(parents=True)
    (repo / "src" / "app.py").write_text("print('hi')\n")
    (repo / ".git").mkdir()
    (repo / ".git" / "config").write_text("[core]\n")
    (box / "secret.txt").write_text(f"{BAIT}\n")
    (box / "work" / "repo-evil").mkdir()
    (box / "work" / "repo-evil" / "x.py").write_text(f"{BAIT}\n")
    (repo / "out").symlink_to(box, target_is_directory=True)
    (repo / "link.py").symlink_to(box / "secret.txt")
    os.mkfifo(repo / "pipe")
    with open(repo / "big.txt", "wb") as big:
        big.truncate(MAX_FILE_BYTES + 1)
    return box, repo


def hostile(box: Path, repo: Path) -> list[str]:
    return [
        "../secret.txt", "src/../../secret.txt", str(box / "secret.txt"), str(repo) + "-evil/x.py",
        "out/secret.txt", "out/new.txt", "link.py", ".git/config", ".git/hooks/pre-commit", "src/.GIT/x",
        "pipe", "big.txt", "/etc/passwd", "src/app.py\x00.txt",
    ]


def snapshot(box: Path, repo: Path) -> dict[str, bytes]:
    found = {}
    for path in sorted(box.rglob("*")):
        if path.is_file() and not path.is_symlink() and repo not in path.parents and path != repo:
            found[str(path)] = path.read_bytes()
    found["git-config"] = (repo / ".git" / "config").read_bytes()
    return found


def calls(path: str) -> list[dict]:
    return [
        {"command": "create", "path": path, "file_text": "x\n"},
        {"command": "str_replace", "path": path, "old_str": BAIT, "new_str": "x"},
        {"command": "insert", "path": path, "insert_line": 0, "insert_text": "x"},
        {"command": "view", "path": path},
    ]


@pytest.mark.parametrize("writes", ["auto", "review"])
def test_every_hostile_write_is_refused_and_nothing_outside_changes(tmp_path, writes):
    box, repo = sandbox(tmp_path)
    before = snapshot(box, repo)
    tool = TextEditorTool(writes)  # type: ignore[arg-type]
    for path in hostile(box, repo):
        for call in calls(path):
            result = tool.run(call, ToolContext(repo))
            assert result.is_error, (call, result.text)
            assert BAIT not in result.text, (call, result.text)
            assert result.text.startswith("Error:") and len(result.text) > 30, result.text
    assert tool.held is None  # nothing was held for review either
    assert snapshot(box, repo) == before
    # the repository's own file is still writable: the refusals were about the paths
    ok = tool.run({"command": "create", "path": "src/new.py", "file_text": "x\n"}, ToolContext(repo))
    assert not ok.is_error, ok.text


@pytest.mark.skipif(not INNER, reason="only meaningful inside the read-only mount namespace")
def test_inner_run_really_is_read_only(tmp_path):
    (tmp_path / "probe").write_text("ok")
    with pytest.raises(OSError):
        (Path(__file__).parent / "probe-should-fail").write_text("no")


@pytest.mark.slow
def test_hostile_writes_under_a_read_only_mount_namespace(tmp_path):
    if INNER:
        pytest.skip("already inside")
    done = rerun_read_only(Path(__file__), tmp_path, "EDITOR_HOSTILE_INNER", timeout=240)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "3 passed" in done.stdout, done.stdout[-2000:]
