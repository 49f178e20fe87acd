"""Done means, for issue 12: a scripted day of 200 turns, each with a build or a read of a
20 KB file. Without context management the history reaches the 200k window and the turns
fail; with it every turn succeeds, the input per request stays below the clearing
threshold, and every memory tool result is still there at the end."""

from __future__ import annotations

import json

import pytest

from agent.conversation import window as context
from agent.settings.config import AgentConfig
from tests.agent.long_day import NOTICE_START, run_day
from tests.double.context import CLEARED, count

TURNS = 200

# Minutes, not seconds: 400 requests whose history grows to megabytes.
pytestmark = [pytest.mark.slow, pytest.mark.timeout(1800)]


def test_without_context_management_the_day_outgrows_the_window(claude_double, tmp_path):
    day = run_day(claude_double, tmp_path, turns=TURNS, managed=False)
    first_failure = day.ok.index(False)
    assert 20 < first_failure < TURNS // 2 and all(day.ok[:first_failure])
    # From there on the history sits at the window: a refused turn is taken back out, so
    # a turn with a short result can still squeeze in, but nearly every one fails.
    later = day.ok[first_failure:]
    assert later.count(False) > 0.9 * len(later)
    assert all("prompt is too long" in e for e, ok in zip(day.errors, day.ok) if not ok)
    assert max(day.requests) > 190_000
    requests = claude_double.messages_requests()
    assert not any("context_management" in r.body for r in requests)
    refused = [r for r in requests if r.context is None]
    assert len(refused) == day.ok.count(False) and all(count(r.body) > 200_000 for r in refused)


def test_with_context_management_every_turn_of_the_day_succeeds(claude_double, tmp_path):
    day = run_day(claude_double, tmp_path, turns=TURNS, managed=True)
    assert all(day.ok), [e for e in day.errors if e][:3]
    limits = context.limits_for(AgentConfig(model="claude-haiku-5-5"))
    # It grew past the clearing threshold (else this proves nothing) and then stayed under it.
    assert max(day.requests) <= limits.clear_at
    requests = claude_double.messages_requests()
    assert max(r.context.original_tokens for r in requests) > 2 * limits.clear_at
    later = day.requests[len(day.requests) // 2 :]
    assert max(later) < limits.clear_at and min(later) > 0
    # Every memory tool result is still what the model sees at the end of the day.
    seen = requests[-1].seen_messages()
    memory_ids = {b["id"] for m in seen if m["role"] == "assistant" for b in m["content"] if b.get("type") == "tool_use" and b["name"] == "memory"}
    results = {b["tool_use_id"]: b for m in seen if isinstance(m["content"], list) for b in m["content"] if b.get("type") == "tool_result"}
    assert len(memory_ids) == day.memory_calls > TURNS // 10
    assert all(results[i]["content"] != CLEARED and "created" in json.dumps(results[i]).lower() for i in memory_ids)
    assert sum(r["content"] == CLEARED for r in results.values()) > TURNS // 2
    # The model was told once to save before clearing, and it did.
    told = [r for r in requests if NOTICE_START in r.last_user_text()]
    assert len(told) == 1
