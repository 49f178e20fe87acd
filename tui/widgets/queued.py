"""Questions sent while a turn runs, shown above the prompt until their turn comes (the
turn driver holds them; this shows what it is given)."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.widgets import Static

from tui import format as fmt


class QueuedTurns(Static):
    """Each question goes, in order, when the turn before it ends; Esc takes them back."""

    DEFAULT_CSS = """
    QueuedTurns {
        height: auto;
        max-height: 5;
        padding: 0 1;
        color: $text-muted;
        border-left: outer $secondary;
        background: $secondary 10%;
        display: none;
    }
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__("", **kwargs)
        self.texts: list[str] = []  # what is sent, in order, as shown last
        self._typed: list[str] = []  # the same as typed (long pastes still folded)

    def show(self, queue: list[tuple[str, str]]) -> None:
        """The turn driver's queue: (what is sent, as typed), oldest first."""
        self.texts = [text for text, _typed in queue]
        self._typed = [typed for _text, typed in queue]
        self._show()

    def _show(self) -> None:
        self.display = bool(self.texts)
        width = max(20, (self.size.width or 80) - 12)
        lines = Text()
        for text in self._typed:
            lines.append("queued  ", "bold")
            lines.append(fmt.one_line(text, width) + "\n")
        noun = "it" if len(self.texts) == 1 else "them"
        lines.append(f"sent when the running turn ends · Esc takes {noun} back into the prompt", "dim italic")
        self.update(lines)
