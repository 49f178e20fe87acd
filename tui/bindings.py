"""The app's keys, each declared once.

The footer shows the bindings that say so, F1's help lists them all, and the command
palette (tui.palette) names the same actions. A few of these keys are TextArea's own too
(F6, F7, Page Up/Down): the prompt takes them for the app from this table
(`for_the_app`), so the app's meaning wins there without a second declaration.
"""

from __future__ import annotations

from textual.binding import Binding, BindingType

from agent.voice.settings import DEFAULT_KEY

APP_BINDINGS: list[BindingType] = [
    Binding("escape", "cancel_turn", "Cancel"),
    Binding("f1", "help", "Help"),
    Binding(DEFAULT_KEY, "push_to_talk", "Talk", priority=True, id="push_to_talk"),
    Binding("f3", "toggle_screen", "Screen"),
    Binding("f4", "toggle_memory", "Memory"),
    # F9 is the example talk key people set; F10 and F11 are the terminal's in many
    Binding("f12", "focus_conversation", "Conversation"),
    Binding("f5", "screen_older", "Older", show=False),
    Binding("f6", "toggle_mute", "Mute", show=False),
    Binding("f7", "resize(-1)", "Narrower", show=False),
    Binding("f8", "resize(1)", "Wider", show=False),
    Binding("ctrl+l", "last_log", "Last log", show=False),
    Binding("ctrl+n", "new_conversation", "New conversation", show=False),
    Binding("ctrl+r", "undo_code_change", "Undo change", show=False),
    Binding("ctrl+g", "copy", "Copy", show=False),
    # from the prompt (or wherever they are not taken): the conversation's own keys
    Binding("ctrl+end", "conversation_end", "Newest", show=False),
    Binding("pageup", "conversation_page(-1)", "Page up", show=False),
    Binding("pagedown", "conversation_page(1)", "Page down", show=False),
    # Textual's own, shown: how to leave should be on screen, not only in the help
    Binding("ctrl+q", "quit", "Quit", priority=True),
]

# the app's keys that TextArea would take for itself in the prompt
PROMPT_GIVES_UP = ("toggle_mute", "resize(-1)", "conversation_page(-1)", "conversation_page(1)")


def for_the_app(actions: tuple[str, ...]) -> list[BindingType]:
    """The app's bindings of `actions`, as a widget declares them to hand the key to the app."""
    return [Binding(b.key, f"app.{b.action}", b.description, show=False)
            for b in APP_BINDINGS if isinstance(b, Binding) and b.action in actions]
