"""Leaving the app: Ctrl+Q (asking first when an editor holds unsaved text), and the command
that continues the conversation, printed once the terminal is back."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text

if TYPE_CHECKING:
    from tui.host import LeavingHost


def quit_app(app: LeavingHost) -> None:
    from tui.screens.confirm import Confirm
    from tui.screens.memory_editor import MemoryEditor

    if isinstance(app.screen, Confirm) and app.screen.title_text == "Quit":
        return  # asked already: Ctrl+D or the button, not a second Ctrl+Q
    if any(isinstance(s, MemoryEditor) and s.dirty for s in app.screen_stack):
        question = Text("The memory editor has text that is not saved. Quit and throw it away?")
        app.push_screen(Confirm("Quit", question, yes="Quit, discard"), lambda quit: _quit_now(app) if quit else None)
        return
    _quit_now(app)


def how_to_quit(app: LeavingHost) -> None:
    """Ctrl+C with nothing selected: Textual's own says it in markup, which this app's
    toasts show as text."""
    app.notify("Press Ctrl+Q to quit. Ctrl+C copies the selected text.", title="Do you want to quit?")


def _quit_now(app: LeavingHost) -> None:
    # a turn's thread blocked in a stream or a build would hold the process open
    app.turns.cancel()
    app.exit()


def resume_hint(session: Any) -> str | None:
    """One line for the terminal once the app has left it; None when nothing was said."""
    from agent.conversation.saved_sessions import session_id

    transcript = getattr(session, "transcript", None)
    if transcript is None or not getattr(session, "turn", 0):
        return None
    return f"devagent --resume {session_id(transcript.path)} continues this conversation."
