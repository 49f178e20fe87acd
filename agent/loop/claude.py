"""The SDK client and the shape of a Messages request.

Everything that knows the SDK's names lives here, so the loop in session.py reads as a
conversation and not as parameter plumbing.
"""

from __future__ import annotations

import copy
import logging
import os
import random
from dataclasses import dataclass
from typing import Any

import anthropic
import httpx2

from agent.events import Usage
from agent.settings import claude_models
from agent.settings.config import AgentConfig

CACHE = {"type": "ephemeral"}
WARM_TIMEOUT = 10.0  # seconds a connection opened ahead of a turn may take


@dataclass(frozen=True)
class Price:
    """US dollars per million tokens; cache writes are the five-minute kind the session uses."""

    input: float
    output: float
    cache_write: float
    cache_read: float


def _usual(input: float, output: float) -> Price:
    """The usual rule: a cache write costs 1.25x input, a cache read 0.1x input."""
    return Price(input, output, input * 1.25, input * 0.1)


# Source: Anthropic's pricing page and model overview pages
# (platform.claude.com/docs/en/about-claude/pricing, .../models/haiku-5-5/overview,
# .../models/sonnet-5-5/overview), as published in November 2026. Check them when a model or
# a price changes.
PRICES = {
    "claude-haiku-5-5": _usual(0.10, 0.50),
    # Cache reads cut to 0.05x input on 2026-10-07.
    "claude-sonnet-5-5": Price(2.0, 10.0, 2.50, 0.10),
}
# Haiku 5.5 bills every token of a request 5x once its prompt (input, cache reads and cache
# writes together) is over 100,000 tokens.
LONG_PROMPT = {"claude-haiku-5-5": (100_000, 5.0)}
# Any other id, by family: the Haiku 4.5, Sonnet 4.x and Opus 4.5 to 5 prices.
FAMILY_PRICES = {
    "haiku": _usual(1.0, 5.0),
    "sonnet": _usual(3.0, 15.0),
    "opus": _usual(5.0, 25.0),
}


# The SDK's own limits, but an idle connection is kept for longer than its 5 s: the app opens
# one when a spoken question starts (Session.prepare_turn), and a question with its
# transcription can take longer than that. A connection the server has closed meanwhile is
# not reused (the pool sees it is readable) and a failed send is retried (session.py).
CONNECTION_LIMITS = httpx2.Limits(max_connections=1000, max_keepalive_connections=100, keepalive_expiry=45.0)


def make_client(config: AgentConfig) -> anthropic.Anthropic:
    """A client that honours ANTHROPIC_BASE_URL and retries 429, 529 and 5xx with backoff."""
    # The key is passed explicitly: without it the SDK goes looking for profile credentials.
    api_key = os.environ.get("ANTHROPIC_API_KEY") or None
    auth_token = None if api_key else (os.environ.get("ANTHROPIC_AUTH_TOKEN") or None)
    base_url = os.environ.get("ANTHROPIC_BASE_URL") or None
    # The SDK's own retries serve one-off calls (the summary, token counts); the streamed
    # loop turns them off per call and retries itself, see retry_delay.
    from agent.loop.wire import listen

    timeout = anthropic.Timeout(config.request_timeout, connect=10.0)
    return anthropic.Anthropic(
        api_key=api_key,
        auth_token=auth_token,
        base_url=base_url,
        timeout=timeout,
        max_retries=config.max_retries,
        # Every piece of a reply's body is heard, pings included (agent.loop.wire).
        http_client=anthropic.DefaultHttpxClient(timeout=timeout, event_hooks={"response": [listen]},
                                                 limits=CONNECTION_LIMITS),
    )


def warm_connection(client: anthropic.Anthropic) -> None:
    """Open the connection the client's next request will go out on (TCP and TLS) with the
    cheapest call there is, the model list: for a question still being spoken. Any thread;
    never raises (the turn itself reports a connection that fails)."""
    try:
        client.models.list(limit=1, timeout=WARM_TIMEOUT)
    except Exception as err:
        logging.getLogger("devagent.session").debug("warming the connection failed: %s", err)


def request_params(
    config: AgentConfig,
    *,
    system: list[dict[str, Any]],
    tools: list[dict[str, Any]],
    messages: list[dict[str, Any]],
    tool_choice: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The keyword arguments of one messages call, built from the model's entry in
    agent.settings.claude_models: thinking and effort only as the model takes them, and the model's whole
    output budget when the reply may call a tool (`max_tokens` bounds a reply in words only).

    `tool_choice` {"type": "none"} keeps the tools in the request (they are part of what
    earlier thinking is bound to) while the reply must be text.

    Cache breakpoints: the last tool and each system block (the stable prefix, and the
    session's own start such as preloaded memory), plus the newest message, so each call of
    a tool loop reads the conversation so far from the cache. The markers go on copies: the
    history itself never changes.
    """
    tools = as_sent(tools)
    if tools:
        tools[-1]["cache_control"] = CACHE
    system = [dict(block, cache_control=CACHE) for block in system if block.get("text")]
    messages = _mark_last_message(messages)
    model = claude_models.lookup(config.model)
    budget = min(config.max_tokens, model.max_output)
    if tools and (tool_choice or {}).get("type") != "none":
        # A tool input must arrive whole: one cut by max_tokens cannot run, and a file the
        # model writes can be long. The model's own maximum, as "Handling stop reasons"
        # advises for max_tokens ("raise max_tokens"); output is billed as written, not as allowed.
        budget = model.max_output
    params: dict[str, Any] = {
        "model": config.model,
        "max_tokens": budget,
        "system": system,
        "messages": messages,
    }
    if model.effort and config.effort in model.efforts:
        params["output_config"] = {"effort": config.effort}
    if tools:
        params["tools"] = tools
        if tool_choice is not None:
            params["tool_choice"] = tool_choice
    thinking = claude_models.thinking_param(model, config.thinking, config.effort)
    if thinking is not None:
        params["thinking"] = thinking
        betas = claude_models.betas_for(thinking)
        if betas:
            params["betas"] = betas
    return params


def with_extras(params: dict[str, Any], extras: dict[str, Any]) -> dict[str, Any]:
    """`params` with what context management adds (agent.conversation.window), the beta headers of
    both kept."""
    merged = {**params, **extras}
    betas = [*params.get("betas", []), *(b for b in extras.get("betas", []) if b not in params.get("betas", []))]
    if betas:
        merged["betas"] = betas
    return merged


def as_sent(tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The tool definitions as a request carries them (and as thinking is bound to them).

    Fine-grained tool streaming ("Fine-grained tool streaming": `eager_input_streaming` on a
    user-defined tool): its input comes as it is written, not held back and sent whole. The
    tools of Anthropic's own schema (memory, text editor) take no such field.
    """
    return [dict(t, eager_input_streaming=True) if t.get("type") in (None, "custom") else dict(t) for t in tools]


def _mark_last_message(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    if not messages:
        return messages
    last = copy.deepcopy(messages[-1])
    content = last.get("content")
    if isinstance(content, str):
        content = [{"type": "text", "text": content}]
    # Thinking blocks cannot carry cache_control; the newest message is a user turn anyway.
    for block in reversed(content or []):
        if block.get("type") in ("text", "tool_result", "tool_use", "image", "document"):
            block["cache_control"] = CACHE
            break
    last["content"] = content
    return [*messages[:-1], last]


def price(model: str, prompt_tokens: int = 0) -> Price:
    """What `model` charges for a request whose prompt holds `prompt_tokens` tokens."""
    lowered = model.lower()
    base = next((value for name, value in PRICES.items() if lowered.startswith(name)), None)
    if base is None:
        base = next((value for family, value in FAMILY_PRICES.items() if family in lowered), FAMILY_PRICES["sonnet"])
    for name, (threshold, factor) in LONG_PROMPT.items():
        if lowered.startswith(name) and prompt_tokens > threshold:
            return Price(base.input * factor, base.output * factor, base.cache_write * factor, base.cache_read * factor)
    return base


def call_usage(model: str, usage: Any) -> Usage:
    """Token counts of one API call and what they cost."""
    input_tokens = int(getattr(usage, "input_tokens", 0) or 0)
    output_tokens = int(getattr(usage, "output_tokens", 0) or 0)
    cache_read = int(getattr(usage, "cache_read_input_tokens", 0) or 0)
    cache_write = int(getattr(usage, "cache_creation_input_tokens", 0) or 0)
    rate = price(model, input_tokens + cache_read + cache_write)
    cost = (
        input_tokens * rate.input
        + cache_write * rate.cache_write
        + cache_read * rate.cache_read
        + output_tokens * rate.output
    ) / 1_000_000
    return Usage(
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        cache_read_tokens=cache_read,
        cache_write_tokens=cache_write,
        api_calls=1,
        cost_usd=cost,
    )


TRANSIENT_ERRORS = ("overloaded_error", "api_error", "rate_limit_error", "timeout_error")
RETRY_FIRST_DELAY = 0.5
RETRY_MAX_DELAY = 8.0
# A server asking for a longer wait than this is not worth holding a spoken turn for.
RETRY_AFTER_LIMIT = 60.0


class StreamDropped(Exception):
    """The connection closed before the reply's stream ended."""


def retry_delay(err: BaseException, attempt: int) -> float | None:
    """Seconds to wait before trying `err`'s call again (attempt 0 is the first retry), or
    None when it is not worth retrying: the SDK's policy (408, 409, 429, 5xx, 529, lost
    connections, `x-should-retry`, `retry-after`), plus an overload reported inside a stream
    and a stream that dropped before the user saw any of it.

    The session retries itself rather than leaving it to the SDK so that a cancel also
    interrupts the wait between attempts.
    """
    if isinstance(err, anthropic.APIStatusError):
        headers = err.response.headers if err.response is not None else {}
        should = headers.get("x-should-retry")
        if should == "false":
            return None
        status = err.status_code
        if status == 200:
            if _api_type(err) not in TRANSIENT_ERRORS:
                return None
        elif should != "true" and not (status in (408, 409, 429) or status >= 500):
            return None
        after = _retry_after(headers)
        if after is not None and 0 < after <= RETRY_AFTER_LIMIT:
            return after
    elif not isinstance(err, (anthropic.APIConnectionError, StreamDropped)):
        return None
    return min(RETRY_FIRST_DELAY * 2.0**attempt, RETRY_MAX_DELAY) * (1 - 0.25 * random.random())


def is_refusal(err: BaseException) -> bool:
    """The API refused the request itself (400, 413, 422...): sending it again would fail
    again, so whatever this turn added must not go out with the next one. Not a key, a
    permission, a model name or a rate: those are not in the conversation."""
    if not isinstance(err, anthropic.APIStatusError):
        return False
    return 400 <= err.status_code < 500 and err.status_code not in (401, 403, 404, 408, 409, 429)


def _retry_after(headers: Any) -> float | None:
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is None:
            continue
        try:
            return float(value) * scale
        except ValueError:
            return None
    return None


def describe_api_error(err: BaseException) -> str:
    """A sentence for the user; a status error keeps the API's own message word for word."""
    if isinstance(err, anthropic.AuthenticationError):
        return (
            f"Claude refused the API key ({_api_message(err)}): check ANTHROPIC_API_KEY "
            "and start again."
        )
    if isinstance(err, anthropic.APIStatusError) and err.status_code == 200:
        # An error event inside a stream that had started well.
        kind = _api_type(err) or "error"
        return f"Claude stopped in the middle of the reply ({kind}): {_api_message(err)}. Ask again."
    if isinstance(err, anthropic.APIStatusError):
        kind = _api_type(err)
        label = f"{err.status_code} {kind}" if kind else str(err.status_code)
        return f"Claude API error {label}: {_api_message(err)}"
    if isinstance(err, anthropic.APITimeoutError):
        return "Claude did not answer in time; the turn was stopped. Ask again."
    if isinstance(err, anthropic.APIConnectionError):
        base = os.environ.get("ANTHROPIC_BASE_URL") or "the Anthropic API"
        return f"Could not reach {base}; check the network and ask again."
    return f"The reply failed: {err}"


def error_detail(err: BaseException | None) -> str:
    """One line for the log: the exception's kind, the API's status, error type and request
    id, its message, and what caused it. Never the request, its headers or its key."""
    if err is None:
        return "no exception"
    parts = [type(err).__name__]
    if isinstance(err, anthropic.APIStatusError):
        parts.append(f"status {err.status_code}")
        kind = _api_type(err)
        if kind:
            parts.append(kind)
        request_id = err.response.headers.get("request-id") if err.response is not None else None
        if request_id:
            parts.append(f"request-id {request_id}")
        parts.append(_api_message(err)[:500])
    else:
        parts.append(str(err)[:500])
    said = {str(err)}
    seen = err.__cause__ or err.__context__
    while seen is not None and len(parts) < 12:
        name = f"{type(seen).__module__}.{type(seen).__name__}"
        # A chain of wrappers often repeats one message: say it once.
        parts.append(f"caused by {name}" if str(seen) in said else f"caused by {name}: {str(seen)[:200]}")
        said.add(str(seen))
        seen = seen.__cause__ or seen.__context__
    return "; ".join(p for p in parts if p)


def _api_message(err: anthropic.APIStatusError) -> str:
    body = err.body
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and inner.get("message"):
            return str(inner["message"])
    return str(err.message)


def _api_type(err: anthropic.APIStatusError) -> str:
    body = err.body
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        return str(body["error"].get("type") or "")
    return ""
