"""What a session is told about its memory: evidence after real commits, age, aging order."""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from agent.loop.session import Session
from agent.settings.config import AgentConfig
from memory.store import MemoryStore
from tests.agent.toolkit import EchoTool
from tests.marked_text import without_ids
from tests.repos import git

MONDAY = datetime(2026, 11, 9, 9, 0, tzinfo=UTC)
CALL_SITE = "src/Review/Orchestrator.cs"


def source(call: str) -> str:
    return "class Orchestrator\n{\n    void Run()\n    {\n        Summarize(" + call + ");\n    }\n}\n"


@pytest.fixture
def repo(make_repo) -> Path:
    return make_repo(files={CALL_SITE: source("file.Patch"), "README.md": "# shop\n"}, commit=True)


def note(name: str, body: str, extra: str = "") -> str:
    return f"---\nname: {name}\ntype: project\ndescription: about {name}\n{extra}---\n{body}\n"


def age(store: MemoryStore, relative: str, days: float) -> None:
    stamp = (MONDAY - timedelta(days=days)).timestamp()
    os.utime(Path(store.directory) / relative, (stamp, stamp))


def day(days_before: float) -> str:
    return (MONDAY - timedelta(days=days_before)).astimezone().date().isoformat()


def first_system(repo: Path, double, mode: str, **config) -> str:
    double.add("Morning.")
    Session(repo, AgentConfig(memory_mode=mode, **config), tools=[EchoTool()], now=MONDAY).send("hi", lambda e: None)
    return double.messages_requests()[-1].body["system"][1]["text"]


def write(store: MemoryStore, relative: str, text: str, days: float) -> None:
    assert store.run({"command": "create", "path": f"/memories/{relative}", "file_text": text})[1] is False
    age(store, relative, days)


def test_the_fix_over_the_weekend_shows_as_changed_evidence(repo, claude_double):
    store = MemoryStore.for_repository(repo)
    write(store, "rename.md", note("rename", f"The call site {CALL_SITE}:5 still uses file.Patch."), 3)
    write(store, "readme.md", note("readme", "README.md:1 names the shop."), 3)
    friday = git(repo, "rev-parse", "--short=7", "HEAD").strip()
    system = first_system(repo, claude_double, "preloaded")
    assert f"- /memories/rename.md: {CALL_SITE}:5 intact" in system

    (repo / CALL_SITE).write_text(source("file.Diff"))
    git(repo, "commit", "-qam", "Finish the rename")
    system = first_system(repo, claude_double, "preloaded")
    evidence = system[system.index("Evidence, checked"):]
    lines = [line for line in evidence.splitlines() if line.startswith("- ")]
    # Changed citations come first.
    assert lines == [f"- /memories/rename.md: {CALL_SITE}:5 changed since {friday}", "- /memories/readme.md: README.md:1 intact"]


def test_moved_citations_say_where(repo, claude_double):
    store = MemoryStore.for_repository(repo)
    write(store, "rename.md", note("rename", f"The call site {CALL_SITE}:5 still uses file.Patch."), 1)
    (repo / CALL_SITE).write_text("using System;\n\n" + source("file.Patch"))
    git(repo, "commit", "-qam", "usings")
    assert f"- /memories/rename.md: {CALL_SITE}:5 moved to {CALL_SITE}:7" in first_system(repo, claude_double, "index")


def test_aging_memories_come_last_with_their_age(repo, claude_double):
    store = MemoryStore.for_repository(repo)
    write(store, "a-old.md", note("old", "Reviews happen on Tuesdays."), 45)
    write(store, "b-fresh.md", note("fresh", "The Core project matters."), 2)
    write(store, "c-verified.md", note("verified", "CS1591 is noise.", "verified: 2026-11-08\n"), 90)
    system = first_system(repo, claude_double, "preloaded")
    order = [system.index(f'path="/memories/{name}"') for name in ("b-fresh.md", "c-verified.md", "a-old.md")]
    assert order == sorted(order)
    # Each with the date it was written beside its age (a local date, as the user reads one).
    assert f'<memory path="/memories/a-old.md" age="6 weeks" written="{day(45)}" aging="true">' in without_ids(system)
    assert f'<memory path="/memories/b-fresh.md" age="2 days" written="{day(2)}">' in without_ids(system)
    # Ninety days since written, but verified the day before: its age counts from the verification.
    verified = without_ids(system)[without_ids(system).index('path="/memories/c-verified.md"'):].split(">", 1)[0]
    assert verified.endswith('verified="2026-11-08"') and "hour" in verified and "aging" not in verified
    assert 'neither written nor verified for 30 days or more' in system


def test_aging_days_comes_from_the_config(repo, claude_double):
    store = MemoryStore.for_repository(repo)
    write(store, "b-fresh.md", note("fresh", "The Core project matters."), 10)
    assert 'aging="true"' not in first_system(repo, claude_double, "preloaded")
    assert 'aging="true"' in first_system(repo, claude_double, "preloaded", memory_aging_days=7)


def test_index_mode_lists_aging_memories(repo, claude_double):
    store = MemoryStore.for_repository(repo)
    write(store, "old.md", note("old", "Reviews happen on Tuesdays."), 45)
    write(store, "MEMORY.md", "- [old](old.md) — reviews\n", 1)
    system = first_system(repo, claude_double, "index")
    assert f"Aging, neither written nor verified for 30 days or more: /memories/old.md (6 weeks, since {day(45)})." in system
    assert "Reviews happen on Tuesdays" not in system


def test_a_memory_written_by_an_editor_is_not_fingerprinted(repo, claude_double):
    store = MemoryStore.for_repository(repo)
    (Path(store.directory) / "hand.md").write_text(note("hand", f"See {CALL_SITE}:5 and src/Gone.cs."))
    system = first_system(repo, claude_double, "preloaded")
    assert f"- /memories/hand.md: src/Gone.cs gone; {CALL_SITE}:5 not fingerprinted" in system


def test_an_index_in_the_models_own_words_is_not_called_missing(repo, claude_double):
    store = MemoryStore.for_repository(repo)
    write(store, "project-focus.md", note("project-focus", "The core project is the one that matters."), 1)
    write(store, "MEMORY.md", "- project-focus.md: which project matters\n", 1)
    system = first_system(repo, claude_double, "preloaded")
    assert "- project-focus.md: which project matters" in system
    assert "has no line" not in system and "Index check" not in system
