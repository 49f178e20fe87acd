"""One memory in the pane's list: two lines, the name with its size and age on the right,
then its findings, type and description.

The list measures every row to know its height and renders it again on each change, so a
row is drawn by hand rather than as a rich Table: a grid laid out each time cost most of
the time an outside write takes to reach the screen. It looks the same as the grid it
replaces (a cell apart, the left part cut with an ellipsis).
"""

from __future__ import annotations

from collections.abc import Iterator

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions
from rich.measure import Measurement
from rich.segment import Segment
from rich.text import Text

GAP = 1  # between the two columns, as the grid had (one cell of padding, collapsed)


class MemoryRow:
    """Two lines; each has a left part that takes what is left and a right part kept whole."""

    def __init__(self, lines: list[tuple[Text, Text]]) -> None:
        self.lines = lines
        self.right_width = max((cell_len(right.plain) for _, right in lines), default=0)

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement(1, options.max_width)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> Iterator[Segment]:
        width = options.max_width
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
            yield from line.render(console)
            yield Segment.line()
