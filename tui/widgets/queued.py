"""Questions sent while a turn runs, shown above the prompt until their turn comes."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.widgets import Static

from tui import format as fmt

if TYPE_CHECKING:
    from tui.widgets.prompt import Prompt


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
        self.texts: list[str] = []  # what is sent, in order
        self._typed: list[str] = []  # the same as typed (long pastes still folded)

    def push(self, text: str, typed: str | None = None) -> None:
        self.texts.append(text)
        self._typed.append(typed or text)
        self._show()

    def pop_next(self) -> str | None:
        text = self.texts.pop(0) if self.texts else None
        if text is not None:
            self._typed.pop(0)
        self._show()
        return text

    def withdraw(self, text: str) -> bool:
        """Take the newest question sent as `text` off the queue; False when none is."""
        if text not in self.texts:
            return False
        index = len(self.texts) - 1 - self.texts[::-1].index(text)
        del self.texts[index], self._typed[index]
        self._show()
        return True

    def take_all(self) -> list[str]:
        """Every queued question as typed, oldest first; the queue is empty after."""
        typed, self.texts, self._typed = self._typed, [], []
        self._show()
        return typed

    def take_back_into(self, prompt: Prompt) -> bool:
        """Every queued question back into `prompt`, before what it holds; False when none."""
        taken = self.take_all()
        if taken:
            prompt.value = "\n\n".join([*taken, prompt.value] if prompt.value.strip() else taken)
            prompt.focus()
        return bool(taken)

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
