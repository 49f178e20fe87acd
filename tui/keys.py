"""Where a printable key goes when no widget took it: to the prompt, wherever focus was.

The app calls `TypingRouter.route` from its key handler. On the main screen no printable key
is a command, whatever has focus: the panes' actions take keys typing cannot produce
(Ctrl+E, Delete, ...), so a sentence typed with the memory pane focused reaches the prompt
whole and changes nothing. An editor never gets here: it takes printable keys itself. A
dialog that closes on typing (`CLOSES_ON_TYPING`) is closed as "no" first, and the key goes
on to the prompt.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual import events
from textual.screen import Screen

if TYPE_CHECKING:
    from tui.widgets.prompt import Prompt


class TypingRouter:
    def route(self, event: events.Key, stack: list[Screen[Any]], main: type[Screen], prompt: Prompt) -> bool:
        """True when the key was handled here (it went to the prompt, or was spent). `stack`
        is the app's screen stack, the main screen (of type `main`) at its bottom."""
        if not event.is_printable or event.character is None:
            return False
        screen = stack[-1]
        if not isinstance(screen, main):
            close = getattr(screen, "close_for_typing", None) if getattr(screen, "CLOSES_ON_TYPING", False) else None
            if close is None:
                return False
            below = stack[-2]
            close()
            if not isinstance(below, main):
                return True  # a question over the editor: the editor keeps its text, the key is spent
        # at once, not after the queue: the keys typed right behind this one are queued
        # already, and each goes to whatever has focus when its turn comes
        stack[0].set_focus(prompt)
        prompt.insert_text_at_cursor(event.character)
        return True
