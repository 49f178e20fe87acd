"""A yes/no question in a modal dialog; dismisses with True or False."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static


class Confirm(ModalScreen[bool]):
    CSS_PATH = "confirm.tcss"
    BINDINGS = [
        Binding("y", "answer(True)", "Yes", show=False),
        Binding("n,escape", "answer(False)", "No", show=False),
    ]

    def __init__(self, title: str, question: str, yes: str = "Yes", no: str = "Cancel") -> None:
        super().__init__()
        self.title_text = title
        self.question = question
        self.yes = yes
        self.no = no

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog") as dialog:
            dialog.border_title = self.title_text
            yield Static(self.question, id="question")
            with Horizontal(id="buttons"):
                yield Button(f"{self.yes} (y)", variant="error", id="yes")
                yield Button(f"{self.no} (n)", id="no")

    def on_mount(self) -> None:
        self.query_one("#no", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "yes")

    def action_answer(self, value: bool) -> None:
        self.dismiss(value)
