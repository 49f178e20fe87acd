"""The repository folder moved away and replaced by a link: nothing is read, written or run there.

A real process swaps the repository folder for a link to a decoy outside it, either with
renameat2 RENAME_EXCHANGE (the name is never missing) or with a rename and a symlink. The
decoy holds the same file names with other words, and a git change of its own.

- Through the tools, with the session's root opened before the swap and no check in the
  way: read_file, search, git_diff and the editor's view show the repository's words, never
  the decoy's; str_replace and create write in the repository folder (wherever it went);
  build and test run in it; undo puts the repository's file back, and undo through the
  session refuses because the path names another folder.
- Through a session: a swap between two turns ends the next turn before any call, and a
  build that swaps the folder in the middle of a turn makes every later call of the reply a
  text error for the model, and the turn stops with a sentence for the user.

The decoy is compared byte for byte before and after, and no `.tmp-*` may be left anywhere.
The module runs again inside a private mount namespace with everything but the sandbox
read-only (the outer test); the swaps run only there, so a wrong result cannot reach
anything real.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from agent.cancel import Cancellation
from agent.events import AgentError
from agent.loop.root_check import undo_last_change
from agent.settings.config import AgentConfig
from agent.tools.base import ToolContext
from agent.tools.build import BuildTool, RunTestsTool
from agent.tools.editor.confined_files import RepositoryRoot
from agent.tools.editor.journal import undo_last
from agent.tools.files import ReadFileTool
from agent.tools.git_diff import GitDiffTool
from agent.tools.search import SearchTool
from agent.tools.text_editor import EDITOR_NAME, TextEditorTool
from tests.agent.sessions import session, trusted
from tests.double.server import tool_use
from tests.read_only_rerun import rerun_read_only
from tests.repos import git, git_repo

INNER = os.environ.get("ROOT_SWAP_INNER") == "1"
inner_only = pytest.mark.skipif(not INNER, reason="runs inside the read-only mount namespace (the outer test)")

SWAPPER = textwrap.dedent("""
    import ctypes, os, sys
    mode, repo, parked, decoy = sys.argv[1:]
    if mode == "exchange":  # the name never goes missing: a link one moment, the folder the next
        os.symlink(decoy, parked)
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.renameat2(-100, os.fsencode(repo), -100, os.fsencode(parked), 2) != 0:  # RENAME_EXCHANGE
            sys.exit(f"renameat2: {os.strerror(ctypes.get_errno())}")
    else:
        os.rename(repo, parked)
        os.symlink(decoy, repo)
""")
MODES = ["exchange", "rename"]


def sandbox(base: Path) -> tuple[Path, Path, Path, Path]:
    """(box, repo, where the repository folder is after the swap, the decoy)."""
    box = base / "deep" / "in" / "a" / "sandbox"
    repo = git_repo(box / "work" / "repo", {"src/app.py": "MARKER = 'inside'\n"}, commit=True)
    (repo / "src" / "app.py").write_text("MARKER = 'inside changed'\n")
    decoy = git_repo(box / "decoy", {"src/app.py": "MARKER = 'OUTSIDE'\n"}, commit=True)
    (decoy / "src" / "app.py").write_text("MARKER = 'OUTSIDE changed'\n")
    return box, repo, box / "work" / "parked", decoy


def swap_command(mode: str, repo: Path, parked: Path, decoy: Path) -> list[str]:
    return [sys.executable, "-c", SWAPPER, mode, str(repo), str(parked), str(decoy)]


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file below `folder` (git's own too) by its path: a write or a git refresh shows."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file() and not p.is_symlink()}


def temps(box: Path) -> list[str]:
    return sorted(str(p) for p in box.rglob(".tmp-*"))


@inner_only
@pytest.mark.parametrize("mode", MODES)
def test_every_tool_stays_in_the_opened_folder_after_the_swap(tmp_path, mode):
    box, repo, parked, decoy = sandbox(tmp_path)
    before = snapshot(decoy)
    root = RepositoryRoot(repo)
    config = AgentConfig(build_command="pwd -P > built-in.txt", test_command="pwd -P > tested-in.txt")
    subprocess.run(swap_command(mode, repo, parked, decoy), check=True)
    assert root.moved() and repo.is_symlink() and (parked / "src" / "app.py").is_file()
    # the tools alone, in one turn (one Cancellation): the session's check is not in the way
    ctx = ToolContext(repo, cancel=Cancellation(), config=config, root=root)

    read = ReadFileTool().run({"path": "src/app.py"}, ctx)
    found = SearchTool().run({"pattern": "MARKER"}, ctx)
    diff = GitDiffTool().run({}, ctx)
    editor = TextEditorTool("auto")
    view = editor.run({"command": "view", "path": "src/app.py"}, ctx)
    for result in (read, found, diff, view):
        assert "inside changed" in result.text and "OUTSIDE" not in result.text, result.text
    assert "1: MARKER = 'inside changed'" in diff.text

    replaced = editor.run({"command": "str_replace", "path": "src/app.py", "old_str": "inside changed", "new_str": "edited"}, ctx)
    created = editor.run({"command": "create", "path": "new.txt", "file_text": "made\n"}, ctx)
    assert not replaced.is_error and not created.is_error, (replaced.text, created.text)
    assert (parked / "src" / "app.py").read_text() == "MARKER = 'edited'\n"
    assert (parked / "new.txt").read_text() == "made\n"

    for tool in (BuildTool(), RunTestsTool()):
        tool.run({}, ctx)
    # they ran in the opened folder (in a sandbox it is mounted where the path leads now, so the
    # name they see may be the decoy's, but what they write lands in the repository's folder)
    for name in ("built-in.txt", "tested-in.txt"):
        assert (parked / name).is_file() and not (decoy / name).exists()

    refused, said = undo_last_change(repo, root)
    assert not refused and "no longer the folder this session opened" in said
    undone, said = undo_last(root.at)
    assert undone, said
    assert (parked / "src" / "app.py").read_text() == "MARKER = 'inside changed'\n" and not (parked / "new.txt").exists()

    assert snapshot(decoy) == before and temps(box) == []


@inner_only
@pytest.mark.parametrize("mode", MODES)
def test_a_swap_between_two_turns_ends_the_next_one_before_anything_runs(tmp_path, claude_double, mode):
    box, repo, parked, decoy = sandbox(tmp_path)
    talk = session(repo, trust=trusted(repo), memory_mode="none", code_writes="auto")
    claude_double.add(tool_use("read_file", {"path": "src/app.py"}, id="r1"))
    claude_double.add("It says inside.")
    talk.send("What does app.py say?", lambda e: None)
    subprocess.run(swap_command(mode, repo, parked, decoy), check=True)
    before = snapshot(decoy)
    claude_double.add(*_every_call())
    claude_double.add("Done.")
    events: list = []
    talk.send("Look again and change it.", events.append)
    (error,) = [e.message for e in events if isinstance(e, AgentError)]
    assert "no longer the folder this session opened" in error and str(repo) in error
    assert len(claude_double.messages_requests()) == 2  # the second turn asked the model nothing
    assert snapshot(decoy) == before and temps(box) == []
    assert (parked / "src" / "app.py").read_text() == "MARKER = 'inside changed'\n"


@inner_only
@pytest.mark.parametrize("mode", MODES)
# build's sandbox keeps the folder's parent read-only, so a sandboxed build cannot move it:
# outside the sandbox, the build stands for any program of the user's that moves the folder
@pytest.mark.usefixtures("unsandboxed")
def test_a_swap_in_the_middle_of_a_turn_stops_it_and_every_later_call_is_refused(tmp_path, claude_double, mode):
    box, repo, parked, decoy = sandbox(tmp_path)
    before = snapshot(decoy)
    swap = " ".join(f"'{part}'" for part in swap_command(mode, repo, parked, decoy))
    # the user's own build command, so it runs without asking, moves the folder as it builds
    talk = session(repo, trust=trusted(repo), memory_mode="none", code_writes="auto", build_command=swap,
                   test_command="pwd -P > tested-in.txt")
    claude_double.add(tool_use("build", {}, id="b0"), *_every_call())
    claude_double.add("Done.")
    events: list = []
    talk.send("Build, then look and change it.", events.append)
    (error,) = [e.message for e in events if isinstance(e, AgentError)]
    assert "no longer the folder this session opened" in error
    assert len(claude_double.messages_requests()) == 1  # the turn stopped: the model was not asked again
    # what the model hears with the next turn: the build's result, then a text error a call
    results = [block for message in talk.messages if message["role"] == "user" and isinstance(message["content"], list)
               for block in message["content"] if block.get("type") == "tool_result"]
    build, *later = results
    assert not build.get("is_error"), build
    assert len(later) == 8
    for result in later:
        assert result.get("is_error") and "was moved or replaced" in str(result["content"]), result
        assert "OUTSIDE" not in str(result["content"]) and "inside" not in str(result["content"])
    assert snapshot(decoy) == before and temps(box) == []
    assert (parked / "src" / "app.py").read_text() == "MARKER = 'inside changed'\n"
    assert not (parked / "tested-in.txt").exists() and not (parked / "new.txt").exists()


def _every_call() -> list[dict]:
    return [
        tool_use("read_file", {"path": "src/app.py"}, id="c1"),
        tool_use("search", {"pattern": "MARKER"}, id="c2"),
        tool_use("git_diff", {}, id="c3"),
        tool_use(EDITOR_NAME, {"command": "view", "path": "src/app.py"}, id="c4"),
        tool_use(EDITOR_NAME, {"command": "str_replace", "path": "src/app.py", "old_str": "inside", "new_str": "x"}, id="c5"),
        tool_use(EDITOR_NAME, {"command": "create", "path": "new.txt", "file_text": "made\n"}, id="c6"),
        tool_use("test", {}, id="c7"),
        tool_use("build", {}, id="c8"),
    ]


@inner_only
def test_inner_run_really_is_read_only(tmp_path):
    (tmp_path / "probe").write_text("ok")
    with pytest.raises(OSError):
        (Path(__file__).parent / "probe-should-fail").write_text("no")


def test_the_session_names_the_folder_it_opened_even_when_given_a_link(tmp_path):
    repo = git_repo(tmp_path / "repo", {"a.txt": "a\n"}, commit=True)
    link = tmp_path / "link"
    link.symlink_to(repo)
    root = RepositoryRoot(link)
    assert root.path == repo.resolve() and not root.moved()
    assert os.path.samefile(root.at, repo)
    git(repo, "status")  # the folder is usable as it is


@pytest.mark.slow
def test_swaps_under_a_read_only_mount_namespace(tmp_path):
    if INNER:
        pytest.skip("already inside")
    done = rerun_read_only(Path(__file__), tmp_path, "ROOT_SWAP_INNER", timeout=400)
    print(done.stdout[-3000:])
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    summary = done.stdout.strip().splitlines()[-1]
    assert "8 passed, 1 skipped" in summary, done.stdout[-2000:]  # only this outer test skipped
