"""Every action the app offers as a command palette entry: Ctrl+P finds each by name here
(its keys are in tui.bindings; the memory pane's own keys are the pane's, its palette
entries here too, with the memory commands beyond its keys).
"""

from __future__ import annotations

# The command palette's entries: (title, help, where the action runs, the action). "app"
# actions are the app's; "memory" ones the memory pane's, on whatever it has selected;
# "screen" ones the main screen's.
COMMANDS: list[tuple[str, str, str, str]] = [
    ("Help", "Every key devagent knows", "app", "help"),
    ("Cancel turn", "Stop the running turn and its tools", "app", "cancel_turn"),
    ("New conversation", "Start over without the turns so far (Ctrl+N)", "app", "new_conversation"),
    ("Toggle screen pane", "Show or hide what the agent put on screen", "app", "toggle_screen(False)"),
    ("Toggle memory pane", "Show or hide the memory folder", "app", "toggle_memory(False)"),
    ("Last tool log", "Open the most recent build or test log", "app", "last_log"),
    ("Copy", "The last reply, or the screen pane's item when it has the focus, to the clipboard (Ctrl+G)",
     "app", "copy"),
    ("Older screen item", "Step back through what was shown", "app", "screen_older"),
    ("New memory", "Write a memory for this repository", "memory", "new"),
    ("Edit memory", "Edit the memory selected in the pane", "memory", "edit"),
    ("Delete memory", "Delete the selected memory (asks first)", "memory", "delete"),
    ("Undo delete memory", "Bring back the memory deleted last in this session", "memory", "undo_delete"),
    ("Push to talk", "Start or stop recording a spoken turn", "app", "push_to_talk"),
    ("Mute voice", "Silence or restore the spoken replies", "app", "toggle_mute"),
    ("What's new", "A briefing on what changed since your last session, checked against the repository now",
     "app", "whats_new"),
    ("Sessions", "This repository's saved sessions: continue or read one", "app", "sessions"),
    ("Allowed commands", "The commands that run here without asking (answered always): take one back", "screen",
     "allowed_commands"),
    ("Rewind", "Go back to before a turn: the conversation, the code, the memory (Esc Esc)", "app", "rewind"),
    ("Bring in Claude Code's memory", "Copy what Claude Code's auto memory knows of this repository, for review",
     "app", "bring_in_claude_memory"),
    # memory beyond the pane's keys: all held changes at once, and one agent turn that
    # proposes fixes for what `memory check` found
    ("Still true", "Mark the selected memory verified today (v in the pane)", "memory", "verify"),
    ("Move memory", "Between this repository and you, in every repository (m)", "memory", "move"),
    ("Accept all memory changes", "Apply every change the agent made that waits for you", "memory",
     "decide_all('accept')"),
    ("Reject all memory changes", "Drop every change that waits for you; the agent hears so", "memory",
     "decide_all('reject')"),
    ("Tidy memory", "One agent turn that proposes fixes for what memory check finds", "memory", "tidy"),
    ("Undo code change", "Put back the files of the agent's last applied change (Ctrl+R)", "app", "undo_code_change"),
]
