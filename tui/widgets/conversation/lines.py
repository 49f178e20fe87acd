"""The conversation's lines other than the reply: the user's turn, the app's notices, the
thinking line and one line per tool call (the last two spin while they run)."""

from __future__ import annotations

import time
from typing import Any

from rich.text import Text
from textual.message import Message
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Static

from agent.tool_outcome import ToolOutcome, outcome_of
from tui import format as fmt
from tui.outcomes import OUTCOME_MARKS

# quarter circles: drawn by every common monospace font, braille is not
SPINNER = "◐◓◑◒"
# While a question waits for the session to load, the spinner and the status clock move
# once a second: ten redraws a second on the app's thread slowed the load (it shares the
# interpreter) by a quarter on a small machine.
LOADING_FRAME_SECONDS = 1.0

# a user turn longer than this (a pasted log, say) shows its first lines and a count
USER_TURN_LINES = 12
USER_TURN_SHOWN = 6


class UserTurn(Static):
    def __init__(self, text: str) -> None:
        lines = fmt.sanitize(text).split("\n")
        shown = Text("\n".join(lines if len(lines) <= USER_TURN_LINES else lines[:USER_TURN_SHOWN]))
        if len(lines) > USER_TURN_LINES:
            shown.append(f"\n… {len(lines) - USER_TURN_SHOWN} more lines (sent in full)", "dim italic")
        super().__init__(shown, classes="user-turn")
        self.text = text


class Notice(Static):
    """A line the app adds itself: an error, a cancelled turn, how to set the API key."""

    def __init__(self, text: str, kind: str = "info") -> None:
        super().__init__(Text(fmt.sanitize(text)), classes=f"notice -{kind}")
        self.kind = kind


class ProgressNote(Static):
    """What the model says it is doing between tool calls: dimmed, apart from the answer."""

    def __init__(self, text: str) -> None:
        super().__init__(Text(f"… {fmt.sanitize(text)}"), classes="progress")
        self.text = text


class _Spinning(Widget):
    """A one-line widget that redraws itself while something runs.

    It renders rather than updates: an update may change a widget's size, so it lays out
    the whole screen, ten times a second per spinner.
    """

    DEFAULT_CSS = """
    _Spinning { height: 1; }
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.started = time.monotonic()
        self._timer: Timer | None = None
        self._drawn_at = 0.0

    def on_mount(self) -> None:
        self._timer = self.set_interval(0.1, self._tick)
        self._tick()

    def _tick(self) -> None:
        typing_now = getattr(self.parent, "typing_now", None)
        if typing_now is not None and typing_now():
            return  # still while the user types: a redraw would hold up their key
        now = time.monotonic()
        if getattr(self.parent, "session_loading", False) and now - self._drawn_at < LOADING_FRAME_SECONDS:
            return  # the session is loading: the app's thread leaves it the interpreter
        self._drawn_at = now
        self.refresh()

    def render(self) -> Text:
        return self.line()

    def stop_spinning(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        self.refresh()

    def spinner(self) -> str:
        return SPINNER[int((time.monotonic() - self.started) * 8) % len(SPINNER)]

    def line(self) -> Text:  # pragma: no cover - overridden
        raise NotImplementedError


class ThinkingLine(_Spinning):
    def __init__(self) -> None:
        super().__init__(classes="thinking")
        self.label = "thinking"  # or what the turn still waits for: "waiting for the Claude SDK"

    def line(self) -> Text:
        elapsed = time.monotonic() - self.started
        return Text.assemble((self.spinner(), "bold"), f" {self.label} ", (fmt.duration(elapsed), "dim"))


class ToolLine(_Spinning):
    """`◐ build  MyApp.sln  2.1s`, then `✓ build  MyApp.sln → 2 errors  4.3s  ⏎ log`.

    Not a focus stop of its own: Tab would stop at every tool call of the session on its way
    to the side panes. The conversation picks one with the arrows (`-picked`) and Enter
    opens its log; a click opens it too."""

    class LogRequested(Message):
        def __init__(self, line: ToolLine) -> None:
            super().__init__()
            self.line = line

    def __init__(self, tool_id: str, name: str, summary: str) -> None:
        super().__init__(classes="tool-line -running")
        self.tool_id = tool_id
        self.tool_name = fmt.sanitize(name)
        self.input_summary = fmt.sanitize(summary)
        self.finished: tuple[float, bool, str] | None = None  # duration, is_error, summary
        self.outcome = ToolOutcome.OK  # how it ended, once finished
        self.tool_log: str | None = None
        self.cancelled = False

    def finish(self, duration: float, is_error: bool, summary: str, log: str | None, outcome: str = "") -> None:
        self.finished = (duration, is_error, fmt.sanitize(summary))
        self.outcome = outcome_of(outcome, is_error)
        self.tool_log = log
        self.remove_class("-running")
        self.add_class("-error" if is_error else "-ok")
        self.add_class(f"-outcome-{self.outcome}")
        if log:
            self.add_class("-has-log")
        self.stop_spinning()

    def cancel(self) -> None:
        self.cancelled = True
        self.remove_class("-running")
        self.add_class("-cancelled")
        self.stop_spinning()

    def line(self) -> Text:
        width = max(20, self.content_size.width or 58)
        head = Text()
        colour = ""
        if self.finished is None and not self.cancelled:
            head.append(self.spinner(), "bold")
        else:
            shown = OUTCOME_MARKS[ToolOutcome.CANCELLED if self.finished is None else self.outcome]
            colour = shown.colour
            head.append(shown.mark, shown.style)
        head.append(f" {self.tool_name}", "bold")
        # what must stay visible: mark, name, outcome, time; the input gets what is left
        timing = Text()
        result = ""
        if self.finished is not None:
            duration, is_error, result = self.finished
            timing.append(f"  {fmt.duration(duration)}", "dim")
            if self.tool_log:
                timing.append("  ⏎ log", "dim italic")
        elif self.cancelled:
            timing.append("  cancelled", "dim")
        else:
            timing.append(f"  {fmt.duration(time.monotonic() - self.started)}", "dim")
        room = width - head.cell_len - timing.cell_len
        outcome = Text()
        if result:
            outcome.append(" → ", "dim")
            outcome.append(fmt.one_line(result, max(8, room - 3)), colour)
        room -= outcome.cell_len
        line = head
        if self.input_summary and room >= 10:
            line.append("  ")
            line.append(fmt.one_line(self.input_summary, room - 2), "italic dim")
        line.append_text(outcome)
        line.append_text(timing)
        line.truncate(width, overflow="ellipsis")
        return line

    def action_open_log(self) -> None:
        if self.tool_log:
            self.post_message(self.LogRequested(self))

    def on_click(self) -> None:
        self.action_open_log()
