"""The app's own screen: the panes, the prompt, and where focus goes back to.

Whatever dialog or editor closed, the user's next keys should land in the prompt, not in
the pane that happened to be focused before it opened (where a bare letter is an action).
"""

from __future__ import annotations

from typing import Any

from textual import events
from textual.screen import Screen


class MainScreen(Screen):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._shown = False

    def on_screen_resume(self, event: events.ScreenResume) -> None:
        shown, self._shown = self._shown, True
        prompt = self.query("#prompt")
        if shown and prompt:
            # after Textual has put back the focus it remembered for this screen
            self.call_after_refresh(prompt.first().focus)

    def on_resize(self, event: events.Resize) -> None:
        # The breakpoint class was just set from the new width. The panes read it on their
        # own resize too, but that can come first, or not at all when their size is the same.
        for panes in self.query("#panes"):
            panes.narrow = self.has_class("-narrow")  # type: ignore[attr-defined]
