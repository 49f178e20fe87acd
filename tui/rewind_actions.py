"""The app's side of rewind: opening the list (Esc Esc when idle, the palette, or words
that ask for it), and what a rewind that happened shows. A mixin of the app.

The list itself (tui.screens.rewind) is given the session and reports back with a
`RewindScreen.Done` message; here the rewound turn's words return to the prompt for
editing and the conversation says what went back.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from tui.app_parts import AppParts

if TYPE_CHECKING:
    from tui.screens.rewind import RewindScreen

DOUBLE_ESCAPE_SECONDS = 0.6


class RewindActions(AppParts):
    _last_escape = 0.0

    def escape_while_idle(self) -> None:
        """A second Esc within DOUBLE_ESCAPE_SECONDS of the first, nothing running: the list."""
        now = time.monotonic()
        if now - self._last_escape <= DOUBLE_ESCAPE_SECONDS:
            self._last_escape = 0.0
            self.action_rewind()
        else:
            self._last_escape = now

    def action_rewind(self, chosen_turn: int | None = None) -> None:
        if self.running:
            self.notify("A turn is running; Esc cancels it, and rewind opens once it has ended.", title="Rewind")
            return
        session = self.turns.session
        if session is None:
            self.notify("The agent has not started yet, so there is no turn to go back to.", title="Rewind")
            return
        from tui.screens.rewind import RewindScreen  # not before the first frame

        if isinstance(self.screen, RewindScreen):
            self.pop_screen()  # a spoken request heard again, whole: the list opens on its turn
        self.push_screen(RewindScreen(session, chosen_turn))

    def asks_to_rewind(self, text: str) -> bool:
        """Words like "go back to before the rename": the list opens on the turn they name,
        instead of a question to the agent."""
        from agent.checkpoints.matching import best_turn, rewind_request

        session = self.turns.session
        what = rewind_request(text)
        if what is None or session is None or self.running:
            return False
        points = session.turns_to_rewind()
        if not points:
            return False
        best = best_turn(what, points)
        if best is None:
            self.notify("No turn matches those words; the list shows them all.", title="Rewind")
        self.action_rewind(best.turn if best is not None else None)
        return True

    async def on_rewind_screen_done(self, message: RewindScreen.Done) -> None:
        if message.turns_back:
            self.conversation.mark_rewound(message.turns_back)
        if message.restored:
            self.conversation.unmark_rewound()
        await self.conversation.add_notice(f"Rewind: {message.said}", "cancelled" if message.refused else "info")
        if message.words:
            self.prompt.value = message.words
            self.prompt.focus()
