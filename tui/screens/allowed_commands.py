"""The commands that run without asking in this repository (answered "always"), from the
command palette: Delete or Enter takes the highlighted one back, Esc closes.

The list is handed in; the list closes with the text taken back (None: nothing), and whoever
holds the answers forgets it and opens the list again as it then stands.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from tui import format as fmt


class AllowedCommandsScreen(ModalScreen[str | None]):
    DEFAULT_CSS = """
    AllowedCommandsScreen { align: center middle; background: $background 60%; }
    #allowed { width: 100; max-width: 95%; height: auto; max-height: 80%;
               border: round $primary; background: $surface; padding: 0 1; }
    #allowed OptionList { height: auto; max-height: 20; border: none; }
    #allowed-help { color: $text-muted; }
    """
    BINDINGS = [
        Binding("escape", "close", "Close"),
        Binding("delete", "revoke", "Take back"),
    ]

    def __init__(self, commands: tuple[tuple[str, str], ...]) -> None:
        """`commands`: (the command's text, the line that shows it), by text."""
        super().__init__()
        self.commands = commands

    def compose(self) -> ComposeResult:
        with Vertical(id="allowed") as box:
            box.border_title = "Commands that run without asking here"
            yield OptionList(*self._options())
            yield Static(self._help(), id="allowed-help")

    def _options(self) -> list[Option]:
        return [Option(fmt.sanitize(line), id=str(number)) for number, (_, line) in enumerate(self.commands)]

    def _help(self) -> str:
        if not self.commands:
            return 'No command runs without asking: answer "always" when the agent asks to run one. Esc closes.'
        return "Delete or Enter takes the highlighted one back (it asks again) · Esc closes"

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self._revoke(event.option.id)

    def action_revoke(self) -> None:
        options = self.query_one(OptionList)
        if options.highlighted is not None:
            self._revoke(options.get_option_at_index(options.highlighted).id)

    def _revoke(self, option_id: str | None) -> None:
        if option_id is not None and option_id.isdigit() and int(option_id) < len(self.commands):
            self.dismiss(self.commands[int(option_id)][0])

    def action_close(self) -> None:
        self.dismiss(None)
