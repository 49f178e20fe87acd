"""agent/conversation/window.py: thresholds per model and from the settings, and the request parameter
the double (standing in for the API) accepts."""

from __future__ import annotations

import anthropic
import pytest

from agent.conversation import window as context
from agent.settings.config import AgentConfig
from tests.double.server import reply


def test_each_model_has_its_own_thresholds():
    haiku = context.limits_for(AgentConfig(model="claude-haiku-5-5"))
    sonnet = context.limits_for(AgentConfig(model="claude-sonnet-5-5"))
    other = context.limits_for(AgentConfig(model="claude-opus-9"))
    # Haiku 5.5 bills 5x past 100k prompt tokens: it must compact before that.
    assert haiku.clear_at < haiku.compact_at < 100_000
    assert sonnet.clear_at < sonnet.compact_at < sonnet.window
    assert (other.clear_at, other.compact_at) == (100_000, 150_000)
    assert haiku.warn_at < haiku.clear_at
    # The overview pages: Haiku 5.5 and Sonnet 5.5 have 1M windows, Haiku 4.5 200k.
    assert haiku.window == sonnet.window == 1_000_000
    assert context.limits_for(AgentConfig(model="claude-haiku-4-5")).window == 200_000


def test_settings_win_and_are_kept_in_order():
    mine = context.limits_for(AgentConfig(model="claude-haiku-5-5", clear_at=20_000, compact_at=60_000, keep_tool_uses=1))
    assert (mine.clear_at, mine.compact_at, mine.keep_tool_uses) == (20_000, 60_000, 1)
    # Compaction past the window could never happen; clearing after compaction neither.
    odd = context.limits_for(AgentConfig(model="claude-haiku-5-5", clear_at=50_000, compact_at=2_000_000, max_tokens=8000))
    assert odd.compact_at == 1_000_000 - 8000 - 1000 and odd.clear_at == 50_000
    # The compaction page: the trigger is at least 50,000 tokens.
    backwards = context.limits_for(AgentConfig(model="claude-haiku-5-5", clear_at=80_000, compact_at=3000))
    assert backwards.clear_at < backwards.compact_at == 50_000


def test_the_parameter_never_clears_memory_and_clears_thinking_only_when_thinking():
    limits = context.limits_for(AgentConfig())
    with_thinking = context.management(limits, thinking=True)["edits"]
    assert [e["type"] for e in with_thinking] == ["clear_thinking_20251015", "clear_tool_uses_20250919", "compact_20260112"]
    clear = with_thinking[1]
    assert clear["exclude_tools"] == ["memory"]
    assert clear["trigger"] == {"type": "input_tokens", "value": limits.clear_at}
    assert clear["keep"] == {"type": "tool_uses", "value": limits.keep_tool_uses}
    assert with_thinking[2]["trigger"]["value"] == limits.compact_at
    assert [e["type"] for e in context.management(limits, thinking=False)["edits"]] == ["clear_tool_uses_20250919", "compact_20260112"]


@pytest.mark.parametrize("thinking", [True, False])
def test_the_double_accepts_the_parameter_with_the_betas(claude_double, thinking):
    claude_double.add(reply("ok"))
    params = {"thinking": {"type": "adaptive"}} if thinking else {}
    message = anthropic.Anthropic(api_key="k", base_url=claude_double.url, max_retries=0).beta.messages.create(
        model="claude-haiku-5-5",
        max_tokens=10,
        messages=[{"role": "user", "content": "hi"}],
        betas=list(context.BETAS),
        context_management=context.management(context.limits_for(AgentConfig()), thinking=thinking),
        **params,
    )
    assert message.context_management.applied_edits == []
    assert claude_double.requests[-1].headers["anthropic-beta"] == ",".join(context.BETAS)


def test_fullness_reads_usage_and_applied_edits():
    limits = context.limits_for(AgentConfig())
    full = context.fullness(
        limits,
        {"input_tokens": 2000, "cache_read_input_tokens": 40_000, "cache_creation_input_tokens": 6000},
        [{"type": "clear_tool_uses_20250919", "cleared_tool_uses": 12, "cleared_input_tokens": 61_000}],
    )
    assert (full.used, full.cleared_tool_uses, full.cleared_tokens) == (48_000, 12, 61_000)
    assert full.describe() == "context 48k of 1M (12 tool results cleared)"
    assert context.fullness(limits, {"input_tokens": 900}, None).describe() == "context 900 of 1M"
    older = context.limits_for(AgentConfig(model="claude-haiku-4-5"))
    assert context.fullness(older, {"input_tokens": 900}, None).describe() == "context 900 of 200k"


def test_refusals_of_the_betas_are_told_from_other_errors():
    assert context.refuses_betas(400, "context_management: Extra inputs are not permitted")
    assert context.refuses_betas(400, "context_management: context management is not supported for model `x`")
    assert not context.refuses_betas(400, "prompt is too long: 210000 tokens > 200000 maximum")
    assert not context.refuses_betas(429, "context_management rate")
    assert not context.refuses_betas(400, "messages.3: bad")


def test_config_file_and_environment_set_the_thresholds(user_dirs, monkeypatch):
    path = user_dirs["config"] / "devagent" / "config.toml"
    path.parent.mkdir(parents=True)
    path.write_text(
        "[context]\nclear_at = 40000\ncompact_at = 70000\nkeep_tool_uses = 2\nmanagement = true\n"
        "[transcripts]\nmax_age_days = 30\nmax_total_mb = 50\n"
    )
    for name in ("DEVAGENT_CONTEXT", "DEVAGENT_CLEAR_AT", "DEVAGENT_COMPACT_AT"):
        monkeypatch.delenv(name, raising=False)
    config = AgentConfig.from_env_and_args()
    assert (config.clear_at, config.compact_at, config.keep_tool_uses, config.context_management) == (40_000, 70_000, 2, True)
    assert (config.transcripts_max_age_days, config.transcripts_max_mb) == (30, 50)
    assert config.notice is None
    monkeypatch.setenv("DEVAGENT_CLEAR_AT", "35_000")
    monkeypatch.setenv("DEVAGENT_CONTEXT", "off")
    config = AgentConfig.from_env_and_args()
    assert (config.clear_at, config.context_management) == (35_000, False)


def test_bad_context_settings_are_named_and_the_rest_kept(user_dirs, monkeypatch):
    path = user_dirs["config"] / "devagent" / "config.toml"
    path.parent.mkdir(parents=True)
    path.write_text('[context]\nclear_at = "lots"\ncompact_at = 70000\n[transcripts]\nmax_age_days = 0\n')
    monkeypatch.setenv("DEVAGENT_COMPACT_AT", "soon")
    monkeypatch.delenv("DEVAGENT_CONTEXT", raising=False)
    monkeypatch.delenv("DEVAGENT_CLEAR_AT", raising=False)
    config = AgentConfig.from_env_and_args()
    assert config.clear_at is None and config.compact_at == 70_000 and config.transcripts_max_age_days == 90
    assert "context.clear_at" in config.notice and "transcripts.max_age_days" in config.notice
    assert "DEVAGENT_COMPACT_AT" in config.notice
