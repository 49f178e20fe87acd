"""What a turn does about a full context: says how full each request was (and when the API
compacted the conversation), and, where the API cannot compact, summarises the conversation
by itself before the turn goes on (agent.conversation.window holds the thresholds and what
requests ask of the API)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from agent import prompts
from agent.conversation.window import Keeper, fresh_start, summary_request
from agent.events import Compacted, ContextStatus, Notice

if TYPE_CHECKING:
    from agent.conversation.history import History
    from agent.loop.stream import Reply
    from agent.loop.turn import TurnState

log = logging.getLogger("devagent.session")


SUMMARISING = "The conversation has grown long; devagent is summarising it before going on."
SUMMARISED = (
    "Claude's compaction is not available for this model, so devagent summarised the earlier "
    "conversation itself and goes on from that summary."
)
NOT_SUMMARISED = "devagent could not summarise the conversation; it goes on as it is."


def report(keeper: Keeper, turn: TurnState, reply: Reply) -> None:
    """How full the reply's request was, for the status line, and the API's compaction when it came."""
    full = keeper.observe(reply.raw_usage, reply.applied_edits)
    turn.emit(ContextStatus(turn.id, full.used, full.window, full.cleared_tool_uses, full.cleared_tokens, full.describe()))
    if reply.compaction is not None:
        log.info("turn %d: the API compacted the conversation", turn.id)
        turn.emit(Compacted(turn.id, str(reply.compaction["content"])))


def summarise(keeper: Keeper, turn: TurnState, history: History,
              write: Callable[..., str | None]) -> None:
    """Without the API's compaction: the summary mode's kind of request (`write`), then a
    fresh history that starts from its answer."""
    keeper.overflowed = False
    turn.emit(Notice(turn.id, SUMMARISING))
    ask = summary_request(history.messages, prompts.compaction_request(), keeper.limits.keep_tool_uses)
    notes = write(messages=ask)
    if not notes or turn.cancel.cancelled:
        turn.emit(Notice(turn.id, NOT_SUMMARISED))
        return
    history.restart(fresh_start(prompts.SUMMARY_LEAD, notes), turn=turn.id)
    keeper.last = None
    turn.emit(Compacted(turn.id, notes, fallback=True))
    turn.emit(Notice(turn.id, SUMMARISED))
