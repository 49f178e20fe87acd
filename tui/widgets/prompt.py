"""The input line at the bottom, with the turns already sent a key away (↑/↓)."""

from __future__ import annotations

from textual.binding import Binding
from textual.widgets import Input


class Prompt(Input):
    BINDINGS = [
        Binding("up", "history(-1)", "Earlier turn", show=False),
        Binding("down", "history(1)", "Later turn", show=False),
    ]

    def __init__(self, **kwargs) -> None:
        # focus comes back here after every dialog, often with a key to insert: selecting
        # everything on focus would let that key replace the draft
        kwargs.setdefault("select_on_focus", False)
        super().__init__(**kwargs)
        self.history: list[str] = []
        self._position = 0  # len(history) means "the line being typed"
        self._draft = ""

    def remember(self, text: str) -> None:
        if text and (not self.history or self.history[-1] != text):
            self.history.append(text)
        self._position = len(self.history)
        self._draft = ""

    def action_history(self, step: int) -> None:
        if not self.history:
            return
        if self._position == len(self.history):
            self._draft = self.value
        position = max(0, min(len(self.history), self._position + step))
        if position == self._position:
            return
        self._position = position
        self.value = self._draft if position == len(self.history) else self.history[position]
        self.cursor_position = len(self.value)
