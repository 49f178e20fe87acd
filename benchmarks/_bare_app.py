"""The floor for the app's start-up and idle figures: a bare Textual app with the same
three panes, a multi-line TextArea prompt, a status line and a footer, from Textual's own
widgets and nothing else: no stylesheet of the app's (its cost belongs to the figure).

    python benchmarks/_bare_app.py [--app-stylesheet]

It shows the same placeholder as the app's prompt, so the first paint is found the same
way. `--app-stylesheet` loads tui/app.tcss too: the old floor, which hid that cost.
"""

from __future__ import annotations

import sys
from pathlib import Path

from textual.app import App, ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Footer, OptionList, Static, TextArea

STYLESHEET = Path(__file__).resolve().parents[1] / "tui" / "app.tcss"
PLACEHOLDER = "Ask about this repository… Enter sends · Ctrl+J new line · F1 help"


class BareApp(App):
    def compose(self) -> ComposeResult:
        with Horizontal(id="panes"):
            yield VerticalScroll(Static("Welcome."), id="conversation")
            yield VerticalScroll(id="screen-pane")
            yield OptionList("one memory", "another", id="memory-pane")
        yield TextArea(placeholder=PLACEHOLDER, soft_wrap=True, show_line_numbers=False, id="prompt")
        yield Static("repo · model · memory · voice", id="status")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(TextArea).focus()


class StyledBareApp(BareApp):
    CSS_PATH = STYLESHEET


if __name__ == "__main__":
    (StyledBareApp if "--app-stylesheet" in sys.argv[1:] else BareApp)().run()
