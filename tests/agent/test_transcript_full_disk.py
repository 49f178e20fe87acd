"""A transcript on a full disk: never an empty file, never a torn record."""

from __future__ import annotations

import pytest

from tests.memory.capped import FILL_DISK, run_on_a_small_disk

FULL = """
import os
from datetime import UTC, datetime
from pathlib import Path
from agent.conversation.transcripts import Transcript, transcripts_dir
disk = Path({disk!r})
repo = Path({repo!r})
folder = transcripts_dir(repo)
folder.mkdir(parents=True)
""" + FILL_DISK + """t = Transcript(repo, started=datetime(2026, 11, 9, tzinfo=UTC), model="m", memory_mode="none")
try:
    t.add_message({{"role": "user", "content": [{{"type": "text", "text": "x" * 20000}}]}}, turn=1, time=datetime.now(UTC))
except OSError as error:
    print("raised", error.errno)
print("problem", t.problem)
print("files", sorted(p.name for p in folder.iterdir()))
"""


def test_a_full_disk_leaves_no_empty_transcript_and_says_why(tmp_path):
    disk = tmp_path / "disk"
    disk.mkdir()
    repo = tmp_path / "app"
    repo.mkdir()
    done = run_on_a_small_disk(FULL.format(disk=str(disk), repo=str(repo)), disk)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "raised 28" in done.stdout
    assert "files []" in done.stdout, done.stdout  # no 0-byte transcript
    assert "could not be saved (No space left on device)" in done.stdout


SESSION = """
import os
from datetime import UTC, datetime
from pathlib import Path
from agent.settings.config import AgentConfig
from agent.events import Notice
from agent.loop.session import Session
disk, repo = Path({disk!r}), Path({repo!r})
session = Session(repo, AgentConfig(memory_mode="none"), tools=[], now=datetime(2026, 11, 9, tzinfo=UTC))
""" + FILL_DISK + """for text in ("hi", "again"):
    events = []
    session.send(text, events.append)
    print("notices", [e.message for e in events if isinstance(e, Notice)])
    print("reply", events[-1].text)
"""


@pytest.mark.slow
def test_a_session_on_a_full_disk_says_once_that_its_transcript_is_not_saved(tmp_path, claude_double):
    disk = tmp_path / "disk"
    disk.mkdir()
    repo = tmp_path / "app"
    repo.mkdir()
    claude_double.add("Hello.", "Still here.")
    done = run_on_a_small_disk(SESSION.format(disk=str(disk), repo=str(repo)), disk)
    assert done.returncode == 0, done.stdout + done.stderr
    first, reply, second, again = done.stdout.splitlines()
    assert "could not be saved (No space left on device)" in first and "free space" in first
    assert reply == "reply Hello." and second == "notices []" and again == "reply Still here."
