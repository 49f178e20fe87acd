"""Where a printable key goes when no widget took it: to the prompt, wherever focus was.

The app calls `TypingRouter.route` from its key handler, which runs before the focused
widget's bindings are checked, so those keep their keys (the memory pane's e, d, n, u, v, m, a, r).
An editor never gets here: it takes printable keys itself. A dialog that closes on typing
(`CLOSES_ON_TYPING`) is closed as "no" first, and when a pane letter opened it just
before, that letter was the first of a word typed into the wrong place: it goes to the
prompt with the rest.
"""

from __future__ import annotations

from typing import Any

from textual import events
from textual.screen import Screen

# a dialog closed by a key that arrived this soon after the pane letter that opened it
TYPED_ON_SECONDS = 1.0


class TypingRouter:
    def __init__(self) -> None:
        self._bound: tuple[str, float, int] = ("", 0.0, 0)  # the last pane letter: key, arrival, screens

    def route(self, app: Any, event: events.Key, main: type[Screen]) -> bool:
        """True when the key was handled here (it went to the prompt, or was spent)."""
        if not event.is_printable or event.character is None:
            return False
        screen = app.screen
        if event.key in screen.active_bindings:
            self._bound = (event.character, event.time, len(app.screen_stack))
            return False
        typed = event.character
        if not isinstance(screen, main):
            if not getattr(screen, "CLOSES_ON_TYPING", False):
                return False
            key, at, depth = self._bound
            # arrival times of the keys, not when the app got to them (it may be busy)
            if depth + 1 == len(app.screen_stack) and event.time - at < TYPED_ON_SECONDS:
                typed = key + typed
            below = app.screen_stack[-2]
            screen.close_for_typing()
            if not isinstance(below, main):
                return True  # a question over the editor: the editor keeps its text, the key is spent
        prompt = app.prompt
        # at once, not after the queue: the keys typed right behind this one are queued
        # already, and each goes to whatever has focus when its turn comes
        app.main_screen.set_focus(prompt)
        prompt.insert_text_at_cursor(typed)
        return True
