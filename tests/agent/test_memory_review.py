"""memory_writes = review and off, end to end: the real SDK talks to the Claude double, the
memory tool holds or refuses, the user decides, and the next turn hears about it."""

from __future__ import annotations

import argparse
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from agent.loop.session import Session
from agent.settings.config import AgentConfig
from memory.pending import PendingChanges
from memory.store import MemoryStore
from tests.agent.sessions import session as new_session
from tests.agent.toolkit import EchoTool
from tests.double.server import reply, tool_use

FRIDAY = datetime(2026, 11, 6, 17, 30, tzinfo=UTC)
NOTE = "---\nname: core\ntype: project\ndescription: which project matters\n---\nThe Core project is the one the user cares about.\n"


def session(repo: Path, writes: str) -> Session:
    return new_session(repo, tools=[EchoTool()], now=FRIDAY, memory_mode="preloaded", memory_writes=writes)


def create(path: str = "/memories/core.md", body: str = NOTE) -> dict:
    return tool_use("memory", {"command": "create", "path": path, "file_text": body})


def turn(s: Session, said: str) -> None:
    s.send(said, lambda e: None)


def test_review_holds_the_write_and_tells_the_model(repo, claude_double):
    claude_double.add(create())
    claude_double.add("Noted; it waits for you.")
    s = session(repo, "review")
    turn(s, "The core project is the one I care about.")
    result = claude_double.messages_requests()[1].tool_results()[0]
    assert not result.get("is_error")
    assert result["content"].startswith("Held for review, not in memory yet: create /memories/core.md")
    assert "wait for the user's review" in claude_double.messages_requests()[0].system_text()
    store = MemoryStore.for_repository(repo)
    assert store.memories() == []
    held = PendingChanges(store).list()
    assert [c.summary for c in held] == ["create /memories/core.md"] and held[0].after == NOTE
    # The pending folder is hidden: the model's view does not list it.
    listing, _ = store.run({"command": "view", "path": "/memories"})
    assert ".pending" not in listing


def test_accepting_applies_it_through_the_store_and_the_next_turn_hears(repo, claude_double):
    claude_double.add(create())
    claude_double.add("Held.")
    claude_double.add("Thanks.")
    s = session(repo, "review")
    turn(s, "Remember the core project.")
    store = MemoryStore.for_repository(repo)
    pending = PendingChanges(store)
    message, refused = pending.accept(pending.list()[0].id)
    assert (message, refused) == ("Accepted: create /memories/core.md", False)
    assert store.read("/memories/core.md") == NOTE
    turn(s, "Anything else?")
    said = claude_double.messages_requests()[-1].last_user_text()
    assert "Memory review since your last turn: the user accepted create /memories/core.md." in said
    assert pending.list() == [] and pending.take_news() is None


def test_a_rejection_reaches_the_model_once_in_one_line(repo, claude_double):
    claude_double.add(create())
    claude_double.add("Held.")
    claude_double.add("Understood.")
    claude_double.add("Fine.")
    s = session(repo, "review")
    turn(s, "Remember the core project.")
    store = MemoryStore.for_repository(repo)
    pending = PendingChanges(store)
    assert pending.reject(pending.list()[0].id) == ("Rejected: create /memories/core.md", False)
    turn(s, "Next question.")
    blocks = claude_double.messages_requests()[-1].messages[-1]["content"]
    news = [b["text"] for b in blocks if b["type"] == "text" and b["text"].startswith("Memory review")]
    assert news == ["Memory review since your last turn: the user rejected create /memories/core.md."]
    assert store.memories() == []
    turn(s, "And another.")
    assert "Memory review" not in claude_double.messages_requests()[-1].last_user_text()


def test_a_file_changed_since_is_a_conflict_not_an_overwrite(repo, claude_double):
    store = MemoryStore.for_repository(repo)
    store.run({"command": "create", "path": "/memories/core.md", "file_text": NOTE})
    claude_double.add(tool_use("memory", {"command": "str_replace", "path": "/memories/core.md", "old_str": "Core", "new_str": "Cli"}))
    claude_double.add("Held.")
    turn(session(repo, "review"), "Actually the CLI matters.")
    pending = PendingChanges(store)
    change = pending.list()[0]
    assert "-The Core project" in change.diff() and "+The Cli project" in change.diff()
    # Meanwhile the user edits the file in the pane.
    edited = NOTE.replace("cares about", "cares about most")
    assert store.save("/memories/core.md", edited, expected=NOTE) == ("Saved /memories/core.md", False)
    message, refused = pending.accept(change.id)
    assert refused and "changed since this change was proposed" in message
    assert store.read("/memories/core.md") == edited
    assert [c.id for c in pending.conflicts()] == [change.id] and pending.list() == []


def test_pending_changes_survive_a_restart(repo, claude_double):
    claude_double.add(create())
    claude_double.add("Held.")
    turn(session(repo, "review"), "Remember the core project.")
    # A new process: nothing in memory is shared with the first one.
    script = (
        "import sys; from memory.store import MemoryStore; from memory.pending import PendingChanges;"
        "p = PendingChanges(MemoryStore.for_repository(sys.argv[1]));"
        "print([c.summary for c in p.list()]); print(p.accept(p.list()[0].id))"
    )
    done = subprocess.run([sys.executable, "-c", script, str(repo)], capture_output=True, text=True, check=True, cwd=Path(__file__).parents[2])
    assert done.stdout.splitlines() == ["['create /memories/core.md']", "('Accepted: create /memories/core.md', False)"]
    assert MemoryStore.for_repository(repo).read("/memories/core.md") == NOTE


def test_a_second_write_to_a_held_file_folds_into_it(repo, claude_double):
    claude_double.add(reply(create(), tool_use("memory", {"command": "str_replace", "path": "/memories/core.md", "old_str": "Core", "new_str": "Core (src/Core)"})))
    claude_double.add("Held.")
    turn(session(repo, "review"), "Remember the core project.")
    results = claude_double.messages_requests()[1].tool_results()
    assert [r["content"].split(":")[0] for r in results] == ["Held for review, not in memory yet"] * 2
    pending = PendingChanges(MemoryStore.for_repository(repo)).list()
    assert len(pending) == 1 and pending[0].before is None and "Core (src/Core)" in pending[0].after


def test_review_still_refuses_what_the_store_refuses(repo, claude_double):
    key = "sk-ant-" + "api03-" + "a1B2c3D4e5F6g7H8i9J0kLmNoPqRsTuVwXyZ" * 2
    claude_double.add(create(body=f"key {key}\n"))
    claude_double.add("Sorry.")
    turn(session(repo, "review"), "Remember my key.")
    result = claude_double.messages_requests()[1].tool_results()[0]
    assert result["is_error"] and "credential" in result["content"]
    assert PendingChanges(MemoryStore.for_repository(repo)).list() == []


def test_off_makes_the_memory_tool_read_only(repo, claude_double):
    store = MemoryStore.for_repository(repo)
    store.run({"command": "create", "path": "/memories/core.md", "file_text": NOTE})
    claude_double.add(reply(create("/memories/new.md"), tool_use("memory", {"command": "view", "path": "/memories/core.md"})))
    claude_double.add("I cannot save that.")
    s = session(repo, "off")
    turn(s, "Remember this.")
    first = claude_double.messages_requests()[0]
    assert "read-only in this session by the user's choice" in first.system_text()
    refused, viewed = claude_double.messages_requests()[1].tool_results()
    assert refused["is_error"] and "memory is read-only for this session by the user's choice" in refused["content"]
    assert "The Core project" in viewed["content"] and not viewed.get("is_error")
    assert [m.path for m in store.memories()] == ["/memories/core.md"]
    assert not (Path(store.directory) / ".pending").exists()


def test_auto_applies_as_before(repo, claude_double):
    claude_double.add(create())
    claude_double.add("Saved.")
    turn(session(repo, "auto"), "Remember the core project.")
    assert claude_double.messages_requests()[1].tool_results()[0]["content"] == "File created successfully at: /memories/core.md"
    assert MemoryStore.for_repository(repo).read("/memories/core.md") == NOTE


def test_memory_writes_comes_from_the_file_the_environment_and_the_flag(user_dirs, monkeypatch):
    (user_dirs["config"] / "devagent").mkdir()
    (user_dirs["config"] / "devagent" / "config.toml").write_text('memory_writes = "review"\nmemory_aging_days = 14\n')
    monkeypatch.delenv("DEVAGENT_MEMORY_WRITES", raising=False)
    assert AgentConfig.from_env_and_args().memory_writes == "review"
    assert AgentConfig.from_env_and_args().memory_aging_days == 14
    monkeypatch.setenv("DEVAGENT_MEMORY_WRITES", "off")
    assert AgentConfig.from_env_and_args().memory_writes == "off"
    args = argparse.Namespace(model=None, effort=None, memory=None, memory_writes="auto")
    assert AgentConfig.from_env_and_args(args).memory_writes == "auto"
    monkeypatch.setenv("DEVAGENT_MEMORY_WRITES", "sometimes")
    assert AgentConfig.from_env_and_args().memory_writes == "review"  # a bad value is ignored


def test_the_flag_is_on_the_command_line():
    from tui.cli import app_parser

    assert app_parser().parse_args(["--memory-writes", "review"]).memory_writes == "review"
    with pytest.raises(SystemExit):
        app_parser().parse_args(["--memory-writes", "maybe"])


def test_a_new_session_hears_of_decisions_since_the_last_session_not_since_a_turn_it_never_had(repo, claude_double):
    claude_double.add(create())
    claude_double.add("Held.")
    turn(session(repo, "review"), "Remember the core project.")
    pending = PendingChanges(MemoryStore.for_repository(repo))
    pending.accept(pending.list()[0].id)  # in the pane, after that session ended

    claude_double.add("Good morning.")
    fresh = session(repo, "review")
    turn(fresh, "Good morning.")
    said = claude_double.messages_requests()[-1].last_user_text()
    assert "Memory review since the last session: the user accepted create /memories/core.md." in said
    assert "since your last turn" not in said
    # Within the session, a decision follows the model's last turn.
    claude_double.add(create("/memories/cli.md", NOTE.replace("core", "cli")))
    claude_double.add("Held.")
    turn(fresh, "And remember the CLI.")
    pending.reject(pending.list()[0].id)
    claude_double.add("Fine.")
    turn(fresh, "Next.")
    assert "Memory review since your last turn: the user rejected create /memories/cli.md." in (
        claude_double.messages_requests()[-1].last_user_text())
