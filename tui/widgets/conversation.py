"""The conversation pane: the user's turns, streamed replies, one line per tool call."""

from __future__ import annotations

import asyncio
import importlib
import time
from typing import Any

from rich.text import Text
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.geometry import Size
from textual.message import Message
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Static

from agent.tool_outcome import ToolOutcome, outcome_of
from tui import format as fmt
from tui.blocks import cut_point
from tui.outcomes import OUTCOME_MARKS
from tui.widgets.plain_reply import REPLY_MODULE, PlainReply, markdown_ready

# quarter circles: drawn by every common monospace font, braille is not
SPINNER = "◐◓◑◒"
# While a question waits for the session to load, the spinner and the status clock move
# once a second: ten redraws a second on the app's thread slowed the load (it shares the
# interpreter) by a quarter on a small machine.
LOADING_FRAME_SECONDS = 1.0

# how often streamed text is written into the reply
FLUSH_SECONDS = 0.2
# Writing reply text lays the screen out again, tens of milliseconds on a small machine:
# a key pressed meanwhile would wait for it. So while the user types, streamed text waits
# for a pause this long, however long the typing goes on (the status line says how much
# is waiting), and then catches up a slice at a time, stopping when typing starts again.
TYPING_HOLD_SECONDS = 0.3
CATCH_UP_CHARS = 1500


# Turns the pane keeps. Each is a handful of widgets with their drawn lines, kept for as
# long as the app runs, and every layout of the pane walks them all: after this many the
# oldest goes with each new one (the session's transcript keeps the whole conversation).
MAX_SHOWN_TURNS = 100

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


def _is_reply(widget: object) -> bool:
    return getattr(widget, "is_reply", False)


def __getattr__(name: str) -> Any:
    # Reply lives in tui.widgets.reply, imported only when needed (see there)
    if name == "Reply":
        from tui.widgets import reply

        return getattr(reply, name)
    raise AttributeError(name)


class Notice(Static):
    """A line the app adds itself: an error, a cancelled turn, how to set the API key."""

    def __init__(self, text: str, kind: str = "info") -> None:
        super().__init__(Text(fmt.sanitize(text)), classes=f"notice -{kind}")
        self.kind = kind


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
    """`◐ build  MyApp.sln  2.1s`, then `✓ build  MyApp.sln → 2 errors  4.3s  ⏎ log`."""

    can_focus = True
    BINDINGS = [Binding("enter", "open_log", "Open log", show=True)]

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


class Conversation(VerticalScroll):
    """Append-only view of the session; the app feeds it one event at a time.

    It follows the newest output while the user is at the bottom: whenever what it holds
    grows (a reply streams, a block renders late, the pane gets shorter), it scrolls to
    the end after the layout, so the last line is never left below the fold. Scrolling
    up stops that and shows "new output below" when more arrives; getting back to the
    bottom (scrolling, End, Ctrl+End) follows again.
    """

    # A long session is hundreds of widgets, each full width and as tall as its content:
    # the stream layout places them without the vertical layout's work per child, and
    # keeps the places of those before the one that changed.
    DEFAULT_CSS = """
    Conversation { layout: stream; }
    """
    BINDINGS = [Binding("end", "follow", "Newest", show=False)]

    HINT = "▼ new output below · Ctrl+End or PgDn"

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._reply: Any = None  # the Reply piece being written
        self._piece_text = ""  # the text written to it so far
        self._to_write: list[str] = []
        self._replying = False  # reply text has started since the last end_text
        self._writer: asyncio.Task | None = None
        self._thinking: ThinkingLine | None = None
        self._tools: dict[str, ToolLine] = {}
        self.reply_text = ""  # everything streamed in the current turn, for tests and voice
        self._unwritten: list[str] = []
        self._flush_timer: Timer | None = None
        self._typed_at = 0.0
        self._catching_up = False  # the writer works through held text in slices
        self.session_loading = False  # a turn waits for the session to load (spinners slow down)
        self._importing: asyncio.Task[None] | None = None  # Markdown, for a plain first piece
        self._converting = asyncio.Lock()  # the plain first piece into Markdown
        self.following = True
        self.forgotten = 0  # the oldest turns no longer shown
        self._forgotten_notice: Notice | None = None

    def watch_scroll_y(self, old: float, new: float) -> None:
        super().watch_scroll_y(old, new)
        if new >= self.max_scroll_y - 1:
            self._set_following(True)
        elif new < old:
            # only a move up means the user went to read; the end moving away does not
            self._set_following(False)

    def watch_virtual_size(self, old: Size, new: Size) -> None:
        if self.following:
            # after this layout pass, so the end is where the new content put it
            self.call_next(self._to_end)
        elif new.height > old.height:
            self.border_subtitle = self.HINT

    def on_resize(self) -> None:
        if self.following:
            self.call_next(self._to_end)

    def _to_end(self) -> None:
        if self.following:
            self.scroll_end(animate=False, immediate=True)

    def _set_following(self, following: bool) -> None:
        self.following = following
        if following and self.border_subtitle:
            self.border_subtitle = ""  # the hint: nothing new is below any more

    def action_follow(self) -> None:
        """End: the real end, however much is still arriving, and follow from there."""
        self._set_following(True)
        self.scroll_end(animate=False, immediate=True)

    async def _add(self, widget: Widget) -> None:
        last = self.children[-1] if self.children else None
        if not _is_reply(last):
            # a reply ends with its own blank line; anything else needs one put before
            widget.add_class("-spaced")
        # a run of tool lines sits apart from the reply text around it
        if isinstance(widget, ToolLine) and not isinstance(last, ToolLine):
            widget.add_class("-first")
        if _is_reply(widget) and isinstance(last, ToolLine):
            widget.add_class("-after-tools")
        await self.mount(widget)

    async def add_user(self, text: str) -> None:
        await self.end_text()
        self.reply_text = ""
        await self._add(UserTurn(text))
        await self._forget_oldest()

    async def _forget_oldest(self) -> None:
        """Past MAX_SHOWN_TURNS, the oldest turn goes, and one line where it was says so."""
        children = list(self.children)
        turns = [index for index, child in enumerate(children) if isinstance(child, UserTurn)]
        over = len(turns) - MAX_SHOWN_TURNS
        if over <= 0:
            return
        keep_from = children[turns[over]]
        gone = children[turns[0]:turns[over]]
        self.forgotten += over
        await self.remove_children(gone)
        said = (f"The first {self.forgotten} turns are no longer shown here; the session's "
                "transcript keeps the whole conversation.")
        if self._forgotten_notice is None:
            self._forgotten_notice = Notice(said)
            self._forgotten_notice.add_class("-spaced")
            await self.mount(self._forgotten_notice, before=keep_from)
        else:
            self._forgotten_notice.update(Text(said))

    async def add_notice(self, text: str, kind: str = "info") -> Notice:
        await self.end_text()
        notice = Notice(text, kind)
        await self._add(notice)
        return notice

    async def thinking(self) -> None:
        if self._thinking is None:
            self._thinking = ThinkingLine()
            await self._add(self._thinking)

    def set_waiting(self, what: str | None) -> None:
        """Say on the thinking line what the turn still waits for (None: the model itself)."""
        self.session_loading = what is not None
        if self._thinking is not None:
            self._thinking.label = f"waiting for {what}" if what else "thinking"

    async def _stop_thinking(self) -> None:
        if self._thinking is not None:
            thinking, self._thinking = self._thinking, None
            await thinking.remove()

    async def add_text(self, delta: str) -> None:
        delta = fmt.sanitize(delta)
        await self._stop_thinking()
        if not self._replying:
            # the first words show at once; after that the text lands a few times a second
            self._replying = True
            self.reply_text += delta
            self._write(delta)
            await self._wait_written()
            return
        self.reply_text += delta
        self._unwritten.append(delta)
        if self._flush_timer is None:
            self._flush_timer = self.set_timer(FLUSH_SECONDS, self._flush)

    def typing(self) -> None:
        """The user pressed a key: hold streamed text back until they pause."""
        self._typed_at = time.monotonic()

    def typing_now(self) -> bool:
        """Whether the user is typing (a key within the hold): the reply and the status
        line keep still."""
        return time.monotonic() - self._typed_at < TYPING_HOLD_SECONDS

    @property
    def held_chars(self) -> int:
        """Reply text received but held back while the user types (the status line shows it)."""
        return sum(map(len, self._unwritten)) + (sum(map(len, self._to_write)) if self._catching_up else 0)

    async def _flush(self, force: bool = False) -> None:
        # Every write grows the reply, which lays out and repaints the whole pane; doing
        # that per delta would keep the UI busy and make typed keys wait behind it.
        self._flush_timer = None
        if not force and self._unwritten and self.typing_now():
            self._flush_timer = self.set_timer(FLUSH_SECONDS, self._flush)
            return
        if self._unwritten and self._replying:
            text, self._unwritten = "".join(self._unwritten), []
            self._write(text, catch_up=not force)

    def _write(self, text: str, catch_up: bool = False) -> None:
        # A task of its own writes, so that the app goes on handling keys while the
        # new blocks mount (the event that brought the text does not wait for them).
        self._to_write.append(text)
        self._catching_up = catch_up and (self._catching_up or self._writer is None)
        if self._writer is None:
            self._writer = asyncio.create_task(self._drain())

    async def _drain(self) -> None:
        try:
            while self._to_write:
                text, self._to_write = "".join(self._to_write), []
                if self._catching_up and len(text) > CATCH_UP_CHARS:
                    text, rest = text[:CATCH_UP_CHARS], text[CATCH_UP_CHARS:]
                    self._to_write.insert(0, rest)
                await self._write_now(text)
                if self._catching_up and self._to_write:
                    # let the screen catch up, and any key in, before the next slice
                    await asyncio.sleep(FLUSH_SECONDS / 4)
                    if self.typing_now() and self._catching_up:
                        # typing again: the rest waits for the next pause
                        self._unwritten[:0] = self._to_write
                        self._to_write = []
                        if self._flush_timer is None:
                            self._flush_timer = self.set_timer(FLUSH_SECONDS, self._flush)
        finally:
            self._writer = None
            self._catching_up = False

    def _markdown_soon(self) -> None:
        """Import Markdown off the UI thread; then the writer turns the plain piece into it."""

        async def imported() -> None:
            await asyncio.to_thread(importlib.import_module, REPLY_MODULE)
            if isinstance(self._reply, PlainReply):
                self._write("")

        self._importing = asyncio.create_task(imported())

    async def _to_markdown(self, reply: Any) -> None:
        # once only: the writer (woken by the import) and the end of the text (a tool call
        # coming) can both get here while the piece is still plain
        async with self._converting:
            plain = self._reply
            if not isinstance(plain, PlainReply):
                return  # the other one did it
            piece = reply.Reply(classes=" ".join(plain.classes))  # -spaced, -after-tools as placed
            await self.mount(piece, after=plain)
            await piece.update(plain.source)
            await plain.remove()
            self._reply = piece

    async def _wait_written(self) -> None:
        while self._writer is not None:
            await asyncio.shield(self._writer)

    async def _write_now(self, text: str) -> None:
        """Reply text to the open piece; once it has gathered enough, the piece ends at the
        last safe cut and a new one takes the rest."""
        pending = self._piece_text + text
        reply = markdown_ready()
        if reply is None:
            # Markdown is still being imported (a question asked at launch): the first
            # words show as plain text, and the piece becomes Markdown once it is here
            if self._reply is None:
                self._reply = PlainReply(classes="reply")
                await self._add(self._reply)
                # once these words are drawn: the import would share the interpreter
                self.call_after_refresh(self._markdown_soon)
            await self._reply.append(pending[len(self._piece_text):])
            self._piece_text = pending
            return
        if isinstance(self._reply, PlainReply):
            await self._to_markdown(reply)
        cut = cut_point(pending) if len(pending) >= reply.PIECE_CHARS else 0
        if cut and self._reply is not None:
            piece = self._reply
            if cut >= len(self._piece_text):
                await piece.write(pending[len(self._piece_text):cut])
                await piece.seal()
            else:
                # the piece already shows the start of the next one: it is drawn again
                # without it (a piece is a few paragraphs, so this is cheap)
                await piece.settle()
                await piece.update(pending[:cut])
                await piece.seal()
            self._reply, self._piece_text, pending = None, "", pending[cut:]
        if not pending:
            return
        if self._reply is None:
            self._reply = reply.Reply(classes="reply")
            await self._add(self._reply)
        await self._reply.write(pending[len(self._piece_text):])
        self._piece_text = pending

    async def end_text(self) -> None:
        """Flush the reply being streamed, so what follows lands below it."""
        if self._flush_timer is not None:
            self._flush_timer.stop()
        await self._flush(force=True)
        await self._wait_written()
        if isinstance(self._reply, PlainReply):
            await self._to_markdown(await asyncio.to_thread(importlib.import_module, REPLY_MODULE))
            await self._wait_written()  # a write the import woke meanwhile ends first
        if self._reply is not None:
            await self._reply.seal()
        self._reply, self._piece_text, self._replying = None, "", False

    async def tool_started(self, tool_id: str, name: str, summary: str) -> None:
        await self.end_text()
        await self._stop_thinking()
        line = ToolLine(tool_id, name, summary)
        self._tools[tool_id] = line
        await self._add(line)

    def tool_finished(
        self, tool_id: str, duration: float, is_error: bool, summary: str, log: str | None, outcome: str = ""
    ) -> ToolLine | None:
        line = self._tools.pop(tool_id, None)
        if line is not None:
            line.finish(duration, is_error, summary, log, outcome)
        return line

    async def end_turn(self) -> None:
        """The turn is over (finished or cancelled): stop every spinner it left."""
        await self.end_text()
        await self._stop_thinking()
        for line in self._tools.values():
            line.cancel()
        self._tools.clear()

    def tool_lines(self) -> list[ToolLine]:
        return list(self.query(ToolLine))
