"""The screen pane: what the agent put on screen, and the tools' full logs. Newest first."""

from __future__ import annotations

import re
from dataclasses import dataclass

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.markup import escape
from textual.widgets import Markdown, Static

from tui import format as fmt

EMPTY = (
    "Nothing on screen yet.\n\nLong answers, diffs and build or test logs appear here; "
    "a tool line's log opens here too (select it and press Enter)."
)

_ERROR = re.compile(r"^.*\b(error|failed|FAILED|Error)\b.*$", re.MULTILINE)
_WARNING = re.compile(r"^.*\bwarning\b.*$", re.MULTILINE | re.IGNORECASE)


@dataclass(frozen=True)
class ScreenItem:
    title: str
    content: str
    format: str  # markdown | text | diff | log


def render_plain(item: ScreenItem) -> Text:
    text = Text(item.content.expandtabs(4))
    if item.format == "diff":
        for offset, line in _lines(item.content):
            style = None
            if line.startswith(("+++", "---")):
                style = "bold"
            elif line.startswith("+"):
                style = "green"
            elif line.startswith("-"):
                style = "red"
            elif line.startswith("@@"):
                style = "cyan"
            if style:
                text.stylize(style, offset, offset + len(line))
    else:
        text.highlight_regex(_WARNING, "yellow")
        text.highlight_regex(_ERROR, "bold red")
    return text


def _lines(content: str):
    offset = 0
    for line in content.expandtabs(4).split("\n"):
        yield offset, line
        offset += len(line) + 1


class ScreenPane(Vertical):
    BINDINGS = [
        Binding("left,left_square_bracket", "older", "Older", show=True),
        Binding("right,right_square_bracket", "newer", "Newer", show=True),
    ]

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.border_title = "Screen"
        self.items: list[ScreenItem] = []
        self.index = 0
        self.hint = ""  # e.g. how to get back to the conversation on a narrow terminal

    def compose(self) -> ComposeResult:
        yield VerticalScroll(Static(EMPTY, classes="empty"), id="screen-body")

    @property
    def current(self) -> ScreenItem | None:
        return self.items[self.index] if self.items else None

    async def show(self, title: str, content: str, format: str) -> None:
        self.items.insert(0, ScreenItem(fmt.sanitize(title), fmt.sanitize(content), format))
        self.index = 0
        await self._render_current()

    def set_hint(self, hint: str) -> None:
        if hint != self.hint:
            self.hint = hint
            self._subtitle()

    def _subtitle(self) -> None:
        parts = ["←/→ older/newer"] if len(self.items) > 1 else []
        if self.hint:
            parts.append(self.hint)
        self.border_subtitle = " · ".join(parts)

    def position(self) -> str:
        """Where the shown item is among them, saying which end is the newest."""
        count = len(self.items)
        if count == 1:
            return "1/1"
        if self.index == 0:
            return f"1/{count} newest"
        return f"{self.index + 1}/{count} {'oldest' if self.index == count - 1 else 'older'}"

    async def older(self) -> None:
        if self.index + 1 < len(self.items):
            self.index += 1
            await self._render_current()

    async def newer(self) -> None:
        if self.index > 0:
            self.index -= 1
            await self._render_current()

    async def action_older(self) -> None:
        await self.older()

    async def action_newer(self) -> None:
        await self.newer()

    async def _render_current(self) -> None:
        item = self.current
        body = self.query_one("#screen-body", VerticalScroll)
        await body.remove_children()
        if item is None:
            self.border_title = "Screen"
            self._subtitle()
            await body.mount(Static(EMPTY, classes="empty"))
            return
        self.border_title = f"Screen {self.position()} · {escape(item.title)}"
        self._subtitle()
        if item.format == "markdown":
            await body.mount(Markdown(item.content, classes="screen-markdown"))
        else:
            await body.mount(Static(render_plain(item), classes=f"screen-{item.format}"))
        body.scroll_home(animate=False)
