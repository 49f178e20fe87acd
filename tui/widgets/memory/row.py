"""One memory in the pane's list: two lines, the name with its size and age on the right,
then its findings, type and description.

The list measures every row to know its height and renders it again on each change, so a
row is drawn by hand rather than as a rich Table: a grid laid out each time cost most of
the time an outside write takes to reach the screen. It looks the same as the grid it
replaces (a cell apart, the left part cut with an ellipsis). It is a Textual Visual, so
the list knows its height from its lines without drawing it to measure it; as a Rich
renderable it draws the same lines.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from functools import cache

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions
from rich.measure import Measurement
from rich.segment import Segment
from rich.text import Text
from textual.css.styles import RulesMap
from textual.strip import Strip
from textual.style import Style
from textual.visual import RenderOptions, Visual

GAP = 1  # between the two columns, as the grid had (one cell of padding, collapsed)


@cache
def _console() -> Console:
    # what turns the lines' styles into segments; it writes nowhere
    return Console(file=io.StringIO(), color_system="truecolor", force_terminal=True)


class MemoryRow(Visual):
    """Two lines; each has a left part that takes what is left and a right part kept whole."""

    def __init__(self, lines: list[tuple[Text, Text]]) -> None:
        self.lines = lines
        self.right_width = max((cell_len(right.plain) for _, right in lines), default=0)
        # Drawn lines by width and style: the list draws every row in view again after any
        # change to its options, and a listing keeps the rows that stay the same.
        self.drawn: dict[tuple[int, Style], list[Strip]] = {}

    # --- as a Textual Visual ----------------------------------------------------------

    def get_optimal_width(self, rules: RulesMap, container_width: int) -> int:
        return container_width

    def get_height(self, rules: RulesMap, width: int) -> int:
        return len(self.lines)

    def render_strips(self, width: int, height: int | None, style: Style, options: RenderOptions) -> list[Strip]:
        strips = self.drawn.get((width, style))
        if strips is None:
            console = _console()
            base = style.rich_style
            strips = self.drawn[(width, style)] = [
                Strip(Segment.apply_style(line.render(console, end=""), style=base), line.cell_len)
                for line in self.texts(width)
            ]
        return strips[:height]

    # --- as a Rich renderable ---------------------------------------------------------

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement(1, options.max_width)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> Iterator[Segment]:
        for line in self.texts(options.max_width):
            yield from line.render(console)
            yield Segment.line()

    def texts(self, width: int) -> list[Text]:
        """The row's lines at `width` cells, each exactly that wide."""
        texts = []
        right_width = min(self.right_width, width)
        gap = GAP if right_width else 0
        left_width = max(0, width - right_width - gap)
        for left, right in self.lines:
            # append_text keeps each part's own style; Text.render alone would drop it
            line = Text()
            shown = Text()
            shown.append_text(left)
            shown.truncate(left_width, overflow="ellipsis")
            if shown.cell_len < left_width:
                # filled in the text's own style, as a table cell is
                shown.append(" " * (left_width - shown.cell_len), left.style)
            line.append_text(shown)
            if right_width:
                cut = Text()
                cut.append_text(right)
                cut.truncate(right_width, overflow="ellipsis")
                line.append(" " * (gap + right_width - cut.cell_len))  # right-justified
                line.append_text(cut)
            texts.append(line)
        return texts
