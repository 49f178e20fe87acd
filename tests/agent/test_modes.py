"""Each memory mode over two sessions: what the second session's first request holds.

A Friday session talks to the double; a Monday session starts in the same repository, and
the test reads what Monday really sent.
"""

from __future__ import annotations

import json
import os
import stat
from datetime import UTC, datetime
from pathlib import Path

import pytest

from agent.conversation.replay import date_label
from agent.conversation.transcripts import saved_sessions, transcripts_dir
from agent.loop.session import Session
from memory.store import MemoryStore
from tests.agent.sessions import session as new_session
from tests.agent.toolkit import EchoTool
from tests.double.server import error, redacted_thinking, reply, text, thinking, tool_use

FRIDAY = datetime(2026, 11, 6, 17, 30, tzinfo=UTC)
MONDAY = datetime(2026, 11, 9, 9, 0, tzinfo=UTC)
NOTE = "---\nname: core\ntype: user\ndescription: which project matters\n---\nThe Core project is the one the user cares about. Finish the rename in src/Review.cs:40.\n"


@pytest.fixture
def repo(make_repo):
    return make_repo(files={"src/Review.cs": "class Review {}\n"})


def session(repo: Path, mode: str, when: datetime, **config) -> Session:
    return new_session(repo, tools=[EchoTool()], now=when, memory_mode=mode, **config)


def friday(repo: Path, double, mode: str, turns: list[str], **config) -> Session:
    s = session(repo, mode, FRIDAY, **config)
    for t in turns:
        s.send(t, lambda e: None)
    s.close()
    return s


def first_monday_request(repo: Path, double, mode: str, **config):
    before = len(double.messages_requests())
    double.add("Good morning.")
    s = session(repo, mode, MONDAY, **config)
    s.send("What was I doing on Friday?", lambda e: None)
    return double.messages_requests()[before], s


def script_friday(double):
    # turn 1: thinking, a tool call, an answer; turns 2 and 3: thinking (redacted too) and an answer
    double.add(thinking("check first", "sig-1"), tool_use("echo", {"text": "build"}, id="t1"))
    double.add(text("The build is red."))
    double.add(thinking("noted", "sig-2"), redacted_thinking("opaque"), text("Core it is."))
    double.add(thinking("a plan", "sig-3"), text("Finish the rename Monday, got it."))


FRIDAY_TURNS = ["Why is the build red?", "Core is the one I care about.", "I'll finish the rename on Monday."]


def user_texts(messages) -> list[str]:
    out = []
    for m in messages:
        if m["role"] == "user" and isinstance(m["content"], list):
            out.extend(b["text"] for b in m["content"] if b.get("type") == "text")
    return out


def without_cache(messages):
    return [{**m, "content": [{k: v for k, v in b.items() if k != "cache_control"} for b in m["content"]]} for m in messages]


def test_none_replays_nothing_and_has_no_memory_tool(repo, claude_double):
    script_friday(claude_double)
    friday(repo, claude_double, "none", FRIDAY_TURNS)
    first, _ = first_monday_request(repo, claude_double, "none")
    assert len(first.messages) == 1
    assert user_texts(first.messages) == ["Today is Monday, 09 November 2026 (2026-11-09).", "What was I doing on Friday?"]
    assert "memory" not in first.tool_names()
    assert len(first.body["system"]) == 1 and "/memories" not in first.system_text()


def test_history_replays_the_whole_conversation_exactly(repo, claude_double):
    script_friday(claude_double)
    friday(repo, claude_double, "history", FRIDAY_TURNS)
    friday_last = claude_double.messages_requests()[-1]
    first, monday = first_monday_request(repo, claude_double, "history")
    replayed = first.messages[:-1]
    # Friday's conversation, byte for byte, thinking signatures included, then Monday.
    friday_full = without_cache(friday_last.messages) + [{"role": "assistant", "content": [
        {"type": "thinking", "thinking": "a plan", "signature": "sig-3"},
        {"type": "text", "text": "Finish the rename Monday, got it."}]}]
    assert without_cache(replayed) == friday_full
    assert "Friday, 06 November 2026" in first.first_user_text()
    assert user_texts(first.messages[-1:]) == ["Today is Monday, 09 November 2026 (2026-11-09).", "What was I doing on Friday?"]
    assert "memory" not in first.tool_names()

    # A third session carries both earlier ones: history only grows.
    monday.close()
    claude_double.add("Still here.")
    third = session(repo, "history", datetime(2026, 11, 10, 9, tzinfo=UTC))
    third.send("And Tuesday?", lambda e: None)
    texts = user_texts(claude_double.messages_requests()[-1].messages)
    assert texts.count("What was I doing on Friday?") == 1 and "Why is the build red?" in texts


def test_window_keeps_the_last_turns_without_thinking_and_labels_their_date(repo, claude_double):
    script_friday(claude_double)
    friday(repo, claude_double, "window", FRIDAY_TURNS)
    first, _ = first_monday_request(repo, claude_double, "window", window_turns=2)
    messages = first.messages
    assert [m["role"] for m in messages] == ["user", "assistant", "user", "assistant", "user"]
    assert messages[0]["content"][0]["text"] == date_label(FRIDAY) == "(This conversation is from an earlier session, on Friday, 06 November 2026.)"
    assert messages[0]["content"][1]["text"] == "Core is the one I care about."
    for m in messages:
        assert all(b["type"] not in ("thinking", "redacted_thinking") for b in m["content"])
    assert messages[3]["content"] == [{"type": "text", "text": "Finish the rename Monday, got it."}]
    assert "Why is the build red?" not in user_texts(messages)
    assert "2026-11-09" in user_texts(messages[-1:])[0]


def test_window_keeps_tool_calls_with_their_results(repo, claude_double):
    script_friday(claude_double)
    friday(repo, claude_double, "window", FRIDAY_TURNS)
    first, _ = first_monday_request(repo, claude_double, "window", window_turns=3)
    messages = first.messages
    # The whole of Friday fits: its own date line follows the label.
    assert [b["text"] for b in messages[0]["content"]][1:] == ["Today is Friday, 06 November 2026 (2026-11-06).", "Why is the build red?"]
    assert messages[1]["content"] == [{"type": "tool_use", "id": "t1", "name": "echo", "input": {"text": "build"}}]
    assert messages[2]["content"][0]["tool_use_id"] == "t1"


def test_summary_writes_notes_at_the_end_and_the_next_session_starts_from_them(repo, claude_double):
    script_friday(claude_double)
    claude_double.add("- Core is the project that matters.\n- Finish the rename on Monday.")
    friday(repo, claude_double, "summary", FRIDAY_TURNS)
    last_turn, ask = claude_double.messages_requests()[-2:]
    assert not ask.stream, "the summary is one plain call"
    assert "notes for the next session" in ask.last_user_text()
    assert len(ask.messages) == 9  # the whole Friday conversation (8 messages), then the request
    # The session's own request with the ask at its end: the same system and tools (Friday's
    # thinking is bound to them), but the reply must be text, so a tool call cannot lose the notes.
    assert without_cache(ask.messages)[:7] == without_cache(last_turn.messages)
    for key in ("model", "system", "tools", "thinking", "output_config"):
        assert ask.body.get(key) == last_turn.body.get(key), key
    assert ask.body["tool_choice"] == {"type": "none"}

    first, _ = first_monday_request(repo, claude_double, "summary")
    assert len(first.messages) == 1
    assert "Finish the rename on Monday." in first.system_text()
    assert "Friday, 06 November 2026" in first.system_text()
    assert "memory" not in first.tool_names()


def test_summary_after_a_reply_cut_short_answers_its_tool_call_first(repo, claude_double):
    claude_double.add(reply(text("Let me"), tool_use("echo", {"text": "a"}, id="cut"), stop_reason="max_tokens"))
    claude_double.add("- Core matters.")
    friday(repo, claude_double, "summary", ["Why is the build red?"])
    ask = claude_double.messages_requests()[-1]
    # The cut-off call got its result when the turn was closed; the ask is a message of its own.
    results = [b for b in ask.messages[2]["content"] if b.get("type") == "tool_result"]
    assert [r["tool_use_id"] for r in results] == ["cut"] and results[0]["is_error"] is True
    assert ask.messages[3]["role"] == "assistant"
    assert "notes for the next session" in ask.last_user_text()
    assert ask.tool_results() == []
    first, _ = first_monday_request(repo, claude_double, "summary")
    assert "Core matters." in first.system_text()


def test_summary_with_no_turns_spends_no_call(repo, claude_double):
    s = session(repo, "summary", FRIDAY)
    s.close()
    assert claude_double.requests == []


def write_memory(repo: Path, double, mode: str):
    """Friday saves a memory through the tool, as the model would."""
    double.add(tool_use("memory", {"command": "create", "path": "/memories/core.md", "file_text": NOTE}, id="m1"))
    double.add(tool_use("memory", {"command": "create", "path": "/memories/MEMORY.md", "file_text": "- [core](core.md): which project matters\n"}, id="m2"))
    double.add("Saved.")
    friday(repo, double, mode, ["Remember that Core matters."])
    results = [r.tool_results() for r in double.messages_requests()[1:3]]
    assert all(not res[0].get("is_error") for res in results), results


def test_on_demand_has_the_tool_and_the_rules_but_preloads_nothing(repo, claude_double):
    write_memory(repo, claude_double, "on-demand")
    first, _ = first_monday_request(repo, claude_double, "on-demand")
    assert first.body["tools"][-1]["type"] == "memory_20250818" and first.tool_names()[-1] == "memory"
    assert first.body["tools"][-1]["cache_control"] == {"type": "ephemeral"}
    assert "check it against the repository" in first.system_text()
    assert "Core project is the one" not in first.system_text()
    assert len(first.body["system"]) == 1


def test_preloaded_puts_every_memory_with_its_age_and_evidence_in_the_prompt(repo, claude_double):
    write_memory(repo, claude_double, "preloaded")
    first, _ = first_monday_request(repo, claude_double, "preloaded")
    stable, memory = first.body["system"]
    assert "Before you repeat a claim from memory" in stable["text"]
    assert '<memory path="/memories/core.md" age=' in memory["text"]
    assert "The Core project is the one the user cares about." in memory["text"]
    assert '<memory path="/memories/MEMORY.md"' in memory["text"]
    # Friday's note cites src/Review.cs:40, and the file has one line: its evidence says so.
    assert "- /memories/core.md: src/Review.cs:40 changed (line 40 was past the end of the file when written)" in memory["text"]
    assert memory["cache_control"] == {"type": "ephemeral"}
    assert "memory" in first.tool_names()
    # The date stays out of the system prompt even with memories in it.
    assert "2026-11-09" not in first.system_text()


def test_preloaded_age_follows_the_session_clock(repo, claude_double):
    store = MemoryStore.for_repository(repo)
    store.run({"command": "create", "path": "/memories/plan.md", "file_text": "Rename Patch to Diff.\n"})
    three_days = datetime.fromtimestamp(os.stat(store.directory / "plan.md").st_mtime + 3 * 86400 + 60, tz=UTC)
    claude_double.add("ok")
    session(repo, "preloaded", three_days).send("hi", lambda e: None)
    assert 'age="3 days"' in claude_double.requests[-1].system_text()


def test_preloaded_with_no_memory_says_so(repo, claude_double):
    first, _ = first_monday_request(repo, claude_double, "preloaded")
    assert "empty" in first.body["system"][1]["text"]


def test_index_preloads_only_the_index(repo, claude_double):
    write_memory(repo, claude_double, "index")
    first, _ = first_monday_request(repo, claude_double, "index")
    context = first.body["system"][1]["text"]
    assert "- [core](core.md): which project matters" in context
    assert "The Core project is the one" not in context
    assert first.tool_names()[-1] == "memory"


def test_replay_ends_at_the_last_finished_turn(repo, claude_double):
    claude_double.add("First answer.")
    claude_double.add(error(400, "scripted failure"))
    friday(repo, claude_double, "history", ["one", "two"])
    first, _ = first_monday_request(repo, claude_double, "history")
    texts = user_texts(first.messages)
    assert "one" in texts and "two" not in texts
    # The refused turn left only its note, which closes as a turn of its own.
    assert [m["role"] for m in first.messages] == ["user", "assistant", "user", "assistant", "user"]
    assert any("refused by the API" in t for t in texts)


def test_transcripts_are_saved_readable_only_by_the_user(repo, claude_double):
    script_friday(claude_double)
    s = friday(repo, claude_double, "history", FRIDAY_TURNS)
    files = saved_sessions(repo)
    assert files == [s.transcript.path]
    assert stat.S_IMODE(files[0].stat().st_mode) == 0o600
    assert stat.S_IMODE(transcripts_dir(repo).stat().st_mode) == 0o700
    assert stat.S_IMODE(transcripts_dir(repo).parent.stat().st_mode) == 0o700
    records = [json.loads(line) for line in files[0].read_text().splitlines()]
    assert records[0]["type"] == "session" and records[0]["memory_mode"] == "history"
    assert [r["message"]["role"] for r in records[1:] if r["type"] == "message"] == ["user", "assistant", "user", "assistant", "user", "assistant", "user", "assistant"]
    assert [r["turn"] for r in records if r["type"] == "turn"] == sorted({r["turn"] for r in records if r["type"] == "message"})
    assert str(files[0]).startswith(os.environ["XDG_DATA_HOME"])
    # nothing was written into the repository
    assert sorted(p.name for p in repo.iterdir()) == [".git", "src"]


def test_a_window_of_a_window_keeps_one_label_with_the_oldest_date(repo, claude_double):
    script_friday(claude_double)
    friday(repo, claude_double, "window", FRIDAY_TURNS)
    claude_double.add("Morning.")
    monday = session(repo, "window", MONDAY, window_turns=3)
    monday.send("Hi", lambda e: None)
    monday.close()
    claude_double.add("Hello again.")
    session(repo, "window", datetime(2026, 11, 10, 9, tzinfo=UTC), window_turns=4).send("Tuesday", lambda e: None)
    first = claude_double.messages_requests()[-1].messages[0]["content"]
    labels = [b["text"] for b in first if b["text"].startswith("(This conversation")]
    assert labels == [date_label(FRIDAY)]
