"""Run this command? The bar that asks, over the bottom of the screen, when the agent wants a command run.

It shows the exact text (in a box the user may edit first), the agent's one-line reason, and
where it runs (the sandbox, the network or not); the agent's thread waits for the answer
(agent.command_consent: the `CommandAsked` event carries the request; the bar posts the
answer up as a `Decided` naming the request's id, tui.decided, and the app hands it down).
Enter or y runs it once, a runs it and every later time this exact text is asked for in this
repository, n or Esc says no; e edits the text (Enter in the box runs what it holds, Esc
leaves the box), w allows or takes back the network. A spoken or typed "yes", "always" or
"no" decides as the keys do, while the voice can hear. Keys in the first moment after it
opens were typed for the prompt, and are dropped.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.reactive import var
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Static

from tui import format as fmt
from tui.decided import Decided
from tui.widgets.conversation.code_review import normalised_words

if TYPE_CHECKING:
    from agent.events import CommandRequest

ONCE_WORDS = {"yes", "yes please", "yeah", "yep", "sure", "ok", "okay", "run it", "yes run it", "go ahead", "once",
              "run it once", "yes once", "do it"}
ALWAYS_WORDS = {"always", "yes always", "always run it", "run it always", "always allow it", "allow it always"}
NO_WORDS = {"no", "nope", "no thanks", "dont", "don't", "do not", "don't run it", "do not run it", "cancel", "stop"}
TYPED_AHEAD_SECONDS = 0.4


def spoken_command(text: str) -> str | None:
    """"once", "always" or "no" for words that answer the bar; None for any other words."""
    words = normalised_words(text)
    for answer, said in (("once", ONCE_WORDS), ("always", ALWAYS_WORDS), ("no", NO_WORDS)):
        if words in said:
            return answer
    return None


class CommandPrompt(ModalScreen[str | None]):
    CSS_PATH = "command.tcss"
    BINDINGS = [
        Binding("y", "answer('once')", "Run once", show=False),
        Binding("enter", "answer('once')", "Run once", show=False),
        Binding("a", "answer('always')", "Always", show=False),
        Binding("n", "answer('no')", "No", show=False),
        Binding("escape", "escape", "No", show=False, priority=True),
        Binding("e", "edit", "Edit", show=False),
        Binding("w", "network", "Network", show=False),
    ]

    hears = var(False)  # whether the voice hears a spoken answer now: set from above
    network = var(False)

    def __init__(self, request: CommandRequest, hears: bool = False) -> None:
        super().__init__()
        self.request = request
        self.decided: str | None = None  # once, always or no, once given
        self.set_reactive(CommandPrompt.hears, hears)
        self.set_reactive(CommandPrompt.network, request.network)
        self.opened = time.monotonic()

    def compose(self) -> ComposeResult:
        request = self.request
        with Vertical(id="command-bar") as bar:
            bar.border_title = "Run this command?"
            yield Static(Text.assemble(("Why  ", "bold"), fmt.sanitize(request.reason)), id="command-why")
            with Horizontal(id="command-line"):
                yield Static("$ ", id="command-dollar")
                yield Input(fmt.sanitize(request.command), id="command-text", select_on_focus=False)
            yield Static(self._where(), id="command-where")
            with Horizontal(id="command-buttons"):
                yield Button("Run once (Enter)", variant="warning", id="command-once")
                yield Button("Always (a)", id="command-always", disabled=request.unsandboxed is not None)
                yield Button("No (n, Esc)", id="command-no")
            yield Static(self._keys(), id="command-keys")

    def _where(self) -> Text:
        request = self.request
        if request.unsandboxed is not None:
            return Text(f"Not sandboxed: {fmt.sanitize(request.unsandboxed)}. It would run with all your access.",
                        style="bold red")
        network = "with the network" if self.network else "no network"
        return Text(f"In the sandbox: only the repository writable, {network} (w toggles)", style="dim")

    def _keys(self) -> Text:
        say = ' · or say "yes", "always" or "no"' if self.hears else ""
        return Text(f"e edit the command · Enter in it runs it{say}", style="dim")

    def watch_network(self) -> None:
        for line in self.query("#command-where").results(Static):
            line.update(self._where())

    def watch_hears(self) -> None:
        for line in self.query("#command-keys").results(Static):
            line.update(self._keys())

    def on_mount(self) -> None:
        self.opened = time.monotonic()
        self.query_one("#command-once", Button).focus()

    @property
    def text(self) -> str:
        """The command as it stands in the box (the user's edit, if any)."""
        return self.query_one("#command-text", Input).value

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.answer({"command-once": "once", "command-always": "always"}.get(event.button.id or "", "no"))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.answer("once")

    def action_answer(self, answer: str) -> None:
        if time.monotonic() - self.opened < TYPED_AHEAD_SECONDS:
            return
        self.answer(answer)

    def action_escape(self) -> None:
        box = self.query_one("#command-text", Input)
        if box.has_focus:
            self.query_one("#command-once", Button).focus()  # out of the box, the edit kept
            return
        self.action_answer("no")

    def action_edit(self) -> None:
        box = self.query_one("#command-text", Input)
        box.focus()
        box.cursor_position = len(box.value)

    def action_network(self) -> None:
        if self.request.unsandboxed is None:
            self.network = not self.network

    def answer(self, answer: str | None) -> None:
        """Decides (None: the turn went away undecided) and closes."""
        if answer is not None and self.decided is None:
            if answer == "always" and self.request.unsandboxed is not None:
                return  # nothing unsandboxed runs without asking
            self.decided = answer
            text = self.text.strip()
            edited = text if text and text != fmt.sanitize(self.request.command) else None
            # to the app itself: a screen being dismissed may stop passing messages on to it
            self.app.post_message(Decided(self.request.id, answer != "no", edited=edited, always=answer == "always",
                                          network=self.network))
        if self.is_active or self in self.app.screen_stack:
            self.dismiss(answer)
