"""Every action the app offers, as a key and as a command palette entry.

The footer shows the bindings that say so, F1's help lists them all, and Ctrl+P finds each
action by name here (the memory pane's own keys are the pane's; tui/memory_commands.py adds
the palette's memory commands).
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial
from typing import TYPE_CHECKING

from textual.app import SystemCommand
from textual.binding import Binding, BindingType

from agent.voice.settings import DEFAULT_KEY

if TYPE_CHECKING:
    from tui.host import AppHost

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


def app_commands(app: AppHost) -> Iterator[SystemCommand]:
    pane = app.memory_pane
    for title, help, action in (
        ("Help", "Every key devagent knows", app.action_help),
        ("Cancel turn", "Stop the running turn and its tools", app.action_cancel_turn),
        ("New conversation", "Start over without the turns so far (Ctrl+N)", app.action_new_conversation),
        ("Toggle screen pane", "Show or hide what the agent put on screen", partial(app.action_toggle_screen, False)),
        ("Toggle memory pane", "Show or hide the memory folder", partial(app.action_toggle_memory, False)),
        ("Last tool log", "Open the most recent build or test log", app.action_last_log),
        ("Copy", "The last reply, or the screen pane's item when it has the focus, to the clipboard (Ctrl+G)",
         app.action_copy),
        ("Older screen item", "Step back through what was shown", app.action_screen_older),
        ("New memory", "Write a memory for this repository", pane.action_new),
        ("Edit memory", "Edit the memory selected in the pane", pane.action_edit),
        ("Delete memory", "Delete the selected memory (asks first)", pane.action_delete),
        ("Undo delete memory", "Bring back the memory deleted last in this session", pane.action_undo_delete),
        ("Push to talk", "Start or stop recording a spoken turn", app.action_push_to_talk),
        ("Mute voice", "Silence or restore the spoken replies", app.action_toggle_mute),
        ("Sessions", "This repository's saved sessions: continue or read one", app.action_sessions),
        ("Allowed commands", "The commands that run here without asking (answered always): take one back",
         app.action_allowed_commands),
        ("Rewind", "Go back to before a turn: the conversation, the code, the memory (Esc Esc)", app.action_rewind),
        ("Bring in Claude Code's memory", "Copy what Claude Code's auto memory knows of this repository, for review",
         app.action_bring_in_claude_memory),
    ):
        yield SystemCommand(title, help, action)
