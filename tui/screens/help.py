"""The help screen: every key, grouped by where it works."""

from __future__ import annotations

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from agent.voice.status import VoiceStatus
from tui import format as fmt

INTRO = (
    "Type a question and press Enter. Replies stream into the conversation; each tool call is "
    "one line that turns into ✓ or × with its duration. Long answers, diffs and logs go to the "
    "screen pane. The memory pane lists what the agent remembers about this repository and "
    "about you, and follows both folders live, whoever writes them."
)

SECTIONS: list[tuple[str, list[tuple[str, str]]]] = [
    (
        "Anywhere",
        [
            ("Enter", "send the turn; while one runs, queue it for when that one ends"),
            ("Ctrl+J", "a new line in the input (Alt+Enter and Shift+Enter too, where the terminal sends them apart from Enter); a paste keeps its lines"),
            ("↑ / ↓", "earlier / later turns you sent (in the input line)"),
            ("Esc", "take queued questions back into the input; else cancel the running turn; silence the voice"),
            ("Esc Esc", "when nothing runs: the rewind list, to go back to before a turn (\"go back to before …\", typed or said, too)"),
            ("F1", "this help"),
            ("{talk}", "push to talk ({talk} again or Enter stops; Esc drops it)"),
            ("F3", "go to the screen pane (shown if hidden); from inside it, hide it"),
            ("F4", "go to the memory pane (shown if hidden); from inside it, hide it"),
            ("F12", "go to the conversation; from inside it (or Esc), back to the input"),
            ("F5", "older item on the screen pane"),
            ("F6", "mute or unmute the voice"),
            ("F7 / F8", "narrower / wider side pane (the focused one, else memory)"),
            ("Ctrl+L", "the last tool log on the screen pane"),
            ("Ctrl+R", "undo the agent's last applied code change (every file of it)"),
            ("Ctrl+G", "copy the last reply (the screen pane's item when it has the focus) to the clipboard, through the terminal"),
            ("Ctrl+C", "copy the text selected with the mouse"),
            ("PgUp / PgDn", "scroll the conversation (from the input line too)"),
            ("Ctrl+End", "the newest output; the conversation follows it again"),
            ("Tab / Shift+Tab", "move between the input, the conversation and the panes"),
            ("Ctrl+P", "command palette"),
            ("Ctrl+Q", "quit"),
        ],
    ),
    ("The rewind list (Esc Esc)", [
        ("1 / 2 / 3", "choose the conversation / the code / the memory, after the preview of each"),
        ("Enter", "go back to before the turn; its words return to the input"),
        ("u", "undo the last rewind"),
    ]),
    ("A code change waiting (the bar above the input)", [
        ("Enter", "apply it; \"apply\" or \"yes\", typed or said, too"),
        ("Esc", "keep the files as they are; \"no\" too"),
    ]),
    ("Conversation (F12 or Tab)", [
        ("↑ / ↓", "pick the previous / next tool line (none that way: scroll)"),
        ("Enter / click", "open the picked tool line's full log on the screen pane"),
        ("PgUp PgDn Home End", "scroll"),
        ("Esc", "back to the input (while a turn runs, cancel it)"),
    ]),
    ("Screen pane", [("←", "older item"), ("→", "newer item"), ("↑ ↓ PgUp PgDn", "scroll")]),
    (
        "Memory pane",
        [
            ("↑ / ↓", "pick a memory; its text shows below the list"),
            ("Enter / Esc", "read it (↑ ↓ scroll, and past either end pick the next memory) / back to the list"),
            ("Ctrl+E", "edit it (Ctrl+S saves through the store; Esc closes, asking first if the text is not saved)"),
            ("Delete", "delete it, after a confirmation (Ctrl+D, or Tab to Delete and Enter)"),
            ("Ctrl+Z", "bring back the memory deleted last (for the rest of the session)"),
            ("Ctrl+W", "write a new memory"),
            ("Ctrl+T", "still true: set its verified date to today"),
            ("Ctrl+O", "move it between this repository and you, in every repository (Ctrl+O again moves it back)"),
            ("Ctrl+Y / Ctrl+X", "accept / reject a change the agent made that waits for you"),
            ("letters", "go to the prompt, as they do from every pane: no letter is a command"),
        ],
    ),
]

OUTRO = (
    "Before a memory's name, its evidence: ✓ the code it cites is intact, → moved, ≠ changed, "
    "× gone, ? not fingerprinted; ◷ it is aging; ▲ tags what memory check found. A save the store "
    "refuses (too long, over the total cap, a credential in the text) says why and keeps your text "
    "in the editor; a memory changed on disk meanwhile lets you keep theirs, keep yours, or see "
    "both side by side. A new memory needs a name and a description."
)


def help_renderable(voice: VoiceStatus | None = None, talk_key: str = "F2") -> Group:
    parts: list = [Text(INTRO), Text("")]
    if voice is not None:
        # the status line may have had to cut the reason voice is off; here it is whole
        parts.extend([Text.assemble(("Voice now: ", "bold"), fmt.sanitize(voice.line().removeprefix("voice: "))), Text("")])
    for title, keys in SECTIONS:
        parts.append(Text(title, style="bold"))
        grid = Table.grid(padding=(0, 2))
        grid.add_column(style="bold cyan", no_wrap=True, min_width=16)
        grid.add_column()
        for key, what in keys:
            grid.add_row(key.format(talk=talk_key), what.format(talk=talk_key))
        parts.extend([grid, Text("")])
    parts.append(Text(OUTRO, style="dim"))
    return Group(*parts)


class HelpScreen(ModalScreen[None]):
    CSS_PATH = "help.tcss"
    BINDINGS = [Binding("escape,f1", "dismiss", "Close")]
    # the app closes help when a printable key reaches it, and puts the key in the prompt
    CLOSES_ON_TYPING = True

    def __init__(self, voice: VoiceStatus | None = None, talk_key: str = "F2") -> None:
        super().__init__()
        self.voice = voice
        self.talk_key = talk_key

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help") as box:
            box.border_title = "devagent · keys"
            box.border_subtitle = "Esc closes"
            yield Static(help_renderable(self.voice, self.talk_key), id="help-text")

    async def action_dismiss(self, result: object = None) -> None:
        self.dismiss(None)

    def close_for_typing(self) -> None:
        self.dismiss(None)
