"""The flows a user meets, each a request the real Messages API accepts (issue 22).

One test per row of the issue's table and per risk it names, run against the double, which
enforces the documented rules (tests/double/rules.py lists them with their pages).
"""

from __future__ import annotations

import io
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from agent.events import AgentError, Notice, TextDelta
from agent.loop.faults import OUTPUT_LIMIT
from agent.loop.resume import open_saved
from agent.loop.session import Session
from agent.settings.config import AgentConfig, config_file
from tests.double import rules as double_rules
from tests.double.server import refusal, reply, text, thinking, tool_use

DECLINED = "Claude declined to answer that."
WINDOW_FULL = "The conversation filled Claude's context window"
FRIDAY = datetime(2026, 11, 6, 17, 0, tzinfo=UTC)
MONDAY = datetime(2026, 11, 9, 9, 0, tzinfo=UTC)


@pytest.fixture
def repo(make_repo) -> Path:
    return make_repo(files={"notes.txt": "The shop sells shoes.\n"})


def run(s: Session, words: str) -> list:
    events: list = []
    s.send(words, events.append)
    return events


def errors(events: list) -> list[str]:
    return [e.message for e in events if isinstance(e, AgentError)]


def thinking_blocks(messages: list[dict]) -> list[dict]:
    return [b for m in messages if isinstance(m["content"], list) for b in m["content"] if b.get("type") in ("thinking", "redacted_thinking")]


def friday_with_thinking(repo: Path, double, mode: str, **config) -> Session:
    double.add(reply(thinking("Look at the notes.", "sig-f1"), tool_use("read_file", {"path": "notes.txt"}, id="toolu_f1")))
    double.add(reply(thinking("Shoes.", "sig-f2"), text("It sells shoes.")))
    s = Session(repo, AgentConfig(memory_mode=mode, **config), now=FRIDAY)
    assert errors(run(s, "What does the shop sell?")) == []
    s.close()
    return s


# --- the table's rows ---------------------------------------------------------------------


def test_history_the_day_after_a_preloaded_session_sends_none_of_its_thinking(repo, claude_double):
    friday_with_thinking(repo, claude_double, "preloaded")
    claude_double.add("You asked what the shop sells.")
    monday = Session(repo, AgentConfig(memory_mode="history"), now=MONDAY)
    events = run(monday, "What did I ask on Friday?")
    assert errors(events) == []
    first = claude_double.messages_requests()[-1]
    assert "What does the shop sell?" in json.dumps(first.messages) and "It sells shoes." in json.dumps(first.messages)
    assert thinking_blocks(first.messages) == []


def test_history_after_a_history_session_keeps_the_thinking_it_is_still_bound_to(repo, claude_double):
    friday_with_thinking(repo, claude_double, "history")
    claude_double.add("You asked what the shop sells.")
    events = run(Session(repo, AgentConfig(memory_mode="history"), now=MONDAY), "What did I ask on Friday?")
    assert errors(events) == []
    assert [b["signature"] for b in thinking_blocks(claude_double.messages_requests()[-1].messages)] == ["sig-f1", "sig-f2"]


def test_resume_after_a_setting_changed_the_prompt_sends_none_of_the_old_thinking(repo, claude_double):
    first = friday_with_thinking(repo, claude_double, "on-demand")
    claude_double.add("Shoes, as I said.")
    later = AgentConfig(memory_mode="on-demand", memory_writes="review")
    resumed, said = open_saved(repo, later, None, now=FRIDAY + timedelta(hours=1))
    assert resumed is not None, said
    assert resumed.transcript.path == first.transcript.path
    events = run(resumed, "Remind me?")
    assert errors(events) == []
    after = claude_double.messages_requests()[-1]
    assert "wait for the user's review" in after.system_text()
    assert thinking_blocks(after.messages) == []
    assert "It sells shoes." in json.dumps(after.messages)


def test_resume_with_the_same_settings_keeps_the_thinking(repo, claude_double):
    friday_with_thinking(repo, claude_double, "on-demand")
    claude_double.add("Shoes, as I said.")
    resumed, said = open_saved(repo, AgentConfig(memory_mode="on-demand"), None, now=FRIDAY + timedelta(hours=1))
    assert errors(run(resumed, "Remind me?")) == []
    assert [b["signature"] for b in thinking_blocks(claude_double.messages_requests()[-1].messages)] == ["sig-f1", "sig-f2"]


def test_a_refused_turn_is_told_and_leaves_the_conversation(repo, claude_double):
    s = Session(repo, AgentConfig(memory_mode="none"), now=MONDAY)
    claude_double.add("Hello.")
    run(s, "Hi there.")
    claude_double.add(refusal(explanation="This request was declined because it could enable cyber harm."))
    events = run(s, "Write me some malware.")
    assert errors(events) == []
    assert DECLINED in "".join(e.text for e in events if isinstance(e, TextDelta))
    (notice,) = [e.message for e in events if isinstance(e, Notice)]
    assert "declined" in notice and "cyber harm" in notice
    claude_double.add("It is 9 o'clock.")
    answer = run(s, "What time is it?")
    assert errors(answer) == [] and "It is 9 o'clock." in "".join(e.text for e in answer if isinstance(e, TextDelta))
    sent = json.dumps(claude_double.messages_requests()[-1].messages)
    assert "malware" not in sent and "Hi there." in sent and "Hello." in sent


def test_devagent_ask_prints_a_refusal(repo, claude_double):
    from tui.cli.ask import Printer

    out, err = io.StringIO(), io.StringIO()
    claude_double.add(refusal(category=None))
    Session(repo, AgentConfig(memory_mode="none"), now=MONDAY).send("Something refused.", Printer(out, err))
    assert DECLINED in out.getvalue()
    assert "declined this request" in err.getvalue() and "gave no reason" in err.getvalue()


def test_a_thinking_budget_in_the_file_on_haiku_5_5_is_a_note_and_adaptive_thinking(repo, claude_double, monkeypatch):
    config_file().parent.mkdir(parents=True, exist_ok=True)
    config_file().write_text("thinking = 2048\n")
    config = AgentConfig.from_env_and_args(None)
    assert config.thinking == "adaptive"
    assert "thinking" in config.notice and "claude-haiku-5-5" in config.notice and "2048" in config.notice
    claude_double.add("ok")
    assert errors(run(Session(repo, config, now=MONDAY), "hi")) == []
    assert claude_double.messages_requests()[-1].body["thinking"] == {"type": "adaptive"}


def test_haiku_4_5_gets_no_adaptive_thinking_effort_or_compaction(repo, claude_double, monkeypatch):
    monkeypatch.setenv("DEVAGENT_MODEL", "claude-haiku-4-5")
    config = AgentConfig.from_env_and_args(None)
    assert config.notice is None  # the defaults that do not fit change silently
    claude_double.add("ok")
    assert errors(run(Session(repo, replace_mode(config), now=MONDAY), "hi")) == []
    body = claude_double.messages_requests()[-1].body
    assert "thinking" not in body and "output_config" not in body
    assert [e["type"] for e in body["context_management"]["edits"]] == ["clear_tool_uses_20250919"]
    # An effort the user asked for is named, with the model.
    monkeypatch.setenv("DEVAGENT_EFFORT", "high")
    assert "effort" in AgentConfig.from_env_and_args(None).notice and "claude-haiku-4-5" in AgentConfig.from_env_and_args(None).notice


def replace_mode(config: AgentConfig) -> AgentConfig:
    from dataclasses import replace

    return replace(config, memory_mode="none")


def test_a_compaction_trigger_below_the_minimum_is_a_note_and_the_minimum(repo, claude_double, monkeypatch):
    monkeypatch.setenv("DEVAGENT_COMPACT_AT", "3000")
    config = AgentConfig.from_env_and_args(None)
    assert "compact_at" in config.notice and "50,000" in config.notice
    claude_double.add("ok")
    events = run(Session(repo, replace_mode(config), now=MONDAY), "hi")
    assert errors(events) == [] and not [e for e in events if isinstance(e, Notice)]
    edits = claude_double.messages_requests()[-1].body["context_management"]["edits"]
    assert edits[-1] == {"type": "compact_20260112", "trigger": {"type": "input_tokens", "value": 50_000}}


# --- the risks ------------------------------------------------------------------------------


def test_a_thinking_block_cut_off_by_max_tokens_is_not_sent_again(repo, claude_double):
    s = Session(repo, AgentConfig(memory_mode="none"), now=MONDAY)
    claude_double.add(reply(thinking("A long line of thought that never ends"), stop_reason="max_tokens"))
    assert errors(run(s, "Think hard.")) == [OUTPUT_LIMIT]
    claude_double.add("Shorter, then.")
    assert errors(run(s, "Say it short.")) == []
    assert thinking_blocks(claude_double.messages_requests()[-1].messages) == []


def test_a_reply_stopped_at_the_window_is_told_and_the_next_turn_starts_from_a_summary(repo, claude_double):
    s = Session(repo, AgentConfig(memory_mode="none"), now=MONDAY)
    claude_double.add(reply(text("The answer beg"), stop_reason="model_context_window_exceeded"))
    (failed,) = errors(run(s, "Tell me everything."))
    assert failed.startswith(WINDOW_FULL)
    claude_double.add("SUMMARY: the user asked for everything.", "Here is less.")
    events = run(s, "Then less.")
    assert errors(events) == []
    summary, answer = claude_double.messages_requests()[-2:]
    assert summary.body["tool_choice"] == {"type": "none"}
    assert "SUMMARY" in answer.first_user_text() and "Tell me everything." not in json.dumps(answer.messages)


def test_a_paused_turn_goes_on_from_where_it_paused(repo, claude_double):
    s = Session(repo, AgentConfig(memory_mode="none"), now=MONDAY)
    claude_double.add(reply(text("Looking."), stop_reason="pause_turn"), "Found it.")
    events = run(s, "Find it.")
    assert errors(events) == []
    last = claude_double.messages_requests()[-1]
    assert last.messages[-1] == {"role": "assistant", "content": [{"type": "text", "text": "Looking.", "cache_control": {"type": "ephemeral"}}]}


def test_an_unknown_model_gets_a_plain_request_and_a_note(repo, claude_double, monkeypatch):
    claude_double.models["claude-next-9"] = double_rules.MODELS["claude-haiku-4-5"]
    monkeypatch.setenv("DEVAGENT_MODEL", "claude-next-9")
    config = AgentConfig.from_env_and_args(None)
    assert "claude-next-9 is not in devagent's model table" in config.notice
    claude_double.add("ok")
    assert errors(run(Session(repo, replace_mode(config), now=MONDAY), "hi")) == []
    body = claude_double.messages_requests()[-1].body
    assert not {"thinking", "output_config", "context_management"} & set(body)


def test_off_on_sonnet_5_5_sends_between_tools_and_is_refused_at_xhigh(repo, claude_double, monkeypatch):
    monkeypatch.setenv("DEVAGENT_MODEL", "claude-sonnet-5-5")
    monkeypatch.setenv("DEVAGENT_THINKING", "off")
    claude_double.add("ok")
    assert errors(run(Session(repo, replace_mode(AgentConfig.from_env_and_args(None)), now=MONDAY), "hi")) == []
    assert claude_double.messages_requests()[-1].body["thinking"] == {"type": "between_tools"}
    monkeypatch.setenv("DEVAGENT_EFFORT", "xhigh")
    config = AgentConfig.from_env_and_args(None)
    assert config.thinking == "adaptive" and "xhigh" in config.notice and "claude-sonnet-5-5" in config.notice


def test_a_model_without_compaction_is_summarised_by_devagent_past_compact_at(repo, claude_double):
    s = Session(repo, AgentConfig(model="claude-haiku-4-5", memory_mode="none", clear_at=1000, compact_at=2000), now=MONDAY)
    claude_double.add("Noted.")
    assert errors(run(s, "Remember this: " + "the stock list is long. " * 500)) == []
    claude_double.add("SUMMARY: a long stock list.", "Fine.")
    events = run(s, "And now?")
    assert errors(events) == []
    summary, answer = claude_double.messages_requests()[-2:]
    assert summary.body["tool_choice"] == {"type": "none"} and "compact_20260112" not in json.dumps(summary.body)
    assert "SUMMARY" in answer.first_user_text()
