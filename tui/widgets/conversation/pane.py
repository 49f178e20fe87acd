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
from textual.timer import Timer
from textual.widget import Widget

from tui import format as fmt
from tui.blocks import cut_point
from tui.widgets.conversation import rewound
from tui.widgets.conversation.lines import Notice, ProgressNote, ThinkingLine, ToolLine, UserTurn
from tui.widgets.conversation.plain_reply import REPLY_MODULE, PlainReply, markdown_ready

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


def _is_reply(widget: object) -> bool:
    return getattr(widget, "is_reply", False)


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
    # One focus stop, however many tool calls it holds: the arrows pick a tool line, Enter
    # opens its log, Esc (or F12 again) goes back to the prompt.
    BINDINGS = [
        Binding("end", "follow", "Newest", show=False),
        Binding("down", "pick(1)", "Tool lines", key_display="↑↓"),
        Binding("up", "pick(-1)", "Tool lines", show=False),
        Binding("enter", "open_picked", "Log", key_display="⏎"),
        Binding("escape", "app.leave_conversation", "Prompt"),
    ]

    HINT = "▼ new output below · Ctrl+End or PgDn"

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        # Reply text passes through three buffers on its way to the screen, and a fourth
        # keeps all of it. A delta lands in _held_deltas; the flush (a few times a second,
        # at the user's pause while they type) hands it to _writer_queue; the writer task
        # takes it from there into the open piece, whose source so far is _open_piece_source.
        self._reply: Any = None  # the open reply piece (a Reply, or a PlainReply before Markdown is in)
        # the source the open piece shows: a write adds only what goes past it, and a cut
        # knows whether the next piece's start is already drawn
        self._open_piece_source = ""
        # text handed to the writer task, not yet in the reply (also what the catch-up
        # after a typing pause works through in slices)
        self._writer_queue: list[str] = []
        self._replying = False  # reply text has started since the last end_text
        self._writer: asyncio.Task | None = None
        self._thinking: ThinkingLine | None = None
        self._tools: dict[str, ToolLine] = {}
        # every delta of the current turn, written or still held: copying the last reply
        # (Ctrl+G) and the tests read the whole reply from here
        self.turn_reply_text = ""
        # deltas received since the last flush: they wait for the flush timer, and while
        # the user types, for the pause, so a layout never holds up a key
        self._held_deltas: list[str] = []
        self._flush_timer: Timer | None = None
        self._typed_at = 0.0
        self._catching_up = False  # the writer works through held text in slices
        self.session_loading = False  # a turn waits for the session to load (spinners slow down)
        self._importing: asyncio.Task[None] | None = None  # Markdown, for a plain first piece
        self._converting = asyncio.Lock()  # the plain first piece into Markdown
        self.following = True
        self.forgotten = 0  # the oldest turns no longer shown
        self._forgotten_notice: Notice | None = None
        self.picked: ToolLine | None = None  # the tool line the arrows are on

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
        self.turn_reply_text = ""
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

    async def add_progress(self, text: str) -> ProgressNote:
        """The model's note on what it is doing, where the thinking line was."""
        await self.end_text()
        await self._stop_thinking()
        note = ProgressNote(text)
        await self._add(note)
        return note

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
            self.turn_reply_text += delta
            self._write(delta)
            await self._wait_written()
            return
        self.turn_reply_text += delta
        self._held_deltas.append(delta)
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
        return sum(map(len, self._held_deltas)) + (sum(map(len, self._writer_queue)) if self._catching_up else 0)

    async def _flush(self, force: bool = False) -> None:
        # Every write grows the reply, which lays out and repaints the whole pane; doing
        # that per delta would keep the UI busy and make typed keys wait behind it.
        self._flush_timer = None
        if not force and self._held_deltas and self.typing_now():
            self._flush_timer = self.set_timer(FLUSH_SECONDS, self._flush)
            return
        if self._held_deltas and self._replying:
            text, self._held_deltas = "".join(self._held_deltas), []
            self._write(text, catch_up=not force)

    def _write(self, text: str, catch_up: bool = False) -> None:
        # A task of its own writes, so that the app goes on handling keys while the
        # new blocks mount (the event that brought the text does not wait for them).
        self._writer_queue.append(text)
        self._catching_up = catch_up and (self._catching_up or self._writer is None)
        if self._writer is None:
            self._writer = asyncio.create_task(self._drain())

    async def _drain(self) -> None:
        try:
            while self._writer_queue:
                text, self._writer_queue = "".join(self._writer_queue), []
                if self._catching_up and len(text) > CATCH_UP_CHARS:
                    text, rest = text[:CATCH_UP_CHARS], text[CATCH_UP_CHARS:]
                    self._writer_queue.insert(0, rest)
                await self._write_now(text)
                if self._catching_up and self._writer_queue:
                    # let the screen catch up, and any key in, before the next slice
                    await asyncio.sleep(FLUSH_SECONDS / 4)
                    if self.typing_now() and self._catching_up:
                        # typing again: the rest waits for the next pause
                        self._held_deltas[:0] = self._writer_queue
                        self._writer_queue = []
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
        pending = self._open_piece_source + text
        reply = markdown_ready()
        if reply is None:
            # Markdown is still being imported (a question asked at launch): the first
            # words show as plain text, and the piece becomes Markdown once it is here
            if self._reply is None:
                self._reply = PlainReply(classes="reply")
                await self._add(self._reply)
                # once these words are drawn: the import would share the interpreter
                self.call_after_refresh(self._markdown_soon)
            await self._reply.append(pending[len(self._open_piece_source):])
            self._open_piece_source = pending
            return
        if isinstance(self._reply, PlainReply):
            await self._to_markdown(reply)
        cut = cut_point(pending) if len(pending) >= reply.PIECE_CHARS else 0
        if cut and self._reply is not None:
            piece = self._reply
            if cut >= len(self._open_piece_source):
                await piece.write(pending[len(self._open_piece_source):cut])
                await piece.seal()
            else:
                # the piece already shows the start of the next one: it is drawn again
                # without it (a piece is a few paragraphs, so this is cheap)
                await piece.settle()
                await piece.update(pending[:cut])
                await piece.seal()
            self._reply, self._open_piece_source, pending = None, "", pending[cut:]
        if not pending:
            return
        if self._reply is None:
            self._reply = reply.Reply(classes="reply")
            await self._add(self._reply)
        await self._reply.write(pending[len(self._open_piece_source):])
        self._open_piece_source = pending

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
        self._reply, self._open_piece_source, self._replying = None, "", False

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

    _rewound: list[Widget] = []  # what the last rewind drew faint (tui.widgets.conversation.rewound)

    def mark_rewound(self, turns: int) -> None:
        self._rewound = rewound.mark(list(self.children), turns)

    def unmark_rewound(self) -> None:
        self._rewound = rewound.unmark(self._rewound)

    async def withdraw_turn(self) -> None:
        """The last question was taken back: it and all that came of it leave the pane."""
        await self.end_turn()
        children = list(self.children)
        asked = [index for index, child in enumerate(children) if isinstance(child, UserTurn)]
        if asked:
            await self.remove_children(children[asked[-1]:])
        self.turn_reply_text = ""

    def tool_lines(self) -> list[ToolLine]:
        return list(self.query(ToolLine))

    # --- picking a tool line ------------------------------------------------------------

    def _in_view(self, line: ToolLine) -> bool:
        top, height = self.scroll_offset.y, self.scrollable_content_region.height
        return top <= line.virtual_region.y < top + height

    def action_pick(self, step: int) -> None:
        """The next tool line that way: from the picked one while it is in view, else from
        what is in view. With none that way the arrows scroll, as in any pane."""
        lines = self.tool_lines()
        picked = self.picked if self.picked in lines and self._in_view(self.picked) else None
        if picked is not None:
            index = lines.index(picked) + step
            target = lines[index] if 0 <= index < len(lines) else None
        else:
            top = self.scroll_offset.y
            bottom = top + self.scrollable_content_region.height
            if step > 0:
                target = next((line for line in lines if line.virtual_region.y >= top), None)
            else:
                target = next((line for line in reversed(lines) if line.virtual_region.y < bottom), None)
        if target is None:
            (self.scroll_down if step > 0 else self.scroll_up)(animate=False)
            return
        self._pick(target)
        target.scroll_visible(animate=False, immediate=True)

    def _pick(self, line: ToolLine | None) -> None:
        if self.picked is not None:
            self.picked.remove_class("-picked")
        self.picked = line
        if line is not None:
            line.add_class("-picked")

    def on_tool_line_log_requested(self, message: ToolLine.LogRequested) -> None:
        # a click: the line is the picked one from then on (the panes open the log)
        self._pick(message.line)

    def action_open_picked(self) -> None:
        line = self.picked
        if line is None or line not in self.tool_lines():
            self.notify("↑ and ↓ pick a tool line; Enter opens its log.")
        elif not line.tool_log:
            self.notify(f"{line.tool_name} wrote no log.")
        else:
            line.action_open_log()
