"""A session under context management, through the double: the parameter and betas it
sends, what it reports, the notice to save to memory, compaction kept as returned, and the
fallback when the API refuses the betas."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from agent import prompts
from agent.conversation import transcripts
from agent.conversation.window import BETA_COMPACT, BETA_CONTEXT
from agent.events import AgentError, Compacted, ContextStatus, Notice, TurnFinished
from agent.loop import claude
from agent.loop.session import Session
from tests.agent.sessions import session as new_session
from tests.double.context import CLEARED
from tests.double.server import Request, reply, tool_use

NOW = datetime(2026, 11, 9, 9, 0, tzinfo=UTC)
PAGE = "".join(f"line {n}: the stock of item {n} is counted here\n" for n in range(100))  # about 4.6 KB
# A page read_file returns whole (400 lines, under 40,000 characters): about 9,500 tokens
# to the double, so a few reads pass compaction's minimum trigger of 50,000.
BIG_PAGE = "".join(f"line {n:03}: the stock of item {n} is counted here, shelf by shelf, {'.' * 40}\n" for n in range(400))


@pytest.fixture
def repo(make_repo) -> Path:
    return make_repo(files={"page.txt": PAGE, "big.txt": BIG_PAGE})


def reader(request: Request) -> dict:
    """Reads the page for every question; a line of text after each result."""
    last = request.messages[-1]
    content = last["content"] if isinstance(last["content"], list) else [{"type": "text", "text": last["content"]}]
    said = " ".join(b.get("text", "") for b in content if b.get("type") == "text")
    if prompts.compaction_request()[:40] in said:
        return reply("SUMMARY: the user has been reading page.txt all morning.")
    if any(b.get("type") == "tool_result" for b in content):
        return reply("Read it.")
    return reply(tool_use("read_file", {"path": "page.txt"}))


def big_reader(reads: int):
    """Reads big.txt `reads` times a turn, then answers; the summary request gets a summary."""

    def answer(request: Request) -> dict:
        last = request.messages[-1]
        content = last["content"] if isinstance(last["content"], list) else [{"type": "text", "text": last["content"]}]
        said = " ".join(b.get("text", "") for b in content if b.get("type") == "text")
        if prompts.compaction_request()[:40] in said:
            return reply("SUMMARY: the user has been reading big.txt all morning.")
        asked = max(i for i, m in enumerate(request.messages) if m["role"] == "user" and "tool_result" not in json.dumps(m))
        done = sum(1 for m in request.messages[asked:] for b in m["content"] if isinstance(b, dict) and b.get("type") == "tool_result")
        return reply("Read it.") if done >= reads else reply(tool_use("read_file", {"path": "big.txt"}))

    return answer


def session(repo: Path, mode: str = "on-demand", **config) -> Session:
    return new_session(repo, now=NOW, memory_mode=mode, **config)


def turn(s: Session, words: str) -> list:
    events: list = []
    s.send(words, events.append)
    return events


def test_requests_carry_the_betas_and_the_parameter_and_report_fullness(claude_double, repo):
    claude_double.responder = reader
    events = turn(session(repo), "read the page")
    first = claude_double.messages_requests()[0]
    assert set(first.headers["anthropic-beta"].split(",")) == {BETA_CONTEXT, BETA_COMPACT}
    edits = first.body["context_management"]["edits"]
    assert [e["type"] for e in edits] == ["clear_thinking_20251015", "clear_tool_uses_20250919", "compact_20260112"]
    assert edits[1]["exclude_tools"] == ["memory"] and edits[1]["trigger"]["value"] == 60_000
    statuses = [e for e in events if isinstance(e, ContextStatus)]
    assert len(statuses) == 2
    counted = claude_double.messages_requests()[1].context
    assert statuses[1].used == counted.input_tokens + counted.cache_read + counted.cache_write
    # Haiku 5.5's window is 1M ("What's new in Claude Haiku 5.5").
    assert statuses[1].window == 1_000_000 and statuses[1].text.endswith(" of 1M")
    assert not any(isinstance(e, AgentError) for e in events)


def test_off_sends_neither(claude_double, repo):
    claude_double.responder = reader
    turn(session(repo, context_management=False), "read the page")
    first = claude_double.messages_requests()[0]
    assert "context_management" not in first.body and "anthropic-beta" not in first.headers


def test_old_results_are_cleared_by_the_api_and_the_status_says_so(claude_double, repo):
    claude_double.responder = reader
    s = session(repo, clear_at=4000, compact_at=50_000, keep_tool_uses=1)
    for n in range(4):
        events = turn(s, f"read it again, {n}")
    last = [e for e in events if isinstance(e, ContextStatus)][-1]
    assert last.cleared_tool_uses == 3 and "3 tool results cleared" in last.text
    seen = claude_double.messages_requests()[-1].seen_messages()
    assert sum(CLEARED in json.dumps(m) for m in seen) == 3
    # The session's own history is whole: the API clears its copy of each request.
    assert "item 98 is counted here" in json.dumps(s.messages[2]) and CLEARED not in json.dumps(s.messages)


@pytest.mark.slow
def test_the_save_notice_comes_once_near_clearing_and_only_with_a_memory_tool(claude_double, repo):
    claude_double.responder = reader
    s = session(repo, clear_at=5000, compact_at=50_000)
    for n in range(5):
        turn(s, f"question {n}")
    notices = [r for r in claude_double.messages_requests() if "(devagent: this conversation is at about" in r.last_user_text()]
    assert len(notices) == 1
    said = notices[0].last_user_text()
    assert "memory" in said and "Never save tool state" in said and "5,000" in said
    # The user's words come last, after the notice.
    assert said.rstrip().endswith("question " + said.rsplit("question ", 1)[1].strip())
    before = notices[0].context.original_tokens
    assert before >= 4000

    claude_double.requests.clear()
    plain = session(repo, mode="none", clear_at=5000, compact_at=50_000)
    for n in range(5):
        turn(plain, f"question {n}")
    assert not any("(devagent:" in r.last_user_text() for r in claude_double.messages_requests())


def test_a_compaction_block_is_kept_as_returned_shown_and_saved(claude_double, repo):
    claude_double.responder = big_reader(1)
    s = session(repo, clear_at=40_000, compact_at=50_000, keep_tool_uses=10)
    compactions: list = []
    for n in range(8):
        events = turn(s, f"read it, {n}")
        compactions += [e for e in events if isinstance(e, Compacted)]
        if compactions:
            break
    assert len(compactions) == 1 and not compactions[0].fallback
    request = next(r for r in claude_double.messages_requests() if r.context.compaction is not None)
    issued = request.context.compaction
    assert compactions[0].summary == issued["content"]
    held = [b for m in s.messages if isinstance(m["content"], list) for b in m["content"] if b.get("type") == "compaction"]
    assert held == [issued]
    # The next request sends it back as it came (the double checks its signature), and the
    # model sees nothing from before it.
    turn(s, "and now?")
    after = claude_double.messages_requests()[-1]
    assert after.context.messages[0]["content"][0] == issued
    assert after.context.input_tokens + after.context.cache_read + after.context.cache_write < 25_000
    saved = transcripts.load(s.transcript.path)
    assert any(b == issued for m in saved.messages for b in transcripts.content_blocks(m.message))


def test_the_compaction_itself_is_paid_for(claude_double, repo):
    read = big_reader(1)

    def ten_out(request):
        answer = read(request)
        answer["usage"] = {"output_tokens": 10}
        return answer

    claude_double.responder = ten_out
    s = session(repo, clear_at=40_000, compact_at=50_000, keep_tool_uses=10)
    for n in range(8):
        events = turn(s, f"read it, {n}")
        if any(isinstance(e, Compacted) for e in events):
            break
    finished = next(e for e in events if isinstance(e, TurnFinished))
    requests = claude_double.messages_requests()[-finished.usage.api_calls :]
    replies = compactions = 0.0
    for r in requests:
        c = r.context
        counts = {"input_tokens": c.input_tokens, "cache_read_input_tokens": c.cache_read, "cache_creation_input_tokens": c.cache_write, "output_tokens": 10}
        replies += claude.call_usage("claude-haiku-5-5", _Counts(counts)).cost_usd
        if c.compaction_usage:
            compactions += claude.call_usage("claude-haiku-5-5", _Counts(c.compaction_usage)).cost_usd
    assert compactions > 0
    assert finished.usage.cost_usd == pytest.approx(replies + compactions, rel=1e-9)


class _Counts:
    def __init__(self, values: dict) -> None:
        self.input_tokens = values.get("input_tokens", 0)
        self.cache_read_input_tokens = values.get("cache_read_input_tokens", 0)
        self.cache_creation_input_tokens = values.get("cache_creation_input_tokens", 0)
        self.output_tokens = values.get("output_tokens", 0)


def test_when_the_api_refuses_the_betas_the_session_summarises_by_itself(claude_double, repo):
    claude_double.responder = big_reader(6)
    claude_double.refuse_context_management = {"claude-haiku-5-5"}
    s = session(repo, clear_at=40_000, compact_at=50_000, keep_tool_uses=0)
    events = turn(s, "read the page")
    notices = [e.message for e in events if isinstance(e, Notice)]
    assert len(notices) == 1 and "not available for claude-haiku-5-5" in notices[0]
    assert not any(isinstance(e, AgentError) for e in events)
    sent = claude_double.messages_requests()
    assert "context_management" in sent[0].body and "context_management" not in sent[1].body
    assert "anthropic-beta" not in sent[1].headers

    # The first turn passed compact_at: the next one starts with the summary request.
    events = turn(s, "what next?")
    summary_request = next(r for r in claude_double.messages_requests() if prompts.compaction_request()[:40] in r.last_user_text())
    assert CLEARED not in json.dumps(summary_request.body) and "(cleared)" in json.dumps(summary_request.body)
    compacted = [e for e in events if isinstance(e, Compacted)]
    assert len(compacted) == 1 and compacted[0].fallback and "SUMMARY" in compacted[0].summary
    assert any("summarised the earlier conversation itself" in e.message for e in events if isinstance(e, Notice))
    after = claude_double.messages_requests()[-2]  # the turn's first request after the summary
    first_text = after.messages[0]["content"][0]["text"]
    assert first_text.startswith(prompts.SUMMARY_LEAD) and "SUMMARY" in first_text
    assert after.messages[1]["role"] == "assistant" and "what next?" in after.messages[2]["content"][-1]["text"]
    assert s.messages[0]["content"][0]["text"] == first_text
    saved = transcripts.load(s.transcript.path)
    assert saved.messages[0].message["content"][0]["text"] == first_text
