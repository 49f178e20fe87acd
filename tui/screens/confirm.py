"""A question in a modal dialog; dismisses with True or False.

A destructive answer takes a key that typing cannot produce by accident: Ctrl+D, or Tab
to its button and Enter. Any printable key closes the dialog as "no" (the app then puts
the key in the prompt), so a sentence typed at the wrong moment confirms nothing.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static


class Confirm(ModalScreen[bool]):
    CSS_PATH = "confirm.tcss"
    # the app closes this dialog with "no" when a printable key reaches it
    CLOSES_ON_TYPING = True
    # focus starts on the safe answer, before the first key can arrive (an Enter typed
    # right behind the key that opened the dialog must not meet the destructive button)
    AUTO_FOCUS = "#no"
    BINDINGS = [
        Binding("ctrl+d", "answer(True)", "Yes", show=False, priority=True),
        Binding("escape", "answer(False)", "No", show=False),
    ]

    def __init__(self, title: str, question: Text | str, yes: str = "Yes", no: str = "Cancel") -> None:
        super().__init__()
        self.title_text = title
        # a Text, never markup: the question quotes memory names and paths as they are
        self.question = question if isinstance(question, Text) else Text(question)
        self.yes = yes
        self.no = no

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog") as dialog:
            dialog.border_title = self.title_text
            yield Static(self.question, id="question")
            yield Static(Text("Ctrl+D or Tab, Enter: " + self.yes.lower() + " · Esc or any letter: keep", style="dim"), id="how")
            with Horizontal(id="buttons"):
                yield Button(f"{self.yes} (ctrl+d)", variant="error", id="yes")
                yield Button(f"{self.no} (esc)", id="no")

    def on_mount(self) -> None:
        self.query_one("#no", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "yes")

    def action_answer(self, value: bool) -> None:
        self.dismiss(value)

    def close_for_typing(self) -> None:
        self.dismiss(False)
