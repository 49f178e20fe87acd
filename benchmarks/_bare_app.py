"""The floor for the app's start-up and idle figures: a bare Textual app with the app's
layout and stylesheet, built from Textual's own widgets, doing nothing else.

    python benchmarks/_bare_app.py

It shows the same placeholder as the app's prompt, so the first paint is found the same
way. The prompt is a TextArea, as the app's is (tui.widgets.prompt) since it takes several
lines.
"""

from __future__ import annotations

from pathlib import Path

from textual.app import App, ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Footer, OptionList, Static, TextArea

STYLESHEET = Path(__file__).resolve().parents[1] / "tui" / "app.tcss"
PLACEHOLDER = "Ask about this repository… Enter sends · Ctrl+J new line · F1 help"


class BareApp(App):
    CSS_PATH = STYLESHEET if STYLESHEET.exists() else None

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


if __name__ == "__main__":
    BareApp().run()
