"""What a call costs, from the usage block the API returns."""

from __future__ import annotations

import pytest
from anthropic.types import Usage as ApiUsage

from agent.loop.claude import call_usage


def cost(model: str, input=0, output=0, cache_read=0, cache_write=0) -> float:
    usage = ApiUsage(
        input_tokens=input,
        output_tokens=output,
        cache_read_input_tokens=cache_read,
        cache_creation_input_tokens=cache_write,
    )
    return call_usage(model, usage).cost_usd


MILLION = 1_000_000


@pytest.mark.parametrize(
    "model, input, output, cache_write, cache_read",
    [
        ("claude-haiku-5-5", 0.10, 0.50, 0.125, 0.01),
        ("claude-sonnet-5-5", 2.0, 10.0, 2.50, 0.10),
        # an id the table does not know falls back on its family
        ("claude-haiku-4-5-20251001", 1.0, 5.0, 1.25, 0.10),
    ],
)
def test_each_kind_of_token_has_its_price(model, input, output, cache_write, cache_read):
    assert cost(model, input=MILLION // 10) == pytest.approx(input / 10)
    assert cost(model, output=MILLION) == pytest.approx(output)
    assert cost(model, cache_write=MILLION // 10) == pytest.approx(cache_write / 10)
    assert cost(model, cache_read=MILLION // 10) == pytest.approx(cache_read / 10)


def test_haiku_5_5_prompts_over_100k_tokens_cost_five_times_as_much():
    at_limit = cost("claude-haiku-5-5", input=40_000, cache_read=60_000, output=1_000)
    assert at_limit == pytest.approx((40_000 * 0.10 + 60_000 * 0.01 + 1_000 * 0.50) / MILLION)
    # one token more and every token of the request, output included, is billed 5x
    over = cost("claude-haiku-5-5", input=40_001, cache_read=60_000, output=1_000)
    assert over == pytest.approx(5 * (40_001 * 0.10 + 60_000 * 0.01 + 1_000 * 0.50) / MILLION)


def test_the_call_is_counted_with_its_tokens():
    usage = call_usage("claude-haiku-5-5", ApiUsage(input_tokens=3, output_tokens=4, cache_read_input_tokens=5, cache_creation_input_tokens=6))
    assert (usage.input_tokens, usage.output_tokens, usage.cache_read_tokens, usage.cache_write_tokens, usage.api_calls) == (3, 4, 5, 6, 1)
