"""How a turn stops early, and what each fault of a streamed call becomes.

A call ends in one of three ways besides success: the user cancelled (`TurnCancelled`), the
call failed in a way the user hears about (`TurnFailed`, retried first when nothing of it was
shown yet), or a bug of ours (re-raised; the session reports it). `stream_fault` is the one
place that decides which, so the loop in session.py never looks at SDK or transport types.

A fault says what went wrong and what the user saw, never what was spent: every call adds
its usage to the turn as it ends (agent.loop.turn.TurnState.spend), whatever ended it.
"""

from __future__ import annotations

from typing import Any

import anthropic

from agent.loop import claude

DROPPED_MID_REPLY = "The connection to Claude dropped in the middle of the reply; the turn stopped there. Ask again."
DROPPED_BEFORE_REPLY = "The connection to Claude dropped before the reply began; the turn stopped. Ask again."
OUTPUT_LIMIT = "The reply hit the output limit and was cut short; ask for less at a time."
WINDOW_FULL = (
    "The conversation filled Claude's context window and the reply was cut short; devagent summarises "
    "the conversation before the next turn. Ask again."
)
DECLINED = "Claude declined to answer that."
UNREADABLE_EVENT = (
    "Claude's reply stream had an event that could not be read ({kind}); the turn stopped there. Ask again."
)


class StreamBroken(Exception):
    """The stream ended before message_stop, or sent something that is not an event."""


class TurnCancelled(Exception):
    """The user cancelled: `shown` is the words of the interrupted call that had reached the
    user."""

    def __init__(self, shown: str = "") -> None:
        super().__init__("the turn was cancelled")
        self.shown = shown


class TurnDeclined(Exception):
    """The model refused (`stop_reason: "refusal"`): the turn must leave the conversation,
    or the refusals go on ("Handling streaming refusals"). `explanation` is the API's own
    sentence for the user, when it sent one."""

    def __init__(self, explanation: str = "", category: str = "") -> None:
        super().__init__("the model declined")
        self.explanation = explanation
        self.category = category

    def notice(self) -> str:
        why = self.explanation.strip() or "It gave no reason."
        kind = f" ({self.category.replace('_', ' ')})" if self.category else ""
        return (
            f"Claude declined this request{kind}. {why} The exchange was taken out of the conversation, "
            "so the next question starts clean."
        )


class TurnFailed(Exception):
    """A call or a turn that cannot go on; `message` is the sentence the user gets."""

    def __init__(
        self,
        message: str,
        *,
        cause: BaseException | None = None,
        shown: str = "",
        refused: bool = False,
        error: BaseException | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        # The fault behind it when retrying the call could help (see claude.retry_delay).
        self.cause = cause
        # The words of the failed call that reached the user.
        self.shown = shown
        # The API refused the request itself: something in this turn may be the cause.
        self.refused = refused
        # What went wrong underneath, for the log.
        self.error = error



def stream_fault(err: BaseException, *, cancelled: bool, shown: str) -> BaseException | None:
    """What a fault raised while a call streamed becomes, or None for a bug of ours.

    `shown` is the words the user saw of the call. After a
    cancel everything is a cancel (closing the socket makes the read fail). Until the user
    has seen words, an API or connection fault is worth retrying: `cause` says so.
    """
    if isinstance(err, TurnCancelled):
        return err
    if cancelled:
        return TurnCancelled(shown)
    if isinstance(err, (anthropic.APIStatusError, anthropic.APIConnectionError)):
        return TurnFailed(
            claude.describe_api_error(err),
            # Once the user has seen part of the reply, a retry would say it twice.
            cause=None if shown else err,
            shown=shown,
            refused=claude.is_refusal(err),
            error=err,
        )
    if isinstance(err, StreamBroken):
        return dropped(err, shown)
    if isinstance(err, (ValueError, KeyError, AttributeError, TypeError)):
        return TurnFailed(UNREADABLE_EVENT.format(kind=type(err).__name__), shown=shown, error=err)
    if is_transport_error(err):
        return dropped(err, shown)
    return None


def dropped(err: BaseException, shown: str) -> TurnFailed:
    """A connection lost mid-stream: retried like an overload until the user has seen words."""
    if shown:
        return TurnFailed(DROPPED_MID_REPLY, shown=shown, error=err)
    return TurnFailed(DROPPED_BEFORE_REPLY, cause=claude.StreamDropped(str(err)), error=err)


def is_transport_error(err: BaseException) -> bool:
    """httpx2 transport errors (a connection reset mid-body) reach the loop unwrapped."""
    import httpx2

    seen: BaseException | None = err
    while seen is not None:
        if isinstance(seen, (httpx2.TransportError, httpx2.StreamError, ConnectionError)):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def traceback_worth_keeping(err: BaseException | None) -> Any:
    """For the log: a status error says all in its detail line; a transport or parse fault
    needs its stack."""
    if err is None or isinstance(err, anthropic.APIStatusError):
        return None
    return err
