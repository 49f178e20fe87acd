"""The app's side of welcome back (agent.loop.welcome_back): the briefing given once the app
is up after hours away from the repository, asked for again from the palette or in words
("what's new?"), and skipped by Esc, the talk key or typing. A mixin of the app.

The briefing is an ordinary turn of the conversation (the main screen draws it, follow-up
questions can refer to it); it never opens the microphone by itself.
"""

from __future__ import annotations

from datetime import datetime

from textual.message import Message
from textual.widgets import TextArea

from tui.app_parts import AppParts
from tui.widgets.prompt import Prompt


class WelcomeDue(Message):
    """The repository's last session ended long enough ago: the briefing is due."""


class WelcomeActions(AppParts):
    # Textual calls the handlers of every class in the app's MRO: these run after the app's own.

    def on_ready(self) -> None:
        """After the first frame: whether this start is a return (never on --resume)."""
        if self.turns.resume is None and self.config.welcome_back:
            self.run_worker(self._welcome_due, name="welcome-due", group="startup", thread=True, exit_on_error=False)

    def _welcome_due(self) -> None:
        from agent.loop import welcome_back

        last = welcome_back.last_visit(self.repo)
        if welcome_back.due(last, datetime.now().astimezone(), self.config.welcome_back_hours):
            self.post_message(WelcomeDue())

    async def on_welcome_due(self, _message: WelcomeDue) -> None:
        if not self.running and not self.prompt.text.strip():  # a question begun first wins
            await self._brief()

    async def action_whats_new(self) -> None:
        if self.running:
            self.notify("A turn is still running; Esc cancels it first.", title="What's new")
        else:
            await self._brief()

    async def _brief(self) -> None:
        from agent.loop.welcome_back import ASKED

        await self.main_screen.submit(ASKED, briefing=True)

    def asks_whats_new(self, text: str) -> bool:
        """Words that ask for the briefing ("what's new?"), typed or said."""
        from agent.loop.welcome_back import asks_for_it

        return asks_for_it(text)

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        if isinstance(event.text_area, Prompt) and event.text_area.text:
            self.skip_briefing()

    def skip_briefing(self) -> None:
        """Typing or the talk key while the briefing is given: it stops, as Esc would."""
        if self.running and self.turns.briefing:
            self.call_next(self.main_screen.cancel_turn)
