"""The heap tidied between turns, once the user pauses typing (agent.heap)."""

from __future__ import annotations

from functools import partial

from agent.heap import collect_at_pause, trim_soon
from tui.widgets.conversation.pane import TYPING_HOLD_SECONDS, Conversation


def tidy_heap(conversation: Conversation) -> None:
    """Between turns, once the user pauses typing: the full collection that waited for a
    pause, then what the turn's threads freed goes back to the system (see agent.heap).
    The wait is a timer of the conversation's, which ends with it: a quit while the user
    types leaves nothing to go off in an app that has closed."""
    if conversation.typing_now():
        conversation.set_timer(TYPING_HOLD_SECONDS, partial(tidy_heap, conversation))
        return
    collect_at_pause()
    trim_soon()
