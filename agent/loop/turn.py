"""One turn as it runs: who hears about it, how it is stopped, what it has said and spent.

The session makes one `TurnState` a turn and hands it down the loop, the calls and the
tools, instead of the turn id, the sink, the cancellation, the reply so far and the start
time one by one.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from agent.cancel import Cancellation
from agent.decisions import Decisions
from agent.events import Event, Progress, Sink, TextDelta, ThinkingStarted, ToolInputArriving, Usage


@dataclass
class TurnState:
    id: int
    emit: Sink
    cancel: Cancellation
    # Where the user's answers to what the turn asks come down (the session's, which the app posts to).
    decisions: Decisions = field(default_factory=Decisions)
    started: float = field(default_factory=time.monotonic)
    # Every piece of text the user was shown, in order.
    reply: list[str] = field(default_factory=list)
    # What the turn's calls cost, each added once as it ends (`spend`), however it ended:
    # read where the turn is reported, never carried by an exception.
    usage: Usage = field(default_factory=Usage)
    # Tools run so far this turn (agent/loop/tool_calls.py caps them).
    tool_calls: int = 0

    def spend(self, usage: Usage) -> None:
        """A call of this turn ended, having cost `usage`."""
        self.usage = self.usage + usage

    def say(self, text: str, new_block: bool) -> None:
        """Shows words of the reply; a new text block after other output starts a paragraph."""
        if new_block and self.reply and not self.reply[-1].endswith("\n"):
            self.reply.append("\n\n")
            self.emit(TextDelta(self.id, "\n\n"))
        self.reply.append(text)
        self.emit(TextDelta(self.id, text))

    def thinking(self) -> None:
        self.emit(ThinkingStarted(self.id))

    def progress(self, text: str) -> None:
        """A progress note of the model's: shown apart from the reply, never part of it."""
        if text.strip():
            self.emit(Progress(self.id, text.strip()))

    def input_arriving(self, tool_id: str, name: str, target: str, size: int, seconds: float) -> None:
        self.emit(ToolInputArriving(self.id, tool_id, name, target, size, seconds))

    @property
    def reply_text(self) -> str:
        return "".join(self.reply)

    def elapsed(self) -> float:
        return time.monotonic() - self.started


def safe(sink: Sink) -> Sink:
    """The sink, unable to raise into the loop."""

    def emit(event: Event) -> None:
        try:
            sink(event)
        except Exception:
            # The display failing must not leave the conversation half-updated.
            pass

    return emit
