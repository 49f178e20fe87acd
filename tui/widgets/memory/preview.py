"""The selected memory's text under the list, where Enter takes the focus to read it.

Up and Down scroll it, and past either end they pick the memory before or after, so the
keys always do something; Esc goes back to the list (the footer says so).
"""

from __future__ import annotations

from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import OptionList


class MemoryPreview(VerticalScroll):
    BINDINGS = [
        Binding("escape", "back", "Back to list"),
        Binding("up", "step(-1)", "Previous", show=False),
        Binding("down", "step(1)", "Next", show=False),
    ]

    def _list(self) -> OptionList | None:
        found = self.parent.query("#memory-list") if self.parent is not None else None
        options = found.first() if found else None
        return options if isinstance(options, OptionList) and options.display else None

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # with no list (an empty folder) Esc keeps its meaning elsewhere: cancel the turn
        if action == "back":
            return self._list() is not None
        return True

    def action_back(self) -> None:
        options = self._list()
        if options is not None:
            options.focus()

    def action_step(self, step: int) -> None:
        if step < 0 and self.scroll_y > 0:
            self.scroll_up(animate=False)
            return
        if step > 0 and self.scroll_y < self.max_scroll_y:
            self.scroll_down(animate=False)
            return
        options = self._list()
        if options is None:
            return
        if step < 0:
            options.action_cursor_up()
        else:
            options.action_cursor_down()
        self.scroll_home(animate=False)
