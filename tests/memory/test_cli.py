"""`devagent memory path|list|show`, through the real command line."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from memory.location import memory_dir_for
from memory.store import MemoryStore
from tests.memory.helpers import snapshot
from tui.cli import main

ROOT = Path(__file__).resolve().parents[2]

NOTE = "---\nname: feedback-cs1591\ndescription: CS1591 is noise\ntype: feedback\n---\nIgnore CS1591.\n"


@pytest.fixture
def repo(make_repo) -> Path:
    return make_repo("app", under="")


def filled(repo: Path) -> MemoryStore:
    store = MemoryStore.for_repository(repo)
    store.run({"command": "create", "path": "/memories/feedback_cs1591.md", "file_text": NOTE})
    store.run({"command": "create", "path": "/memories/plain.md", "file_text": "no frontmatter"})
    store.run({"command": "create", "path": "/memories/MEMORY.md", "file_text": "- [CS1591](feedback_cs1591.md) — noise\n"})
    return store


def test_path_through_a_real_subprocess(repo, private_data_dir):
    env = dict(os.environ)
    done = subprocess.run(
        [sys.executable, "-m", "tui.cli", "memory", "path", str(repo)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"{memory_dir_for(repo)}\n"
    assert done.stdout.startswith(str(private_data_dir))
    assert not memory_dir_for(repo).exists()  # asking for the path creates nothing


def test_path_defaults_to_the_current_folder(repo, capsys, monkeypatch):
    monkeypatch.chdir(repo)
    assert main(["memory", "path"]) == 0
    assert capsys.readouterr().out == f"{memory_dir_for(repo)}\n"


def test_list(repo, capsys):
    store = filled(repo)
    assert main(["memory", "list", str(repo)]) == 0
    out, err = capsys.readouterr()
    rows = [line.split("\t") for line in out.splitlines()]
    assert [row[0] for row in rows] == ["/memories/feedback_cs1591.md", "/memories/plain.md"]
    assert rows[0][1:3] == ["feedback", str(len(NOTE))]
    assert rows[0][4:] == ["feedback-cs1591", "CS1591 is noise"]
    assert rows[1][1] == "-" and rows[1][4] == "plain"
    assert err == f"note: {store.index_problems()[0]}\n"


def test_list_of_a_repository_with_no_memory_is_empty(repo, capsys):
    assert main(["memory", "list", str(repo)]) == 0
    assert capsys.readouterr() == ("", "")


@pytest.mark.parametrize("name", ["feedback_cs1591.md", "feedback_cs1591", "feedback-cs1591", "/memories/feedback_cs1591.md"])
def test_show_by_any_name(repo, capsys, name):
    filled(repo)
    assert main(["memory", "show", name, str(repo)]) == 0
    assert capsys.readouterr().out == NOTE


def test_show_the_index_and_a_file_without_newline(repo, capsys):
    filled(repo)
    assert main(["memory", "show", "MEMORY.md", str(repo)]) == 0
    assert capsys.readouterr().out == "- [CS1591](feedback_cs1591.md) — noise\n"
    assert main(["memory", "show", "plain", str(repo)]) == 0
    assert capsys.readouterr().out == "no frontmatter\n"


def test_show_unknown_and_hostile_names_fail_cleanly(repo, capsys):
    filled(repo)
    assert main(["memory", "show", "nothing", str(repo)]) == 1
    assert capsys.readouterr().err == "devagent memory: no memory named 'nothing'\n"
    assert main(["memory", "show", "/memories/../../x", str(repo)]) == 1
    assert "not allowed" in capsys.readouterr().err


def test_not_a_folder(tmp_path, capsys):
    assert main(["memory", "list", str(tmp_path / "missing")]) == 2
    assert "is not a folder" in capsys.readouterr().err


@pytest.mark.e2e
def test_uv_run_devagent_memory_list(repo):
    """The installed console script, the way a user runs it."""
    filled(repo)
    uv = os.environ.get("UV", "uv")
    try:
        done = subprocess.run(
            [uv, "run", "--offline", "--frozen", "devagent", "memory", "list", str(repo)],
            cwd=ROOT, env=dict(os.environ), capture_output=True, text=True, timeout=120,
        )
    except FileNotFoundError:
        pytest.skip("uv is not on PATH")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0].startswith("/memories/feedback_cs1591.md\tfeedback\t")


@pytest.mark.e2e
def test_list_into_a_reader_that_stops_early_prints_no_traceback(repo):
    """`devagent memory list | head -1` on a folder whose listing overflows the pipe."""
    folder = memory_dir_for(repo)
    folder.mkdir(parents=True)
    for n in range(1500):
        (folder / f"note_{n:04d}.md").write_text(f"---\nname: note {n}\ndescription: {'a long description ' * 8}\n---\nx\n")
    process = subprocess.Popen(
        [sys.executable, "-m", "tui.cli", "memory", "list", str(repo)],
        cwd=ROOT, env=dict(os.environ), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    assert process.stdout.readline().startswith("/memories/note_0000.md\t")
    process.stdout.close()  # what head does after its line
    stderr = process.stderr.read()
    assert process.wait(timeout=60) == 0
    assert "Traceback" not in stderr and "BrokenPipe" not in stderr, stderr


def test_list_names_a_symlinked_memory_as_skipped_with_its_reason(repo, tmp_path):
    store = filled(repo)
    (tmp_path / "elsewhere.md").write_text("---\nname: linked\n---\nlinked text\n")
    (store.directory / "linked.md").symlink_to(tmp_path / "elsewhere.md")
    (store.directory / "linked-folder").symlink_to(tmp_path, target_is_directory=True)
    done = subprocess.run(
        [sys.executable, "-m", "tui.cli", "memory", "list", str(repo)],
        cwd=ROOT, env=dict(os.environ), capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert "linked" not in done.stdout
    skipped = [line for line in done.stderr.splitlines() if line.startswith("skipped: ")]
    assert skipped == [
        "skipped: /memories/linked-folder: it is a symbolic link, which the memory store does not follow "
        "(it could lead out of the folder); put the file itself there to use it",
        "skipped: /memories/linked.md: it is a symbolic link, which the memory store does not follow "
        "(it could lead out of the folder); put the file itself there to use it",
    ]
    assert "- /memories/linked.md: skipped: it is a symbolic link" in snapshot(store)
    assert str(tmp_path) not in snapshot(store)


def test_a_memory_with_escape_sequences_reaches_the_terminal_as_text(repo, capsys):
    # Whoever can write the folder chose these words; `show` and `list` must not let them
    # retitle or clear the terminal (the app shows the same ␛ through tui.format.sanitize).
    store = MemoryStore.for_repository(repo)
    store.directory.mkdir(parents=True, exist_ok=True)
    (store.directory / "evil.md").write_text(
        "---\nname: evil\x1b]2;owned\x07\ndescription: clears \x1b[2J\ntype: project\n---\nBody \x1b]2;owned\x07 here.\n")
    assert main(["memory", "show", "evil", str(repo)]) == 0
    shown = capsys.readouterr().out
    assert "\x1b" not in shown and "\x07" not in shown and "Body ␛]2;owned␇ here." in shown
    assert main(["memory", "list", str(repo)]) == 0
    listed = capsys.readouterr()
    assert "\x1b" not in listed.out + listed.err and "\x07" not in listed.out + listed.err
    assert "/memories/evil.md" in listed.out
