"""A session over a memory folder made hostile by hand still talks to Claude."""

from __future__ import annotations

import os
from datetime import UTC, datetime

from agent.events import AgentError
from agent.loop.session import Session
from agent.settings.config import AgentConfig
from memory.location import memory_dir_for
from tests.agent.toolkit import EchoTool
from tests.repos import git_repo

MONDAY = datetime(2026, 11, 9, 9, 0, tzinfo=UTC)


def test_a_memory_file_name_that_is_not_utf8_does_not_stop_a_preloaded_turn(tmp_path, claude_double):
    repo = git_repo(tmp_path / "app")
    folder = memory_dir_for(repo)
    folder.mkdir(parents=True)
    (folder / os.fsdecode(b"caf\xe9.md")).write_text("an old note\n")
    (folder / "kept.md").write_text("The Core project matters.\n")
    claude_double.add("Hello.")
    events: list = []
    Session(repo, AgentConfig(memory_mode="preloaded"), tools=[EchoTool()], now=MONDAY).send("hi", events.append)
    assert [e.message for e in events if isinstance(e, AgentError)] == []
    [request] = claude_double.messages_requests()
    system = request.system_text()
    assert "The Core project matters." in system and "caf\\xe9.md" in system and "not UTF-8" in system
