"""The double refuses what the real API refuses, naming the rule (tests/double/rules.py).

Each case is a request the documentation says the API answers with an error; the double
must answer it the same way, or a test of devagent could pass on a request that fails for
a user.
"""

from __future__ import annotations

import anthropic
import pytest

from tests.double.server import refusal, reply, text, thinking, tool_use

HI = [{"role": "user", "content": "hi"}]


def client(double) -> anthropic.Anthropic:
    return anthropic.Anthropic(api_key="test", base_url=double.url, max_retries=0)


def create(double, model="claude-haiku-5-5", messages=HI, **kw):
    return client(double).beta.messages.create(model=model, max_tokens=kw.pop("max_tokens", 100), messages=messages, **kw)


COMPACT = {"type": "compact_20260112", "trigger": {"type": "input_tokens", "value": 60_000}}

REFUSED = [
    ("manual budget on an adaptive-only model", "claude-haiku-5-5", {"thinking": {"type": "enabled", "budget_tokens": 2048}, "max_tokens": 4000}, "thinking.type.enabled is not supported"),
    ("adaptive on Haiku 4.5", "claude-haiku-4-5", {"thinking": {"type": "adaptive"}}, "adaptive thinking is not supported"),
    ("effort on Haiku 4.5", "claude-haiku-4-5", {"output_config": {"effort": "low"}}, "effort is not supported"),
    ("compaction on Haiku 4.5", "claude-haiku-4-5", {"betas": ["compact-2026-01-12"], "context_management": {"edits": [COMPACT]}}, "compaction is not supported"),
    ("a compaction trigger under 50,000", "claude-haiku-5-5", {"betas": ["compact-2026-01-12"], "context_management": {"edits": [dict(COMPACT, trigger={"type": "input_tokens", "value": 3000})]}}, "must be at least 50000"),
    ("disabled on Sonnet 5.5", "claude-sonnet-5-5", {"thinking": {"type": "disabled"}}, "between_tools"),
    ("disabled on Opus 5.5", "claude-opus-5-5", {"thinking": {"type": "disabled"}}, "thinking.type.disabled is not supported"),
    ("disabled at xhigh on Haiku 5.5", "claude-haiku-5-5", {"thinking": {"type": "disabled"}, "output_config": {"effort": "xhigh"}}, "effort xhigh"),
    ("temperature on Haiku 5.5", "claude-haiku-5-5", {"extra_body": {"temperature": 0.2}}, "sampling parameters are not supported"),
    ("forced tool use on Sonnet 5.5", "claude-sonnet-5-5", {"tool_choice": {"type": "any"}, "tools": [{"name": "t", "input_schema": {"type": "object"}}]}, "forced tool use"),
    ("max_tokens over the model's output", "claude-haiku-4-5", {"extra_body": {"max_tokens": 100_000}}, "maximum allowed number of output tokens"),
    ("prefill on Haiku 5.5", "claude-haiku-5-5", {"messages": [*HI, {"role": "assistant", "content": "Sure"}]}, "prefilling the assistant message"),
]


@pytest.mark.parametrize("why, model, params, words", REFUSED, ids=[c[0] for c in REFUSED])
def test_refuses_what_the_documentation_says_the_api_refuses(claude_double, why, model, params, words):
    claude_double.add(reply("never sent"))
    with pytest.raises(anthropic.BadRequestError, match=words):
        create(claude_double, model, **params)
    assert claude_double.pending() == 1


def test_an_unknown_model_is_not_found(claude_double):
    with pytest.raises(anthropic.NotFoundError, match="claude-nonesuch"):
        create(claude_double, "claude-nonesuch")


def test_thinking_is_bound_to_its_prefix_and_to_its_signature(claude_double):
    claude_double.add(reply(thinking("plan", "sig-p"), text("ok")), reply("again"), reply("and again"))
    first = create(claude_double, system="one")
    back = [*HI, {"role": "assistant", "content": [b.to_dict() for b in first.content]}, {"role": "user", "content": "more"}]
    create(claude_double, system="one", messages=back)  # unchanged: accepted
    with pytest.raises(anthropic.BadRequestError, match="prefix check"):
        create(claude_double, system="two", messages=back)
    tampered = [*HI, {"role": "assistant", "content": [{"type": "thinking", "thinking": "plan", "signature": "forged"}, {"type": "text", "text": "ok"}]}, back[-1]]
    with pytest.raises(anthropic.BadRequestError, match="Invalid `signature`"):
        create(claude_double, system="one", messages=tampered)


def test_thinking_cut_off_by_max_tokens_has_no_signature_and_is_refused_back(claude_double):
    claude_double.add(reply(thinking("long thoughts"), stop_reason="max_tokens"))
    with client(claude_double).messages.stream(model="claude-haiku-5-5", max_tokens=100, messages=HI) as stream:
        final = stream.get_final_message()
    assert final.stop_reason == "max_tokens" and final.content[0].signature == ""
    back = [*HI, {"role": "assistant", "content": [final.content[0].to_dict()]}, {"role": "user", "content": "go on"}]
    with pytest.raises(anthropic.BadRequestError, match="signature is empty"):
        create(claude_double, messages=back)


def test_a_refusal_has_no_content_and_says_why_in_stop_details(claude_double):
    claude_double.add(refusal(explanation="Declined: cyber."))
    with client(claude_double).messages.stream(model="claude-haiku-5-5", max_tokens=100, messages=HI) as stream:
        final = stream.get_final_message()
    assert final.content == [] and final.stop_reason == "refusal"
    assert final.stop_details.type == "refusal" and final.stop_details.explanation == "Declined: cyber."


def test_a_paused_turn_may_be_sent_back_as_the_last_message(claude_double):
    claude_double.add(reply(text("Working."), stop_reason="pause_turn"), reply("Done."))
    paused = create(claude_double)
    again = create(claude_double, messages=[*HI, {"role": "assistant", "content": [b.to_dict() for b in paused.content]}])
    assert again.content[0].text == "Done."


@pytest.mark.parametrize("model, ceiling", [("claude-sonnet-5-5", 128_000), ("claude-haiku-5-5", 128_000), ("claude-haiku-4-5", 64_000)])
def test_each_model_takes_max_tokens_up_to_its_own_output_and_no_more(claude_double, model, ceiling):
    claude_double.add(reply("fits"))
    # (the SDK streams a request this large or refuses to send it)
    with client(claude_double).messages.stream(model=model, max_tokens=ceiling, messages=HI) as s:
        assert s.get_final_message().content[0].text == "fits"
    over = client(claude_double).messages.stream(model=model, max_tokens=ceiling + 1, messages=HI)
    with pytest.raises(anthropic.BadRequestError, match=f"> {ceiling}, which is the maximum allowed number of output tokens"), over as s:
        s.get_final_message()


def test_a_reply_longer_than_max_tokens_is_cut_there(claude_double):
    long_input = {"path": "src/big.py", "file_text": "x = 1\n" * 6000}  # 36,000 characters
    claude_double.add(reply(text("Writing it."), tool_use("write", long_input, id="t1")), reply(tool_use("write", long_input, id="t2")))
    tools = [{"name": "write", "input_schema": {"type": "object"}}]
    with client(claude_double).messages.stream(model="claude-haiku-5-5", max_tokens=8000, messages=HI, tools=tools) as s:
        cut = s.get_final_message()
    assert cut.stop_reason == "max_tokens"
    assert cut.content[0].text == "Writing it."
    with client(claude_double).messages.stream(model="claude-haiku-5-5", max_tokens=128_000, messages=HI, tools=tools) as s:
        whole = s.get_final_message()
    assert whole.stop_reason == "tool_use" and whole.content[0].input == long_input
