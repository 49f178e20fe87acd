"""The double's context management, read back through the SDK's beta types."""

from __future__ import annotations

import anthropic
import pytest
from anthropic.types.beta import (
    BetaClearThinking20251015EditResponse,
    BetaClearToolUses20250919EditResponse,
    BetaCompactionBlock,
)

from tests.double import rules as double_rules
from tests.double.context import BETA_COMPACT, BETA_CONTEXT, CLEARED
from tests.double.server import reply, text, thinking, tool_use

BOTH = [BETA_CONTEXT, BETA_COMPACT]


def client(double) -> anthropic.Anthropic:
    return anthropic.Anthropic(api_key="test", base_url=double.url, max_retries=0)


def history(uses: list[tuple[str, str]]) -> list[dict]:
    """A conversation with one tool use a turn: (tool name, result text)."""
    messages: list[dict] = []
    for n, (name, result) in enumerate(uses):
        messages.append({"role": "user", "content": f"question {n}"})
        messages.append({"role": "assistant", "content": [tool_use(name, {"n": n}, id=f"toolu_{n}")]})
        messages.append({"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"toolu_{n}", "content": result}]})
        messages.append({"role": "assistant", "content": [text(f"answer {n}")]})
    messages.append({"role": "user", "content": "and now?"})
    return messages


def create(double, messages, edits, betas=BOTH, **kw):
    return client(double).beta.messages.create(
        model="claude-haiku-5-5",
        max_tokens=100,
        messages=messages,
        betas=betas,
        context_management={"edits": edits},
        **kw,
    )


CLEAR = {
    "type": "clear_tool_uses_20250919",
    "trigger": {"type": "input_tokens", "value": 3000},
    "keep": {"type": "tool_uses", "value": 2},
    "exclude_tools": ["memory"],
}


def test_refuses_context_management_without_the_beta(claude_double):
    claude_double.default = reply("ok")
    with pytest.raises(anthropic.BadRequestError, match="context_management: Extra inputs are not permitted"):
        create(claude_double, [{"role": "user", "content": "hi"}], [CLEAR], betas=[])
    with pytest.raises(anthropic.BadRequestError, match="requires the `compact-2026-01-12` beta"):
        create(claude_double, [{"role": "user", "content": "hi"}], [{"type": "compact_20260112"}], betas=[BETA_CONTEXT])
    claude_double.refuse_context_management = {"claude-haiku-5-5"}
    with pytest.raises(anthropic.BadRequestError, match="not supported for model"):
        create(claude_double, [{"role": "user", "content": "hi"}], [CLEAR])
    # Without the parameter the same request goes through.
    assert client(claude_double).beta.messages.create(
        model="claude-haiku-5-5", max_tokens=10, messages=[{"role": "user", "content": "hi"}], betas=BOTH
    ).content[0].text == "ok"


def test_clears_old_tool_results_but_not_memory_and_reports_it(claude_double):
    big = "x" * 4000
    uses = [("read_file", big), ("memory", "/memories/prefs.md: tabs"), ("build", big), ("read_file", big), ("build", big), ("read_file", big)]
    claude_double.add(reply("done"))
    message = create(claude_double, history(uses), [CLEAR])
    seen = claude_double.requests[-1].seen_messages()
    results = {b["tool_use_id"]: b["content"] for m in seen if isinstance(m["content"], list) for b in m["content"] if b.get("type") == "tool_result"}
    assert [results[f"toolu_{n}"] == CLEARED for n in range(6)] == [True, False, True, True, False, False]
    assert results["toolu_1"] == "/memories/prefs.md: tabs"
    # The client's history is not the API's business to change.
    assert claude_double.requests[-1].messages[2]["content"][0]["content"] == big
    (edit,) = message.context_management.applied_edits
    assert isinstance(edit, BetaClearToolUses20250919EditResponse)
    assert edit.cleared_tool_uses == 3
    view = claude_double.requests[-1].context
    assert edit.cleared_input_tokens == view.original_tokens - view.input_tokens > 2800
    assert message.usage.input_tokens == view.input_tokens < 3000


def test_below_the_trigger_or_too_little_to_clear_changes_nothing(claude_double):
    small = history([("read_file", "y" * 400)] * 4)
    claude_double.add(reply("a"), reply("b"))
    assert create(claude_double, small, [CLEAR]).context_management.applied_edits == []
    big = history([("read_file", "y" * 4000)] * 4)
    stingy = dict(CLEAR, clear_at_least={"type": "input_tokens", "value": 50_000})
    message = create(claude_double, big, [stingy])
    assert message.context_management.applied_edits == []
    assert CLEARED not in str(claude_double.requests[-1].seen_messages())


def test_clears_thinking_of_older_turns_only(claude_double):
    messages = [
        {"role": "user", "content": "one"},
        {"role": "assistant", "content": [thinking("first thoughts", "s1"), text("1")]},
        {"role": "user", "content": "two"},
        {"role": "assistant", "content": [thinking("second thoughts", "s2"), tool_use("build", {}, id="toolu_b")]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_b", "content": "ok"}]},
        {"role": "assistant", "content": [thinking("still second", "s3"), text("2")]},
        {"role": "user", "content": "three"},
    ]
    edit = {"type": "clear_thinking_20251015", "keep": {"type": "thinking_turns", "value": 1}}
    # Blocks as the double would have handed them out, so its thinking checks let them by.
    for message, before in ((1, 1), (3, 3), (5, 5)):
        block = messages[message]["content"][0]
        body = {"system": [], "tools": [], "messages": messages[:before]}
        double_rules.issue(claude_double, body, [block, *messages[message]["content"][1:]], "end_turn")
    claude_double.add(reply("3"))
    message = create(claude_double, messages, [edit, CLEAR], thinking={"type": "adaptive"})
    seen = str(claude_double.requests[-1].seen_messages())
    assert "first thoughts" not in seen and "second thoughts" in seen and "still second" in seen
    (applied,) = message.context_management.applied_edits
    assert isinstance(applied, BetaClearThinking20251015EditResponse) and applied.cleared_thinking_turns == 1
    with pytest.raises(anthropic.BadRequestError, match="must be the first edit"):
        create(claude_double, messages, [CLEAR, edit], thinking={"type": "adaptive"})
    with pytest.raises(anthropic.BadRequestError, match="requires thinking"):
        create(claude_double, messages, [edit])


# The compaction page: the trigger is at least 50,000 input tokens.
COMPACT = {"type": "compact_20260112", "trigger": {"type": "input_tokens", "value": 50_000}}
BIG = "z" * 60_000


def test_compaction_is_streamed_and_the_next_request_starts_from_it(claude_double):
    messages = history([("read_file", BIG)] * 4)
    claude_double.add(reply("after the summary"), reply("next"))
    with client(claude_double).beta.messages.stream(
        model="claude-haiku-5-5", max_tokens=100, messages=messages, betas=BOTH, context_management={"edits": [COMPACT]}
    ) as stream:
        kinds = [e.type for e in stream]
        final = stream.get_final_message()
    assert "compaction" in kinds
    block = final.content[0]
    assert isinstance(block, BetaCompactionBlock)
    assert "question 3" in block.content and block.signature and block.encrypted_content
    assert final.content[1].text == "after the summary"
    compaction, sampled = final.usage.iterations
    assert compaction.type == "compaction" and compaction.input_tokens > 50_000
    assert sampled.type == "message" and final.usage.input_tokens == sampled.input_tokens < 3000

    sent_back = {k: v for k, v in block.to_dict().items()}
    later = [*messages, {"role": "assistant", "content": [sent_back, text("after the summary")]}, {"role": "user", "content": "go on"}]
    create(claude_double, later, [COMPACT])
    seen = claude_double.requests[-1].seen_messages()
    assert seen[0]["content"][0]["type"] == "compaction" and len(seen) == 2

    tampered = [*later[:-2], {"role": "assistant", "content": [dict(sent_back, content="I made this up")]}, later[-1]]
    with pytest.raises(anthropic.BadRequestError, match="Invalid `signature` in `compaction` block"):
        create(claude_double, tampered, [COMPACT])
    with pytest.raises(anthropic.BadRequestError, match="Input tag 'compaction'"):
        create(claude_double, later, [CLEAR], betas=[BETA_CONTEXT])


def test_paused_compaction_answers_with_the_block_alone(claude_double):
    claude_double.add(reply("kept for later"))
    message = create(claude_double, history([("read_file", BIG)] * 4), [dict(COMPACT, pause_after_compaction=True)])
    assert message.stop_reason == "compaction"
    assert [b.type for b in message.content] == ["compaction"]
    assert claude_double.pending() == 1


def test_a_request_over_the_window_is_refused_as_the_api_does(claude_double):
    claude_double.context_window = 2000
    claude_double.add(reply("never"))
    messages = history([("read_file", "w" * 4000)] * 3)
    with pytest.raises(anthropic.BadRequestError, match=r"prompt is too long: \d+ tokens > 2000 maximum"):
        client(claude_double).messages.create(model="claude-haiku-5-5", max_tokens=10, messages=messages)
    # Clearing brings the same history under the window.
    assert create(claude_double, messages, [dict(CLEAR, trigger={"type": "input_tokens", "value": 1000}, keep={"type": "tool_uses", "value": 0})]).content[0].text == "never"


def test_count_tokens_reports_the_count_before_and_after_edits(claude_double):
    messages = history([("read_file", "v" * 4000)] * 4)
    counted = client(claude_double).beta.messages.count_tokens(
        model="claude-haiku-5-5", messages=messages, betas=BOTH, context_management={"edits": [CLEAR]}
    )
    assert counted.context_management.original_input_tokens > 4000 > counted.input_tokens


def test_simulated_cache_reads_the_prefix_an_earlier_request_marked(claude_double):
    claude_double.simulate_cache = True
    claude_double.add(reply("a"), reply("b"))
    marked = {"type": "text", "text": "long question " * 200, "cache_control": {"type": "ephemeral"}}
    first = client(claude_double).messages.create(model="claude-haiku-5-5", max_tokens=10, messages=[{"role": "user", "content": [marked]}])
    assert first.usage.cache_read_input_tokens == 0 and first.usage.cache_creation_input_tokens > 500
    second = client(claude_double).messages.create(
        model="claude-haiku-5-5",
        max_tokens=10,
        messages=[
            {"role": "user", "content": [{k: v for k, v in marked.items() if k != "cache_control"}]},
            {"role": "assistant", "content": "a"},
            {"role": "user", "content": [{"type": "text", "text": "more", "cache_control": {"type": "ephemeral"}}]},
        ],
    )
    assert second.usage.cache_read_input_tokens == first.usage.cache_creation_input_tokens
    assert second.usage.input_tokens < 20
