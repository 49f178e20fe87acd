"""The main screen's side of a command the agent asks to run (agent.tools.command): the bar
that asks (tui.screens.command), its output on the screen pane as it runs, a typed or spoken
answer, and the palette's list of the commands answered "always". A mixin of the main screen.

The bar and the list are imported when first asked for: neither is in the first frame.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tui.screens.parts import MainScreenParts

if TYPE_CHECKING:
    from tui.screens.command import CommandPrompt


class CommandQuestions(MainScreenParts):
    _hears = False

    @property
    def hears(self) -> bool:
        """Whether the voice hears a spoken answer now (set by the app as its state changes)."""
        return self._hears

    @hears.setter
    def hears(self, value: bool) -> None:
        self._hears = value
        try:
            bar = self.command_waiting()
        except Exception:  # no app yet: the screen is being made
            return
        if bar is not None:
            bar.hears = value  # the bar invites a spoken answer only while one is heard

    if TYPE_CHECKING:
        app: Any

        def notify(self, message: str, *args: Any, **kwargs: Any) -> None: ...

    async def show_command_event(self, event: object) -> bool:
        """Shows a command's event; False when `event` is not one."""
        from agent.events import CommandAsked, CommandEnded, CommandOutput, CommandStarted

        match event:
            case CommandAsked(request=request):
                from tui.screens.command import CommandPrompt

                self.app.push_screen(CommandPrompt(request, self.hears), lambda _answer: self.prompt.focus())
                if self.voice is not None and self.hears:
                    self.voice.reply_delta(f"I'd like to run a command, to {request.reason.rstrip('.')}. "
                                           "Run it? Say yes, always, or no.\n\n")
            case CommandStarted():
                network = "with the network" if event.network else "no network"
                where = f"sandboxed, {network}" if event.sandboxed else "NOT sandboxed"
                await self.screen_pane.command_started(event.run, event.command, where)
                self.panes.screen_choice = True  # shown even when the user had hidden it
            case CommandOutput():
                self.screen_pane.command_output(event.run, event.text)
            case CommandEnded():
                self.screen_pane.command_ended(event.run, event.said)
            case _:
                return False
        return True

    def command_waiting(self) -> CommandPrompt | None:
        over = [screen for screen in reversed(self.app.screen_stack) if screen is not self]
        if not over:
            return None  # as the screen is made, too: the bar is not imported before it can be there
        from tui.screens.command import CommandPrompt

        for screen in over:
            if isinstance(screen, CommandPrompt) and screen.decided is None:
                return screen
        return None

    def answer_command(self, text: str) -> bool:
        """Typed or spoken "yes", "always" or "no" while the bar asks; False when it is not one."""
        from tui.screens.command import spoken_command

        bar = self.command_waiting()
        answer = spoken_command(text) if bar is not None else None
        if bar is None or answer is None:
            return False
        bar.answer(answer)
        return True

    def close_command_undecided(self, cancelled: bool) -> None:
        """The turn ended (cancelled, taken back): the bar that asked goes, undecided, and a
        command still shown running was stopped with the turn."""
        bar = self.command_waiting()
        if bar is not None:
            bar.answer(None)
        if cancelled:
            self.screen_pane.commands_over("cancelled: the command and everything it started were stopped")

    def action_allowed_commands(self) -> None:
        """The palette's list of the "always" answers: the one the user takes back is forgotten,
        and the list opens again as it now stands."""
        from agent.command_consent import AllowedCommands
        from tui.screens.allowed_commands import AllowedCommandsScreen

        allowed = AllowedCommands()
        shown = tuple((a.command, f"{a.command}{'  (with the network)' if a.network else ''}  · {a.decided}")
                      for a in allowed.listing(self.turns.repo))

        def taken_back(command: str | None) -> None:
            if command is None:
                self.prompt.focus()
                return
            try:
                allowed.forget(self.turns.repo, command)
            except OSError as error:
                self.notify(f"Could not take it back: {error.strerror or error}", severity="error")
            else:
                self.notify(f"`{command}` asks again before it runs.", title="Commands")
            self.action_allowed_commands()

        self.app.push_screen(AllowedCommandsScreen(shown), taken_back)
