"""A memory folder already 1,000 folders deep opens every way, and no new one can be made.

An older store accepted a `create` 1,000 levels down; from then on its recursive orphan
sweep raised RecursionError on every open, so the app, `devagent ask` and `devagent memory`
all failed until the folder was deleted by hand. The folders here are built with one
`mkdir` relative to the last (os.makedirs itself recurses once a level), one within the
system's path limit and one past it, inside the test's sandbox.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from memory.atomic import remove_tree
from memory.location import memory_dir_for
from memory.paths import MAX_DEPTH
from memory.store import MemoryStore
from tests.double.server import reply
from tests.memory.helpers import snapshot
from tests.memory.test_hostile_paths import outside_snapshot
from tests.repos import git_repo

ROOT = Path(__file__).resolve().parents[2]
DEPTH = 1000
NOTE = "---\nname: kept\ndescription: the one usable memory\ntype: project\n---\nBuild with make.\n"


def make_deep(base: Path, depth: int, name: str, files: dict[str, bytes]) -> None:
    """`depth` nested folders called `name` below `base`, `files` in the last one."""
    fd = os.open(base, os.O_RDONLY)
    try:
        for _ in range(depth):
            os.mkdir(name, 0o700, dir_fd=fd)
            inner = os.open(name, os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = inner
        for file_name, data in files.items():
            out = os.open(file_name, os.O_WRONLY | os.O_CREAT, 0o600, dir_fd=fd)
            os.write(out, data)
            os.close(out)
    finally:
        os.close(fd)


@pytest.fixture(params=["a", "level-name"], ids=["within-path-max", "past-path-max"])
def deep_repo(request, tmp_path, monkeypatch):
    """(sandbox, repository, memory folder, chain's folder name): one memory, and a
    1,000-level chain holding a memory and a half-written temp file at its bottom."""
    sandbox = tmp_path / "sandbox"
    monkeypatch.setenv("XDG_DATA_HOME", str(sandbox / "data"))
    repo = git_repo(sandbox / "app", {"README.md": "# app\n"})
    folder = memory_dir_for(repo)
    folder.mkdir(parents=True)
    (folder / "kept.md").write_text(NOTE)
    make_deep(folder, DEPTH, request.param, {"buried.md": b"too deep to read\n", ".tmp-12-abcdef": b"half"})
    yield sandbox, repo, folder, request.param
    # pytest's own clean-up of old temp folders recurses once a level, and fails on this
    # chain in whichever later session (ours or another) gets to it.
    if (folder / request.param).exists():
        remove_tree(str(folder / request.param))


@pytest.mark.slow
def test_the_store_opens_lists_and_can_delete_the_chain(deep_repo):
    sandbox, _repo, folder, top = deep_repo
    before = outside_snapshot(sandbox, folder)
    store = MemoryStore(folder)
    assert [m.path for m in store.memories()] == ["/memories/kept.md"]
    [skipped] = store.skipped()
    assert skipped.path == "/memories/" + f"{top}/" * MAX_DEPTH
    assert "nothing in it is read" in skipped.reason and "delete it" in skipped.reason
    assert store.warnings == []
    assert "buried" not in snapshot(store) and "Build with make." in snapshot(store)
    text, is_error = store.run({"command": "view", "path": "/memories"})
    assert not is_error and "/memories/kept.md" in text
    text, is_error = store.run({"command": "delete", "path": f"/memories/{top}"})
    assert (text, is_error) == (f"Successfully deleted /memories/{top}", False)
    assert sorted(p.name for p in folder.iterdir()) == [".lock", "kept.md"]
    assert outside_snapshot(sandbox, folder) == before


def test_a_sweep_that_fails_is_a_warning_not_a_failed_open(tmp_path, monkeypatch):
    from memory import atomic

    def broken(root):
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(atomic, "remove_orphans", broken)
    store = MemoryStore(tmp_path / "memories")
    assert store.warnings and "Could not sweep" in store.warnings[0]
    assert store.run({"command": "create", "path": "/memories/a.md", "file_text": "x"}) == (
        "File created successfully at: /memories/a.md", False,
    )


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "tui.cli", *args],
        cwd=ROOT, env=dict(os.environ), capture_output=True, text=True, timeout=120,
    )


@pytest.mark.e2e
def test_devagent_memory_list_show_and_path(deep_repo):
    _sandbox, repo, folder, _top = deep_repo
    listed = cli("memory", "list", str(repo))
    assert listed.returncode == 0, listed.stderr
    assert "Traceback" not in listed.stderr
    assert [line.split("\t")[0] for line in listed.stdout.splitlines()] == ["/memories/kept.md"]
    assert "skipped: /memories/" in listed.stderr and "nothing in it is read" in listed.stderr
    shown = cli("memory", "show", "kept", str(repo))
    assert (shown.returncode, shown.stdout, shown.stderr) == (0, NOTE, "")
    path = cli("memory", "path", str(repo))
    assert (path.returncode, path.stdout) == (0, f"{folder}\n")


@pytest.mark.e2e
def test_devagent_ask_starts_with_the_usable_memory_preloaded(deep_repo, claude_double):
    _sandbox, repo, _folder, _top = deep_repo
    claude_double.add(reply("Use make."))
    done = subprocess.run(
        [sys.executable, "-m", "tui.cli", "ask", "--repo", str(repo), "--memory", "preloaded", "How do I build?"],
        cwd=ROOT, env=dict(os.environ), capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "Use make." in done.stdout
    system = claude_double.messages_requests()[0].system_text()
    assert "Build with make." in system and "too deep to read" not in system


@pytest.fixture
def anyio_backend():
    return "asyncio"


@pytest.mark.anyio
async def test_the_app_opens_and_its_pane_lists_the_usable_memory(deep_repo, monkeypatch):
    from agent.settings.config import AgentConfig
    from tui.app import DevAgentApp
    from tui.widgets.memory.pane import MemoryPane

    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(deep_repo[0]))
    _sandbox, repo, _folder, _top = deep_repo
    app = DevAgentApp(repo, AgentConfig(thinking="off"), probe_voice=False)
    async with app.run_test(size=(120, 40)) as pilot:
        pane = app.query_one(MemoryPane)
        for _ in range(250):
            if pane.loads:
                break
            await pilot.pause(0.02)
        assert pane.listing.problem is None
        assert pane.names == ["kept"]


@pytest.mark.parametrize(
    ("path", "fragment"),
    [
        ("/memories/" + "a/" * 8 + "x.md", "is 9 levels deep; a memory path may go at most 8 levels below /memories"),
        ("/memories/" + "a/" * 1000 + "x.md", "is 2,014 characters long; a memory path may have at most 1,024"),
        ("/memories/" + "é" * 128 + ".md", "is 259 bytes; a name may have at most 255"),
    ],
    ids=["depth", "length", "name-bytes"],
)
def test_paths_over_the_caps_are_refused_with_a_sentence(store, path, fragment):
    for command in (
        {"command": "create", "path": path, "file_text": "x"},
        {"command": "rename", "old_path": "/memories/kept.md", "new_path": path},
    ):
        text, is_error = store.run(command)
        assert is_error and fragment in text, text
        assert len(text) < 600
    message, refused = store.save(path, "x")
    assert refused and fragment in message
    assert os.listdir(store.directory) == [".lock"]


def test_eight_levels_is_still_fine(store):
    path = "/memories/" + "a/" * 7 + "x.md"
    assert store.run({"command": "create", "path": path, "file_text": "x"}) == (f"File created successfully at: {path}", False)
    assert [m.path for m in store.memories()] == [path]
    assert store.skipped() == []
