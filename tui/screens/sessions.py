"""The saved sessions of the repository, from the command palette: Enter continues one,
r reads it on the screen pane, Esc closes the list."""

from __future__ import annotations

from pathlib import Path

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option


class SessionsScreen(ModalScreen[tuple[str, str] | None]):
    """Dismisses with ("continue" | "read", session id), or None."""

    DEFAULT_CSS = """
    SessionsScreen { align: center middle; background: $background 60%; }
    #sessions { width: 100; max-width: 95%; height: auto; max-height: 80%;
                border: round $primary; background: $surface; padding: 0 1; }
    #sessions OptionList { height: auto; max-height: 20; border: none; }
    #sessions-help { color: $text-muted; }
    """
    BINDINGS = [
        Binding("escape", "dismiss_none", "Close"),
        Binding("r", "read", "Read"),
    ]

    def __init__(self, lines: list[tuple[str, str]]) -> None:
        """`lines`: (session id, the line that shows it), newest first."""
        super().__init__()
        self.lines = lines

    def compose(self) -> ComposeResult:
        with Vertical(id="sessions") as box:
            box.border_title = "Sessions of this repository"
            if self.lines:
                yield OptionList(*[Option(text, id=sid) for sid, text in self.lines])
                yield Static("Enter continues the session · r reads it on the screen pane · Esc closes", id="sessions-help")
            else:
                yield Static("No saved sessions yet. Esc closes.", id="sessions-help")

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        if event.option.id is not None:  # every option is made with the session's id
            self.dismiss(("continue", event.option.id))

    def action_read(self) -> None:
        options = self.query(OptionList)
        highlighted = options.first().highlighted if options else None
        if highlighted is not None:
            option = options.first().get_option_at_index(highlighted)
            if option.id is not None:
                self.dismiss(("read", option.id))

    def action_dismiss_none(self) -> None:
        self.dismiss(None)


# --- what the list shows, and what reading one shows ---------------------------------------


def session_lines(repo: Path) -> list[tuple[str, str]]:
    """(session id, the line that shows it) for each saved session of `repo`, newest first."""
    from agent.conversation import saved_sessions as sessions

    found = sessions.listing(repo)
    return [(info.id, line) for info, line in zip(found, sessions.table(found))]


def session_text(repo: Path, wanted: str) -> str:
    """The session `wanted` as Markdown, or why it cannot be read."""
    from agent.conversation import saved_sessions as sessions

    path, problem = sessions.find(repo, wanted)
    text = sessions.as_markdown(path) if path is not None else problem
    return text or ""
