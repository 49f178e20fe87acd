"""The screen pane: what the agent put on screen, and the tools' full logs. Newest first.

The first frame shows its hint alone; the scrolling body that holds what is shown comes
just after it (`_furnish`), or as the first item is shown if that is sooner.
"""

from __future__ import annotations

import asyncio
import re
from typing import Any, Literal, NamedTuple

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.markup import escape
from textual.widgets import Static

from agent.settings.choices import ScreenFormat
from tui import format as fmt

# What show_on_screen may hand over, and the tools' logs, which only the app shows.
PaneFormat = Literal[ScreenFormat, "log"]

EMPTY = (
    "Nothing on screen yet.\n\nLong answers, diffs and build or test logs appear here; "
    "a tool line's log opens here too (click it, or pick it with F12 and ↑ ↓, then Enter)."
)

# The patterns are strings, compiled (and kept) by `re` when a log is first drawn rather
# than as the app starts.
# A line that says something failed, in any toolchain's words: dotnet's "error CS1061",
# Python's "E   ModuleNotFoundError: ..." and "FAILED tests/x.py::y", a traceback's head.
_ERROR = (
    r"(?m)^.*(?:\b(?:error|failed|FAILED|Error|ERROR|FAIL|panicked)\b|\w(?:Error|Exception)\b"
    r"|Traceback \(most recent call last\)).*$|^E {2,}.*$|^INTERNALERROR>.*$"
)
_WARNING = r"(?mi)^.*\bwarning\b.*$"
# Where a log's failures start: a runner's failure section or the first failing line.
_FIRST_FAILURE = (
    r"^(?:=+ (?:FAILURES|ERRORS) =+|_{3,} .+ _{3,}|(?:FAILED|ERROR) \S.*|E {2,}\S.*|Traceback \(most recent call last\):"
    r"|\s*● .+|\s*✘ .+|✖ .+|not ok \d+ .+|\s*--- FAIL: .+|---- \S+ stdout ----|\s*FAIL\s.+|\s*Failed \S+ \[.+"
    r"|.*\b(?:error|fatal error)\b[^:]*:.+)$"
)
# pytest's progress rows ("....F.....s... [ 28%]") say nothing a wrapped row would add.
_PROGRESS = r"^(?P<marks>[.FEsxXp]+)(?P<tail>\s+\[\s*\d+%\])$"


# What the screen keeps of a running command's output (its log keeps all of it).
MAX_STREAMED = 200_000


# A NamedTuple, not a frozen dataclass: the app imports this before its first frame,
# and a dataclass's generated methods are compiled as it is imported.
class ScreenItem(NamedTuple):
    """One thing shown on the screen pane, already made safe to draw."""

    title: str
    content: str
    format: PaneFormat


def first_failure(content: str) -> int | None:
    """The index of the line where a log's failures start, or None."""
    for number, line in enumerate(content.expandtabs(4).split("\n")):
        if re.match(_FIRST_FAILURE, line):
            return number
    return None


def _crop_progress(content: str, width: int | None) -> str:
    if not width:
        return content
    out = []
    for line in content.split("\n"):
        m = re.match(_PROGRESS, line) if len(line) > width else None
        if m:
            room = max(1, width - len(m.group("tail")) - 1)
            line = m.group("marks")[:room] + "…" + m.group("tail")
        out.append(line)
    return "\n".join(out)


def _file_headers(lines: list[str]) -> set[int]:
    """The rows of each `---`/`+++` pair before a hunk: a removed line that reads "-- x"
    is not one."""
    return {row for number in range(len(lines) - 2)
            if lines[number].startswith("--- ") and lines[number + 1].startswith("+++ ")
            and lines[number + 2].startswith("@@") for row in (number, number + 1)}


def _fit_path(line: str, width: int) -> str:
    """A file line in one row: a long path keeps its tail (the file name, then as many
    folders as fit), where wrapped it split at its one space and then mid-name."""
    head, path = line[:4], line[4:]
    if path[:2] in ("a/", "b/"):
        head, path = head + path[:2], path[2:]
    room = max(1, width - len(head) - 1)
    tail = path[-room:]
    cut = tail.find("/")
    if 0 <= cut < len(tail) - 1:
        tail = tail[cut:]  # from a folder's edge, not mid-name
    return head + "…" + tail


def render_plain(item: ScreenItem, width: int | None = None) -> Text:
    content = item.content.expandtabs(4)
    if item.format == "log":
        content = _crop_progress(content, width)
    if item.format != "diff":
        text = Text(content)
        text.highlight_regex(_WARNING, "yellow")
        text.highlight_regex(_ERROR, "bold red")
        return text
    lines = content.split("\n")
    headers = _file_headers(lines)
    if width:
        # the whole path stays in the item, for copying
        lines = [_fit_path(line, width) if n in headers and len(line) > width else line for n, line in enumerate(lines)]
    text = Text("\n".join(lines))
    offset = 0
    for number, line in enumerate(lines):
        style = None
        if number in headers:
            style = "bold"
        elif line.startswith("+"):
            style = "green"
        elif line.startswith("-"):
            style = "red"
        elif line.startswith("@@"):
            style = "cyan"
        if style:
            text.stylize(style, offset, offset + len(line))
        offset += len(line) + 1
    return text


class ScreenPane(Vertical):
    BINDINGS = [
        # arrows only: a bracket typed here belongs to the words going to the prompt
        Binding("left", "older", "Older", show=True),
        Binding("right", "newer", "Newer", show=True),
    ]

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.border_title = "Screen"
        self.items: list[ScreenItem] = []
        self.index = 0
        self.hint = ""  # e.g. how to get back to the conversation on a narrow terminal
        self._rendered_width: int | None = None  # what the shown log or diff was cut to
        self._runs: dict[str, ScreenItem] = {}  # a running command's item, by its run's id
        self._furnishing = asyncio.Lock()

    def compose(self) -> ComposeResult:
        yield Static(EMPTY, classes="empty", id="screen-first")

    def on_mount(self) -> None:
        self.call_after_refresh(self._furnish)

    async def _furnish(self) -> VerticalScroll:
        """The body, mounted in the hint's place the first time it is asked for."""
        async with self._furnishing:
            found = self.query("#screen-body")
            if found:
                return found.only_one(VerticalScroll)
            body = VerticalScroll(Static(EMPTY, classes="empty"), id="screen-body")
            first = self.query("#screen-first")
            await self.mount(body)
            await first.remove()
            return body

    @property
    def current(self) -> ScreenItem | None:
        return self.items[self.index] if self.items else None

    async def show(self, title: str, content: str, format: PaneFormat) -> ScreenItem:
        item = ScreenItem(fmt.sanitize(title), fmt.sanitize(content), format)
        self.items.insert(0, item)
        self.index = 0
        await self._render_current()
        return item

    def append(self, item: ScreenItem, text: str) -> ScreenItem:
        """`item` with `text` added at its end (a running command's output as it comes), its
        start dropped past MAX_STREAMED characters; drawn at once when it is the one shown,
        scrolled to its end. The item as it now is (`item` itself once gone)."""
        for index, shown in enumerate(self.items):
            if shown is item:
                content = shown.content + fmt.sanitize(text)
                if len(content) > MAX_STREAMED:
                    content = "[… the start is cut: the tool's log has it]\n" + content[-MAX_STREAMED:]
                grown = self.items[index] = shown._replace(content=content)
                if index == self.index:
                    body = self.query_one("#screen-body", VerticalScroll)
                    for static in body.query(Static):
                        static.update(render_plain(grown, body.scrollable_content_region.width or None))
                    body.scroll_end(animate=False)
                return grown
        return item

    async def command_started(self, run: str, command: str, where: str) -> None:
        """A command runs: its output shows here as it comes (`command_output`)."""
        self._runs[run] = await self.show(f"Running: $ {command} · {where} · Esc stops it", "", "log")

    def command_output(self, run: str, text: str) -> None:
        if run in self._runs:
            self._runs[run] = self.append(self._runs[run], text)

    def command_ended(self, run: str, said: str) -> None:
        item = self._runs.pop(run, None)
        if item is not None:
            self.retitle(item, f"{item.title.split(' · ')[0].replace('Running: ', '', 1)} · {said}")

    def commands_over(self, said: str) -> None:
        """The turn is over: a command still shown running is not (its end came too late to show)."""
        for run in list(self._runs):
            self.command_ended(run, said)

    def retitle(self, item: ScreenItem, title: str) -> ScreenItem:
        """What `item` shows has a new name (a held change, once decided); no-op once gone."""
        for index, shown in enumerate(self.items):
            if shown is item:
                renamed = self.items[index] = item._replace(title=fmt.sanitize(title))
                if index == self.index:
                    self._title_current()
                return renamed
        return item

    def _title_current(self) -> None:
        item = self.current
        self.border_title = "Screen" if item is None else f"Screen {self.position()} · {escape(item.title)}"
        self._subtitle()

    def focus_body(self) -> None:
        for body in self.query("#screen-body"):
            body.focus()

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
        body = await self._furnish()
        item = self.current
        await body.remove_children()
        self._title_current()
        if item is None:
            await body.mount(Static(EMPTY, classes="empty"))
            return
        if item.format == "markdown":
            # a quarter of a second to import, so not before the first frame
            from textual.widgets import Markdown

            await body.mount(Markdown(item.content, classes="screen-markdown"))
        else:
            width = body.scrollable_content_region.width or None
            self._rendered_width = width
            await body.mount(Static(render_plain(item, width), classes=f"screen-{item.format}"))
        body.scroll_home(animate=False)
        if item.format == "log":
            # A log opens at its first failure, not at the top of a long build.
            self.call_after_refresh(self._scroll_to_failure, item)

    def _scroll_to_failure(self, item: ScreenItem) -> None:
        if self.current is not item:
            return
        line = first_failure(item.content)
        if line is None:
            return
        body = self.query_one("#screen-body", VerticalScroll)
        width = body.scrollable_content_region.width or 1
        # Rows above it, counted as the Static wraps them.
        above = render_plain(ScreenItem(item.title, "\n".join(item.content.split("\n")[:line]), item.format), width)
        rows = len(above.wrap(self.app.console, width)) if line else 0
        body.scroll_to(y=rows, animate=False, immediate=True)

    async def on_resize(self) -> None:
        # Cropped progress rows and a diff's file lines were cut to the old width.
        item = self.current
        if item is not None and item.format in ("log", "diff"):
            body = self.query_one("#screen-body", VerticalScroll)
            width = body.scrollable_content_region.width or None
            if width == self._rendered_width:
                return
            if item.format == "diff":
                # drawn again in place, so the reader keeps their place in a long diff
                self._rendered_width = width
                body.query_one(Static).update(render_plain(item, width))
            else:
                await self._render_current()
