"""The input box at the bottom: several lines, pastes kept whole, earlier turns a key away.

Enter sends, and empties the box at once, so each Enter ends one question however fast the
next keys come. A newline is Ctrl+J or Alt+Enter (Shift+Enter too, where the terminal tells
it apart from Enter, which most do not). A bracketed paste arrives whole; a long one is
shown folded as one line with its line count, and unfolded when the turn is sent.
↑ on the first line and ↓ on the last step through the turns already sent.
"""

from __future__ import annotations

import re
import time
from typing import Any

from textual import events
from textual.binding import Binding
from textual.message import Message
from textual.timer import Timer
from textual.widgets import TextArea

from tui import format as fmt
from tui.bindings import PROMPT_GIVES_UP, for_the_app

NEWLINE_KEYS = ("ctrl+j", "alt+enter", "shift+enter")
# a paste of more lines than this is folded into one marker line
FOLD_LINES = 8
_MARKER = r"\[pasted (\d+) lines #(\d+)\]"  # compiled (and kept) by `re` with the first paste
# A blinking cursor repaints twice a second for as long as the app is open, most of what an
# idle app costs; like GTK's cursor-blink-timeout, it blinks for a while after the last
# key and then stays lit.
BLINK_SECONDS = 10.0


class Prompt(TextArea):
    BINDINGS = [
        Binding("up", "history_up", "Earlier turn", show=False),
        Binding("down", "history_down", "Later turn", show=False),
        # TextArea's own uses of the app's keys: the app's meaning wins here
        *for_the_app(PROMPT_GIVES_UP),
    ]

    class Submitted(Message):
        """Enter: `text` is what to send, folded pastes unfolded; `value` as typed."""

        def __init__(self, prompt: Prompt, text: str, value: str) -> None:
            super().__init__()
            self.prompt = prompt
            self.text = text
            self.value = value

    def __init__(self, placeholder: str = "", **kwargs: Any) -> None:
        super().__init__(placeholder=placeholder, soft_wrap=True, show_line_numbers=False,
                         tab_behavior="focus", highlight_cursor_line=False, **kwargs)
        self.sent: list[str] = []
        self._position = 0  # len(sent) means "the text being typed"
        self._draft = ""
        self.pastes: dict[int, str] = {}  # folded pastes by number, for the whole session
        self._blink_until = 0.0
        self._blink_check: Timer | None = None

    # --- the cursor blinks only after a key -------------------------------------------

    def on_mount(self) -> None:
        self.keep_blinking()

    def on_focus(self) -> None:
        self.keep_blinking()

    def on_text_area_changed(self) -> None:
        self.keep_blinking()

    def on_text_area_selection_changed(self) -> None:
        self.keep_blinking()

    def keep_blinking(self) -> None:
        """Blink for BLINK_SECONDS from now (a key only moves a deadline; one timer checks it)."""
        self._blink_until = time.monotonic() + BLINK_SECONDS
        if not self.cursor_blink:
            self.cursor_blink = True
        if self._blink_check is None:
            self._blink_check = self.set_timer(BLINK_SECONDS, self._check_blink)

    def _check_blink(self) -> None:
        left = self._blink_until - time.monotonic()
        if left > 0:
            self._blink_check = self.set_timer(left, self._check_blink)
        else:
            self._blink_check = None
            self.cursor_blink = False  # the cursor stays, lit
            # TextArea caches a line under the same key with the cursor lit and not blinking
            # as in the blink's dark phase; without this the cursor could stay dark.
            self.notify_style_update()

    # --- the text as a value ----------------------------------------------------------

    @property
    def value(self) -> str:
        return self.text

    @value.setter
    def value(self, text: str) -> None:
        self.load_text(text)
        self.move_cursor(self.document.end)

    def insert_text_at_cursor(self, text: str) -> None:
        self.insert(text)

    def unfolded(self, value: str | None = None) -> str:
        """The text with every folded paste put back in full."""

        def expand(match: re.Match) -> str:
            return self.pastes.get(int(match.group(2)), match.group(0))

        return re.sub(_MARKER, expand, self.text if value is None else value)

    # --- keys -------------------------------------------------------------------------

    # These handlers run before TextArea's own; prevent_default keeps a key or a paste
    # handled here from reaching it, and any other key goes on to it.

    def on_key(self, event: events.Key) -> None:
        if event.key == "enter":
            event.stop()
            event.prevent_default()
            text, value = self.unfolded(), self.text
            if value.strip():
                # emptied here, before the next key is handled, not when the app gets to the
                # message: keys typed right behind this Enter begin the next question
                self.remember(value.strip())
                self.value = ""
            self.post_message(self.Submitted(self, text, value))
            return
        if event.key in NEWLINE_KEYS:
            event.stop()
            event.prevent_default()
            self.insert("\n")

    def on_paste(self, event: events.Paste) -> None:
        event.stop()
        event.prevent_default()
        if self.read_only:
            return
        text = fmt.sanitize(event.text.replace("\r\n", "\n").replace("\r", "\n"))
        lines = text.count("\n") + 1
        if lines > FOLD_LINES:
            number = len(self.pastes) + 1
            self.pastes[number] = text
            text = f"[pasted {lines} lines #{number}]"
        self.insert(text)

    def action_history_up(self) -> None:
        if self.cursor_location[0] > 0:
            self.action_cursor_up()
        else:
            self._step(-1)

    def action_history_down(self) -> None:
        if self.cursor_location[0] < self.document.line_count - 1:
            self.action_cursor_down()
        else:
            self._step(1)

    # --- history ----------------------------------------------------------------------

    def remember(self, value: str) -> None:
        """A turn was sent: keep it (as typed, pastes folded) and start a new draft."""
        if value and (not self.sent or self.sent[-1] != value):
            self.sent.append(value)
        self._position = len(self.sent)
        self._draft = ""

    def restore(self, value: str) -> None:
        """Words sent with an Enter that was taken for something else: back in front of
        whatever was typed since."""
        self.value = value + self.text

    def _step(self, step: int) -> None:
        if not self.sent:
            return
        if self._position == len(self.sent):
            self._draft = self.text
        position = max(0, min(len(self.sent), self._position + step))
        if position == self._position:
            return
        self._position = position
        self.value = self._draft if position == len(self.sent) else self.sent[position]
