"""The rewind list: go back to before one of this session's turns.

It is given the session (attributes down) and reads the turns' checkpoints and what going
back to each would change in a worker, off the UI thread. The user picks a turn (the list,
newest first, or the turn a spoken "go back to before the rename" named), chooses the
parts (1 the conversation, 2 the code, 3 the memory; all three to begin with) after seeing
what each would change, and Enter goes back; u undoes the last rewind. What happened goes
up as a `RewindScreen.Done` message, with the rewound turn's words for the prompt.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from tui import format as fmt

PARTS = ("conversation", "code", "memory")
LABELS = {"conversation": "Conversation", "code": "Code", "memory": "Memory"}


@dataclass(frozen=True)
class Point:
    """One turn to go back to, as the list shows it, and what each part would change."""

    turn: int
    words: str
    when: float
    lines: dict[str, list[str]]  # part -> the preview's lines
    files: int = 0  # repository files it would put back
    memories: int = 0


def points_of(session: Any) -> list[Point]:
    """The session's turns, newest first, each with its preview (reads files: a worker's job)."""
    found = []
    for checkpoint in reversed(session.turns_to_rewind()):
        plan = session.rewind_preview(checkpoint.turn)
        if plan is not None:
            found.append(Point(checkpoint.turn, checkpoint.words, checkpoint.when, {p: plan.lines(p) for p in PARTS},
                               len(plan.code), len(plan.memory)))
    return found


class RewindScreen(ModalScreen[None]):
    CSS_PATH = "rewind.tcss"
    AUTO_FOCUS = "#turns"
    BINDINGS = [
        Binding("escape", "close", "Close"),
        Binding("1", "choose('conversation')", "Conversation", show=False),
        Binding("2", "choose('code')", "Code", show=False),
        Binding("3", "choose('memory')", "Memory", show=False),
        Binding("u", "undo", "Undo last rewind", show=False),
    ]

    class Done(Message):
        """A rewind (or its undo) happened: what to say, and the words back for the prompt."""

        def __init__(self, said: str, words: str | None, refused: bool, turns_back: int = 0,
                     restored: bool = False) -> None:
            super().__init__()
            self.said = said
            self.words = words
            self.refused = refused
            self.turns_back = turns_back  # questions that left the conversation
            self.restored = restored  # an undo gave them back

    def __init__(self, session: Any, chosen_turn: int | None = None) -> None:
        super().__init__()
        self.session = session
        self.chosen_turn = chosen_turn
        self.points: list[Point] = []
        self.parts = set(PARTS)
        self.busy = False

    def compose(self) -> ComposeResult:
        with Vertical(id="rewind") as box:
            box.border_title = "Rewind: go back to before a turn"
            yield OptionList(id="turns")
            yield Static(self._parts_text(), id="parts")
            with VerticalScroll(id="preview-box"):
                yield Static("Reading the checkpoints…", id="preview")
            yield Static(Text("Enter goes back · 1 2 3 choose conversation, code, memory · u undoes the last rewind · "
                              "Esc closes", style="dim"), id="rewind-help")

    def on_mount(self) -> None:
        self.load()

    @work(thread=True, exclusive=True, group="rewind-preview")
    def load(self) -> None:
        points = points_of(self.session)
        self.app.call_from_thread(self.loaded, points)

    def loaded(self, points: list[Point]) -> None:
        if not self.is_attached or self.app.screen is not self:
            return  # closed (or replaced by a list opened again) while it read
        self.points = points
        turns = self.query_one("#turns", OptionList)
        turns.clear_options()
        if not points:
            self.query_one("#preview", Static).update("No turn of this session to go back to yet.")
            return
        turns.add_options([Option(self._row(p), id=str(p.turn)) for p in points])
        index = next((i for i, p in enumerate(points) if p.turn == self.chosen_turn), 0)
        turns.highlighted = index
        self._show_preview()

    @staticmethod
    def _row(point: Point) -> Text:
        row = Text()
        row.append(f"turn {point.turn:>3}  ", style="bold")
        row.append(time.strftime("%H:%M", time.localtime(point.when)) + "  ", style="dim")
        changed = ", ".join(f"{n} {what}{'s' if n != 1 else ''}" for n, what in ((point.files, "file"), (point.memories, "memory"))
                            if n).replace("memorys", "memories")
        row.append(f"{changed:<18}" if changed else " " * 18, style="dim")
        row.append(fmt.one_line(fmt.sanitize(point.words), 200))
        return row

    def _point(self) -> Point | None:
        highlighted = self.query_one("#turns", OptionList).highlighted
        return self.points[highlighted] if highlighted is not None and highlighted < len(self.points) else None

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        self._show_preview()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.go()

    def _parts_text(self) -> Text:
        text = Text()
        for number, part in enumerate(PARTS, 1):
            on = part in self.parts
            text.append(f" {number} ", style="reverse" if on else "dim")
            text.append(f" {'☑' if on else '☐'} {LABELS[part]}   ", style="bold" if on else "dim")
        return text

    def _show_parts(self) -> None:
        self.query_one("#parts", Static).update(self._parts_text())

    def _show_preview(self) -> None:
        point = self._point()
        if point is None:
            return
        text = Text()
        text.append(f"Going back to before turn {point.turn} changes:\n", style="bold")
        for part in PARTS:
            chosen = part in self.parts
            text.append(f"{LABELS[part]}{'' if chosen else ' (not chosen)'}\n", style="bold underline" if chosen else "dim")
            for line in point.lines[part]:
                text.append(f"  {fmt.sanitize(line)}\n", style="" if chosen else "dim")
        self.query_one("#preview", Static).update(text)

    def action_choose(self, part: str) -> None:
        self.parts ^= {part}
        self._show_parts()
        self._show_preview()

    def action_close(self) -> None:
        self.dismiss(None)

    def go(self) -> None:
        point = self._point()
        if point is None or self.busy:
            return
        if not self.parts:
            self.notify("Choose at least one part: 1 conversation, 2 code, 3 memory.", severity="warning")
            return
        self.busy = True
        self.rewind(point.turn, sorted(self.parts))

    @work(thread=True, exclusive=True, group="rewind")
    def rewind(self, turn: int, parts: list[str]) -> None:
        done = self.session.rewind(turn, parts)
        self.app.call_from_thread(self.finish, self.Done(done.said, done.words, bool(done.refused), done.turns_back))

    def action_undo(self) -> None:
        if not self.busy:
            self.busy = True
            self.undo()

    @work(thread=True, exclusive=True, group="rewind")
    def undo(self) -> None:
        done = self.session.undo_rewind()
        self.app.call_from_thread(self.finish, self.Done(done.said, None, bool(done.refused), restored=done.restored))

    def finish(self, done: RewindScreen.Done) -> None:
        self.post_message(done)
        self.dismiss(None)
