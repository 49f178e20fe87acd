"""--resume without an id continues the session used last, not the one that began last."""

from __future__ import annotations

import os
import time
from datetime import UTC, datetime, timedelta

from agent.conversation import saved_sessions as sessions
from agent.loop.resume import open_saved
from agent.loop.session import Session
from agent.settings.config import AgentConfig
from tests.double.server import reply, text
from tests.repos import git_repo

MONDAY = datetime(2026, 11, 9, 9, 0, tzinfo=UTC)


def test_resume_picks_the_session_used_last(claude_double, tmp_path):
    repo = git_repo(tmp_path / "shop")
    config = AgentConfig(memory_mode="none")
    claude_double.add(reply(text("A.")), reply(text("B.")), reply(text("A again.")))
    older = Session(repo, config, now=MONDAY)
    older.send("the older one", lambda e: None)
    newer = Session(repo, config, now=MONDAY + timedelta(hours=1))
    newer.send("the newer one", lambda e: None)
    stamp = time.time() - 3600
    os.utime(newer.transcript.path, (stamp, stamp))  # used an hour ago
    resumed, _ = open_saved(repo, config, sessions.session_id(older.transcript.path), now=MONDAY + timedelta(hours=2))
    resumed.send("back to the older one", lambda e: None)
    path, problem = sessions.find(repo, None)
    assert problem is None and path == older.transcript.path
