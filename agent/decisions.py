"""The user's answers to the questions a turn waits on: a held code change, trusting the repository, a command.

The turn asks through the session's one `Decisions` mailbox: the question is opened under
an id, its event shows it (carrying only data and that id), and the turn's thread waits
here. Whoever showed it hands the answer down as a `Decision` naming the id, from any
thread; nothing of the question rides back up to be called. An answer for a question that
no longer waits (answered already, its turn cancelled or taken back) is dropped, so a
late key press can never decide the next question.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from agent.cancel import Cancellation
from agent.events import Sink


@dataclass(frozen=True)
class Decision:
    about: str  # the id of the question: a change set's, a trust request's, a command's
    yes: bool  # apply the change; trust the repository; run the command
    why: str = ""  # what the model hears of a "no" that was not the user's own (devagent ask)
    # A command's yes (agent.command_consent): the text as the user left it, when they
    # edited it; whether to run it without asking from now on; whether it has the network.
    edited: str | None = None
    always: bool = False
    network: bool = False


class Decisions:
    """The questions a session's turn waits on, and their answers as they come."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._open: dict[str, Decision | None] = {}  # a question asked, and its answer once given

    def ask(self, about: str, show: Callable[[], None], cancelled: Callable[[], bool],
            poll: float = 0.1) -> Decision | None:
        """Opens the question `about`, shows it (`show` emits its event: an answer may come
        back inside it) and waits for the answer; None when the turn was cancelled first.
        The question is closed however this ends."""
        with self._changed:
            if about in self._open:
                raise ValueError(f"the question {about!r} is asked already")
            self._open[about] = None
        try:
            show()
            with self._changed:
                while (answer := self._open[about]) is None:
                    if cancelled():
                        return None
                    self._changed.wait(poll)
                return answer
        finally:
            with self._changed:
                del self._open[about]

    def post(self, decision: Decision) -> bool:
        """Hands `decision` to the turn waiting on its question, from any thread; False, and
        dropped, when that question is not waiting."""
        with self._changed:
            if self._open.get(decision.about, decision) is not None:
                return False
            self._open[decision.about] = decision
            self._changed.notify_all()
            return True

    def waiting(self, about: str) -> bool:
        """Whether the question `about` is open and unanswered."""
        with self._changed:
            return about in self._open and self._open[about] is None


class AskingTurn(Protocol):
    """What asking needs of the turn (agent.loop.turn.TurnState): its id, where its events go,
    its cancel and the mailbox."""

    @property
    def id(self) -> int: ...

    @property
    def emit(self) -> Sink: ...

    @property
    def cancel(self) -> Cancellation: ...

    @property
    def decisions(self) -> Decisions: ...
