"""A memory changed (or went) on disk while it was being edited: which text wins."""

from __future__ import annotations

from typing import Literal, get_args

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from agent.settings.choices import as_choice
from tui import format as fmt

Choice = Literal["theirs", "mine", "both"]
CHOICES: tuple[Choice, ...] = get_args(Choice)


class Conflict(ModalScreen[Choice | None]):
    """Dismisses with "theirs", "mine", "both", or None (back to editing)."""

    CSS_PATH = "confirm.tcss"
    BINDINGS = [Binding("escape", "back", "Back to editing", show=False)]

    def __init__(self, path: str, deleted: bool) -> None:
        super().__init__()
        self.path = path
        self.deleted = deleted
        # the choice that throws nothing away has focus from the first frame; Textual
        # declares AUTO_FOCUS a ClassVar but reads it from the instance
        self.AUTO_FOCUS = "#mine" if deleted else "#both"  # type: ignore[misc]

    def compose(self) -> ComposeResult:
        path = fmt.sanitize(self.path)
        if self.deleted:
            question = Text(f"{path} was deleted on disk since you opened it (by the agent, another "
                            "session or an editor). Your text is still here.")
            theirs = "Keep it deleted"
        else:
            question = Text(f"{path} changed on disk since you opened it (by the agent, another session "
                            "or an editor). Nothing has been saved yet.")
            theirs = "Keep theirs"
        with Vertical(id="dialog") as dialog:
            dialog.border_title = "Changed on disk"
            yield Static(question, id="question")
            yield Static(Text(f"{theirs}: drop your edit · Keep mine: save over it · Open both: "
                              "see theirs beside yours and merge · Esc: back to editing", style="dim"), id="how")
            with Horizontal(id="buttons"):
                yield Button(theirs, id="theirs")
                yield Button("Keep mine", variant="warning", id="mine")
                if not self.deleted:
                    yield Button("Open both", variant="primary", id="both")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(as_choice(event.button.id, CHOICES))

    def action_back(self) -> None:
        self.dismiss(None)
