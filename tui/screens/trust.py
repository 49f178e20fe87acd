"""Trust this repository? Asked once, before the first tool that would run its code.

The dialog shows exactly what would run and in which folder, and the agent's thread waits
for the answer (agent.workspace_trust: the `TrustAsked` event carries the request; the dialog
posts the answer up as a `Decided` naming the request's id, tui.decided, and the app hands
it down to the waiting turn). Y or Enter trusts, N or Esc does not; a spoken or typed "yes" or
"no" decides as it does for a waiting code change; the dialog (and the voice) invite the spoken
one only while the voice can hear: not with --no-voice, without a microphone, or while it
loads. Keys that arrive in the first moment after it opens were typed for the prompt, not for
this question, and are dropped.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.reactive import var
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from tui import format as fmt
from tui.decided import Decided
from tui.widgets.conversation.code_review import spoken_choice

if TYPE_CHECKING:
    from agent.events import TrustRequest

TRUST_WORDS = {"yes", "yes please", "yeah", "yep", "sure", "ok", "okay", "trust", "trust it", "yes trust it",
               "i trust it", "trust the repository", "yes trust the repository", "run it", "yes run it", "go ahead"}
DISTRUST_WORDS = {"no", "nope", "no thanks", "dont", "don't", "do not", "don't trust it", "do not trust it",
                  "dont trust it", "no don't", "don't run it", "do not run it", "cancel", "stop"}
# Keys typed in this first moment were meant for the prompt the dialog just covered.
TYPED_AHEAD_SECONDS = 0.4
# The voice's states in which it hears a spoken answer.
HEARING = ("ready", "recording", "transcribing")


def spoken_trust(text: str) -> bool | None:
    """True to trust, False not to, None when the words are not an answer."""
    return spoken_choice(text, TRUST_WORDS, DISTRUST_WORDS)


class TrustPrompt(ModalScreen[bool | None]):
    CSS_PATH = "trust.tcss"
    BINDINGS = [
        Binding("y", "answer(True)", "Trust", show=False, priority=True),
        Binding("enter", "answer(True)", "Trust", show=False, priority=True),
        Binding("n", "answer(False)", "Don't trust", show=False, priority=True),
        Binding("escape", "answer(False)", "Don't trust", show=False, priority=True),
    ]

    # whether the voice can hear a spoken answer now: set by the app as the voice's state
    # changes (it may finish loading, or fail to, while the dialog waits)
    hears = var(False)

    def __init__(self, request: TrustRequest, hears: bool = False) -> None:
        super().__init__()
        self.request = request
        self.decided: bool | None = None  # the user's answer, once given
        self.set_reactive(TrustPrompt.hears, hears)
        self.opened = time.monotonic()

    def compose(self) -> ComposeResult:
        run = self.request.run
        with Vertical(id="trust-dialog") as dialog:
            dialog.border_title = "Trust this repository?"
            why = Text(
                f"To answer, devagent wants to run this repository's own code ({run.tool}). "
                "What it runs can do anything you can: run it only if you trust where the repository comes from.")
            if self.request.earlier:
                why.append(" Asked again: an earlier answer was kept under the old key (the git folder), and "
                           "trust now belongs to each work tree.", style="bold")
            yield Static(why, id="trust-why")
            with VerticalScroll(id="trust-what"):
                yield Static(self._details(), id="trust-details")
            yield Static(Text("Your answer is remembered for this repository; "
                              "`devagent trust --revoke` takes a yes back.", style="dim"), id="trust-remembered")
            with Horizontal(id="trust-buttons"):
                yield Button("Trust and run (y, Enter)", variant="warning", id="trust-yes")
                yield Button("Don't trust (n, Esc)", id="trust-no")
            yield Static(Text('Or say "yes" or "no".', style="dim"), id="trust-say")

    def watch_hears(self) -> None:
        for line in self.query("#trust-say"):
            line.display = self.hears

    def _details(self) -> Text:
        run = self.request.run
        text = Text()
        rows = [("Repository", str(self.request.repo)), ("Runs in", str(run.cwd))]
        if self.request.earlier:
            rows.append(("Earlier", self.request.earlier))
        if run.environment:
            rows.append(("Environment", run.environment))
        for label, value in rows:
            text.append(f"{label:<12}", style="bold")
            text.append(fmt.sanitize(value) + "\n")
        text.append("Command" + ("s" if len(run.commands) > 1 else "") + "\n", style="bold")
        for command in run.commands:
            text.append("$ ", style="dim")
            text.append(fmt.sanitize(command) + "\n", style="bold")
        text.rstrip()
        return text

    def on_mount(self) -> None:
        self.opened = time.monotonic()
        self.query_one("#trust-yes", Button).focus()
        self.watch_hears()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.answer(event.button.id == "trust-yes")

    def action_answer(self, trusted: bool) -> None:
        if time.monotonic() - self.opened < TYPED_AHEAD_SECONDS:
            return
        self.answer(trusted)

    def answer(self, trusted: bool | None) -> None:
        """Decides (None: the turn went away undecided) and closes."""
        if trusted is not None and self.decided is None:
            self.decided = trusted
            # to the app itself: a screen being dismissed may stop passing messages on to it
            self.app.post_message(Decided(self.request.id, trusted))
        if self.is_active or self in self.app.screen_stack:
            self.dismiss(trusted)
