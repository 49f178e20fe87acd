"""Two sessions on one repository, crashes mid-write, and the folder deleted under us."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from memory.store import MemoryStore
from tests.memory.helpers import snapshot

ROOT = Path(__file__).resolve().parents[2]
EDITS = 500


def worker(*args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "tests.memory.workers", *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


@pytest.mark.slow
def test_two_processes_lose_no_update(tmp_path):
    folder = tmp_path / "memories"
    store = MemoryStore(folder, max_file_chars=10**7, max_total_chars=10**8)
    assert store.run({"command": "create", "path": "/memories/shared.md", "file_text": ""}) == (
        "File created successfully at: /memories/shared.md",
        False,
    )
    procs = [worker("inserts", str(folder), name, str(EDITS)) for name in ("left", "right")]
    for proc in procs:
        out, err = proc.communicate(timeout=240)
        assert proc.returncode == 0, err
    lines = (folder / "shared.md").read_text().splitlines()
    assert len(lines) == 2 * EDITS
    assert set(lines) == {f"{name}-{i}" for name in ("left", "right") for i in range(EDITS)}
    # Each process's own edits stay in order: every insert saw the previous one.
    for name in ("left", "right"):
        mine = [line for line in lines if line.startswith(name)]
        assert mine == [f"{name}-{i}" for i in reversed(range(EDITS))]
    assert [p.name for p in folder.iterdir() if p.name.startswith(".tmp-")] == []


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork to kill a writer mid-write cheaply")
def test_writer_killed_mid_write_leaves_old_or_new_text(tmp_path):
    folder = tmp_path / "memories"
    old = "old text\n" + "o" * 200_000
    new = "new text\n" + "n" * 300_000
    big = dict(max_file_chars=10**7, max_total_chars=10**8)
    MemoryStore(folder, **big).run({"command": "create", "path": "/memories/note.md", "file_text": old})
    rng = random.Random(7)
    outcomes = set()
    for _ in range(40):
        pid = os.fork()
        if pid == 0:  # the writer: rewrite the file back and forth until killed
            try:
                store = MemoryStore(folder, **big)
                while True:
                    for text in (new, old):
                        store.run({"command": "create", "path": "/memories/note.md", "file_text": text})
            finally:
                os._exit(0)
        time.sleep(rng.uniform(0.002, 0.12))
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        content = (folder / "note.md").read_text()
        assert content in (old, new), f"torn file: {len(content)} characters"
        outcomes.add(content[:8])
    assert outcomes == {"old text", "new text"}, "the kills never landed between two different writes"
    # The lock died with the writer, and a new session sweeps the temp files it left.
    store = MemoryStore(folder, **big, lock_timeout=1)
    assert [p.name for p in folder.iterdir() if p.name.startswith(".tmp-")] == []
    assert store.run({"command": "view", "path": "/memories"})[1] is False


def test_orphaned_temp_files_are_swept_when_a_store_opens(tmp_path):
    folder = tmp_path / "memories"
    (folder / "sub").mkdir(parents=True)
    orphans = [folder / ".tmp-999999-deadbeef00112233", folder / "sub" / ".tmp-4242-0a1b2c3d-aaaa-bbbb"]
    for orphan in orphans:
        orphan.write_text("half a write")
    keep = [folder / ".tmp-notes", folder / "note.md", folder / ".other"]
    for path in keep:
        path.write_text("keep")
    MemoryStore(folder)
    assert not any(o.exists() for o in orphans)
    assert all(k.exists() for k in keep)


@pytest.mark.slow
def test_live_sessions_write_in_flight_is_not_swept(tmp_path):
    folder = tmp_path / "memories"
    folder.mkdir()
    holder = worker("hold", str(folder), "1.5")
    try:
        assert holder.stdout.readline().strip() == "held"
        in_flight = [p for p in folder.iterdir() if p.name.startswith(".tmp-")]
        assert len(in_flight) == 1
        store = MemoryStore(folder, lock_timeout=5)
        assert in_flight[0].exists(), "a live session's temp file was deleted"
        # The first command waits for the lock, and the holder removes its own file.
        assert store.run({"command": "create", "path": "/memories/a.md", "file_text": "x"})[1] is False
        assert not in_flight[0].exists()
    finally:
        holder.wait(timeout=30)


@pytest.mark.slow
def test_busy_lock_gives_an_error_result_after_a_bounded_wait(tmp_path):
    folder = tmp_path / "memories"
    folder.mkdir()
    holder = worker("hold", str(folder), "3")
    try:
        assert holder.stdout.readline().strip() == "held"
        store = MemoryStore(folder, lock_timeout=0.3)
        started = time.monotonic()
        text, is_error = store.run({"command": "create", "path": "/memories/a.md", "file_text": "x"})
        waited = time.monotonic() - started
        assert is_error and "memory is busy" in text.lower()
        assert 0.25 <= waited < 2.5
        message, failed = store.save("/memories/a.md", "x")
        assert failed and "busy" in message
        assert not (folder / "a.md").exists()
    finally:
        holder.kill()
        holder.wait(timeout=30)


def test_folder_deleted_mid_session_starts_an_empty_store(tmp_path):
    import shutil

    folder = tmp_path / "data" / "memories" / "repo-12345678"
    store = MemoryStore(folder)
    store.run({"command": "create", "path": "/memories/a.md", "file_text": "remember"})
    shutil.rmtree(tmp_path / "data")
    text, is_error = store.run({"command": "view", "path": "/memories"})
    assert not is_error
    assert text.splitlines()[1:] == [text.splitlines()[1]]  # only the folder's own line
    assert store.memories() == []
    assert store.run({"command": "create", "path": "/memories/b.md", "file_text": "fresh"})[1] is False
    assert (folder / "b.md").read_text() == "fresh"


def test_reads_without_a_folder_do_not_fail(tmp_path):
    import shutil

    folder = tmp_path / "memories"
    store = MemoryStore(folder)
    shutil.rmtree(folder)
    assert store.memories() == []
    assert snapshot(store) == ""
    assert store.index_text() == ""
    assert store.total_chars() == 0
    assert store.index_problems() == []
