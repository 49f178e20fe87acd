"""Nothing the editor writes is lost: to a second session writing the same file, to a
process killed halfway through a change set, or to a journal entry that cannot be read.

Real processes throughout: two editors in processes of their own race on one file; a
session applying a change set of twenty files is killed with SIGKILL at a gate it waits
at between two files (a FIFO the test never opens, so the stop is exact, not timed), and
the next `devagent ask` or `devagent undo` has to settle what it left.
"""

from __future__ import annotations

import errno
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from agent.tools.editor.change_set import GATE_ENV
from agent.tools.editor.file_locks import locks_dir
from agent.tools.editor.journal import history, journal_dir, undo_last
from agent.tools.text_editor import EDITOR_NAME
from tests.double.server import reply, tool_use
from tests.processes import alive

ROOT = Path(__file__).resolve().parents[2]
FILES = 20
BODY = "def greet(name):\n    return 'Hello ' + name\n" * 2000  # about 90 kB a file


def original(n: int) -> str:
    return f"# module {n}\n{BODY}"


def renamed(n: int) -> str:
    return f"# module {n}, renamed\n{BODY}"


ORIGINALS = [original(n) for n in range(FILES)]
RENAMED = [renamed(n) for n in range(FILES)]


@pytest.fixture
def repo(make_repo) -> Path:
    return make_repo(files={"app.py": "end\n"}, under="")


def strays(repo: Path) -> list[str]:
    """Every temporary file under the repository, and anything but the files it should hold."""
    return sorted(str(p.relative_to(repo)) for p in repo.rglob("*") if ".git" not in p.parts and p.name.startswith(".tmp-"))


def python(*args: str, env: dict | None = None) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, *args], cwd=ROOT, env=env or os.environ.copy(),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def devagent(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["uv", "run", "--no-sync", "devagent", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)


# --- two sessions, one file ------------------------------------------------------------------


INSERTS = 80


@pytest.mark.e2e
def test_two_processes_inserting_into_one_file_lose_no_insert_they_were_told_was_done(repo, tmp_path):
    barrier = tmp_path / "barrier"
    barrier.mkdir()
    tags = ("a", "b")
    procs = [python("-m", "tests.tools.editing_process", str(repo), tag, str(INSERTS), str(barrier),
                    str(tmp_path / f"{tag}.json")) for tag in tags]
    deadline = time.monotonic() + 60
    while not all((barrier / f"ready-{tag}").exists() for tag in tags):
        assert time.monotonic() < deadline and all(p.poll() is None for p in procs), [p.communicate() for p in procs]
        time.sleep(0.01)
    (barrier / "go").touch()  # both start their inserts at once
    for proc in procs:
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
    said = [s for tag in tags for s in json.loads((tmp_path / f"{tag}.json").read_text())]
    done = [s["line"] for s in said if s["done"]]
    lines = (repo / "app.py").read_text().splitlines()
    lost = [line for line in done if line not in lines]
    print(f"{len(done)} of {len(said)} inserts done, {len(lost)} of them lost, {len(said) - len(done)} refused")
    assert lost == []
    assert sorted(lines) == sorted([*done, "end"])  # and nothing refused slipped in
    # both really wrote, side by side (a refusal is a conflict caught)
    assert all(sum(s["done"] for s in said if s["line"].startswith(f"# {tag}-")) >= INSERTS // 4 for tag in tags)
    refusals = {s["text"].split(" app.py")[0] for s in said if not s["done"]}
    assert refusals <= {"Error: Not applied:", "Error:"}, refusals
    assert all("changed on disk since" in s["text"] for s in said if not s["done"])
    # the locks live in devagent's data folder, not in the repository
    assert sorted(p.name for p in repo.iterdir()) == [".git", "app.py"]
    assert list(locks_dir().glob("*.lock"))


# --- a change set cut short --------------------------------------------------------------------


def twenty_files(repo: Path) -> None:
    for n in range(FILES):
        (repo / f"m{n:02}.py").write_text(original(n))


def rename_everywhere(double) -> None:
    calls = [tool_use(EDITOR_NAME, {"command": "str_replace", "path": f"m{n:02}.py", "old_str": f"# module {n}\n",
                                    "new_str": f"# module {n}, renamed\n"}) for n in range(FILES)]
    double.add(reply(*calls))
    double.add("Renamed.")


def killed_between_two_files(repo: Path, tmp_path: Path) -> None:
    """Runs a session that applies the twenty-file set and kills it with SIGKILL once it
    has written the first file and made the second's temporary file."""
    gate = tmp_path / "gate"
    gate.mkdir()
    os.mkfifo(gate / "1")
    proc = python("-m", "tests.tools.applying_process", str(repo), env={**os.environ, GATE_ENV: str(gate)})
    deadline = time.monotonic() + 60
    while True:
        try:
            # succeeds only once the process waits at the gate with the FIFO open for reading
            held = os.open(gate / "1", os.O_WRONLY | os.O_NONBLOCK)
            break
        except OSError as err:
            assert err.errno == errno.ENXIO
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the apply never reached the gate between its first and second file"
        time.sleep(0.01)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    os.close(held)
    assert not alive(proc.pid)


def texts(repo: Path) -> list[str]:
    return [(repo / f"m{n:02}.py").read_text() for n in range(FILES)]


@pytest.mark.e2e
def test_a_process_killed_mid_apply_is_finished_at_the_next_start_and_undo_restores_every_file(
        repo, tmp_path, claude_double):
    twenty_files(repo)
    rename_everywhere(claude_double)
    killed_between_two_files(repo, tmp_path)
    now = texts(repo)
    # what the kill left: half a set, and the second file's temporary file
    assert now[0] == RENAMED[0] and now[1:] == ORIGINALS[1:]
    assert len(strays(repo)) == 1

    claude_double.add("Hello.")
    asked = devagent("ask", "--repo", str(repo), "--memory", "none", "Hello?")
    assert asked.returncode == 0, asked.stderr
    assert "devagent stopped while applying a change to m00.py, m01.py" in asked.stderr
    assert texts(repo) == RENAMED  # finished, all of it
    assert strays(repo) == []

    undone = devagent("undo", str(repo))
    assert undone.returncode == 0, undone.stderr
    assert undone.stdout.startswith(f"Undone: {FILES} files:"), undone.stdout
    assert texts(repo) == ORIGINALS
    assert strays(repo) == [] and not list(journal_dir(repo).glob("*.writing"))


@pytest.mark.e2e
def test_undo_right_after_the_kill_settles_the_set_and_puts_every_file_back(repo, tmp_path, claude_double):
    twenty_files(repo)
    rename_everywhere(claude_double)
    killed_between_two_files(repo, tmp_path)
    undone = devagent("undo", str(repo))
    assert undone.returncode == 0, undone.stderr
    assert "devagent stopped while applying" in undone.stdout
    assert f"Undone: {FILES} files:" in undone.stdout
    assert texts(repo) == ORIGINALS
    assert strays(repo) == []


def test_a_file_changed_after_the_kill_rolls_the_set_back_and_keeps_the_change(repo, tmp_path, claude_double):
    twenty_files(repo)
    rename_everywhere(claude_double)
    killed_between_two_files(repo, tmp_path)
    (repo / "m05.py").write_text("# mine\n")  # the user went on working before devagent started again
    undone, said = undo_last(repo)
    assert "m05.py changed since, so it was rolled back instead" in said
    assert not undone and said.endswith("There is no applied change of the agent's to undo.")
    assert [t for n, t in enumerate(texts(repo)) if n != 5] == [t for n, t in enumerate(ORIGINALS) if n != 5]
    assert (repo / "m05.py").read_text() == "# mine\n"
    assert strays(repo) == []


# --- a journal entry that cannot be read -------------------------------------------------------


def test_undo_refuses_when_the_newest_entry_cannot_be_read_and_names_it(repo, claude_double):
    from agent.loop.session import Session
    from agent.settings.config import AgentConfig

    session = Session(repo, AgentConfig(memory_mode="none", code_writes="auto"))
    # two turns, two entries: the first changes app.py, the second makes NOTES.md
    for call in ({"command": "str_replace", "path": "app.py", "old_str": "end", "new_str": "first"},
                 {"command": "create", "path": "NOTES.md", "file_text": "second\n"}):
        claude_double.add(tool_use(EDITOR_NAME, call))
        claude_double.add("Done.")
        session.send("Change it.", lambda e: None)
    entries = sorted(journal_dir(repo).glob("*.json"), key=lambda p: p.stat().st_mtime)
    assert [json.loads(p.read_text())["files"][0]["path"] for p in entries] == ["app.py", "NOTES.md"]
    newest = entries[-1]
    newest.write_text(newest.read_text()[:40])  # cut short, as by a full disk
    undone, said = undo_last(repo)
    assert not undone
    assert said.startswith(f"Not undone: the newest change record, {newest}, cannot be read (")
    # the older turn was not undone in its place
    assert (repo / "app.py").read_text() == "first\n" and (repo / "NOTES.md").read_text() == "second\n"
    assert [c.state for c in history(repo)] == ["applied"]
