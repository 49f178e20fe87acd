"""The session's own request for notes: the summary mode's close and devagent's own compaction.

It is the session's request with the ask at its end: the same system and tools, which its
thinking is bound to, but no tool use, so a reply that is only a tool call cannot lose the
notes (the ask tells the model so as well).
"""

from __future__ import annotations

import logging
from typing import Any

from agent.events import Usage
from agent.loop import claude
from agent.settings.config import AgentConfig

log = logging.getLogger("devagent.session")


def write(
    client: Any,
    config: AgentConfig,
    *,
    system: list[dict[str, Any]],
    tools: list[dict[str, Any]],
    messages: list[dict[str, Any]],
    extras: dict[str, Any],
) -> tuple[str | None, Usage | None]:
    """The notes the model wrote (None when the call failed or no text came) and the call's usage."""
    params = claude.with_extras(
        claude.request_params(config, system=system, tools=tools, messages=messages, tool_choice={"type": "none"}), extras
    )
    try:
        endpoint = client.beta.messages if "betas" in params else client.messages
        reply = endpoint.create(**params)
    except Exception as err:
        log.warning("the summary call failed [%s]", claude.error_detail(err))
        return None, None
    text = "".join(getattr(b, "text", "") for b in reply.content if getattr(b, "type", "") == "text").strip()
    return text or None, claude.call_usage(config.model, reply.usage)
