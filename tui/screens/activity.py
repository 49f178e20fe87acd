"""The status line's word for what a running turn does (`● working 12s`), and its clock."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from textual.timer import Timer

from tui import format as fmt
from tui.widgets.conversation.lines import LOADING_FRAME_SECONDS

if TYPE_CHECKING:
    from tui.turns.driver import TurnDriver
    from tui.widgets.conversation.pane import Conversation
    from tui.widgets.status import StatusLine


class ActivityClock:
    """Ticks four times a second while a turn runs, and only then. It reads the turn's
    state from the driver and writes the status line and the conversation's waiting line;
    its timer is the status line's, so it goes with the screen."""

    def __init__(self, turns: TurnDriver, conversation: Conversation, status: StatusLine) -> None:
        self.turns = turns
        self.conversation = conversation
        self.status = status
        self._timer: Timer | None = None  # runs only while a turn does
        self._said = ""  # what the status line says the turn does, without counts
        self._said_at = 0.0  # when it last said it

    def start(self) -> None:
        self.tick_activity()  # says at once what the turn waits for, if anything
        if self._timer is None:
            self._timer = self.status.set_interval(0.25, self.tick_activity)

    def tick_activity(self) -> None:
        turns = self.turns
        if not turns.running:
            self.stop()
            return
        now = time.monotonic()
        elapsed = now - turns.started_at
        waiting = turns.waiting_for()
        conversation = self.conversation
        conversation.set_waiting(waiting)
        if waiting and self._said == f"waiting for {waiting}" and now - self._said_at < LOADING_FRAME_SECONDS:
            return  # the session is loading: once a second is enough (see LOADING_FRAME_SECONDS)
        self._said_at = now
        doing = f"waiting for {waiting}" if waiting else (turns.writing or "working")
        # text is held between writes too; it waits for the user only while they type
        held = conversation.held_chars if conversation.typing_now() else 0
        if held:
            doing = "reply waits while you type"
        if conversation.typing_now() and self._said == doing:
            # it says so already: the time and counts catch up at the pause, as a redraw
            # now would hold up the key being typed
            return
        self._said = doing
        counts = f" ({fmt.chars(held)} chars)" if held else ""
        self.status.update_info(activity=f"● {doing}{counts} {fmt.duration(elapsed)}")

    def stop(self) -> None:
        self._halt()
        self.status.update_info(activity="")

    def _halt(self) -> None:
        # a timer left running between turns wakes the idle app four times a second
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
