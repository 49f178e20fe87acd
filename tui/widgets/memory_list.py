"""The memory pane's list: an OptionList that draws a row once while it stays the same.

The pane lists the folder again on every change, and OptionList forgets every rendered row
when its options are replaced: drawing them all again took most of the time an outside
write needed to reach the screen. Here a row that comes back unchanged (the same Option,
reused through `option()`) at the same place and width keeps the lines it had, so a new memory
costs the drawing of one row.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from rich.segment import Segment
from rich.style import Style as RichStyle
from textual.css.styles import RulesMap
from textual.geometry import Region, Size
from textual.reactive import Reactive
from textual.strip import Strip
from textual.style import Style
from textual.visual import RichVisual, Visual
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from tui.widgets.memory_row import MemoryRow
from tui.widgets.sizing import sized_by_layout


class RowVisual(RichVisual):
    """A memory's row as the list draws it, with its height known without drawing it
    (the list measures every row on each change; a rich renderable is drawn to be measured)."""

    def __init__(self, widget: OptionList, row: MemoryRow) -> None:
        super().__init__(widget, row)
        self.row = row

    def get_height(self, rules: RulesMap, width: int) -> int:
        return len(self.row.lines)


class MemoryList(OptionList):
    # The pane sets the list's height, not its rows (app.tcss): a row added or gone needs
    # the rows and the scrollbar repainted, not the whole screen laid out again.
    virtual_size: Reactive[Size] = sized_by_layout()

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._drawn: dict[tuple[Any, ...], list[Strip]] = {}  # with the row's index
        self._plain: dict[tuple[Any, ...], list[Strip]] = {}  # first drawn, at any index
        self._made: dict[str, tuple[object, Option]] = {}
        self._visuals: dict[int, Visual] = {}  # id(option): its visual, for the rows shown

    def option(self, slot: str, shows: object, make: Callable[[], Option]) -> Option:
        """The Option for the row at `slot` (a memory's path, a header's title): the last
        listing's if it showed the same (`shows` compares equal), else made now."""
        found = self._made.get(slot)
        return found[1] if found is not None and found[0] == shows else make()

    def set_rows(self, rows: Sequence[tuple[str, object, Option]]) -> None:
        """Replace the options: (slot, what the row shows, its Option from `option`) each."""
        self._made = {slot: (shows, option) for slot, shows, option in rows}
        kept = {id(option) for _, _, option in rows}
        self._drawn = {key: strips for key, strips in self._drawn.items() if id(key[0]) in kept}
        self._plain = {key: strips for key, strips in self._plain.items() if id(key[0]) in kept}
        self._visuals = {key: visual for key, visual in self._visuals.items() if key in kept}
        place = self.scroll_y
        self.clear_options()
        self.add_options([option for _, _, option in rows])
        self.scroll_y = place  # a new listing keeps the list where it was (clamped to its end)

    def _size_updated(self, size: Size, virtual_size: Size, container_size: Size, layout: bool = True) -> bool:
        # A scroll view keeps its own virtual size (its rows) and ignores the layout's, yet
        # resizes its scrollbars whenever the two differ: for a list with more rows than fit,
        # that was every layout of the screen (each streamed write of a reply), a repaint
        # of the scrollbar and one more screen update each time, for nothing.
        if size == self._size and size - self.styles.gutter.totals == self._container_size:
            return False
        return super()._size_updated(size, virtual_size, container_size, layout)

    def reveal(self, index: int) -> None:
        """Scroll so the option at `index` shows whole, the highlight left where it is (as
        OptionList.scroll_to_highlight does for the highlighted one)."""
        self._update_lines()
        try:
            y, height = self._index_to_line[index], self._heights[index]
        except KeyError:
            return
        self.scroll_to_region(Region(0, y, self.scrollable_content_region.width, height), animate=False, immediate=True)

    def _get_visual(self, option: Option) -> Visual:
        if not isinstance(option.prompt, MemoryRow):
            return super()._get_visual(option)
        visual = self._visuals.get(id(option))
        if visual is None:
            visual = self._visuals[id(option)] = RowVisual(self, option.prompt)
        return visual

    def _get_option_render(self, option: Option, style: Style) -> list[Strip]:
        # The index is in the lines (as the option's mouse target), so it is in the key too;
        # a row that only moved (a memory added above it) takes its drawn lines and gets
        # its new index, which is cheap beside drawing them again.
        index = self._option_to_index[option]
        width = self.scrollable_content_region.width
        key = (option, style, index, width)
        strips = self._drawn.get(key)
        if strips is not None:
            return strips
        plain = self._plain.get((option, style, width))
        if plain is None:
            strips = super()._get_option_render(option, style)
            self._plain[(option, style, width)] = strips
        else:
            # after the segments' own style, so the new index replaces the one drawn with
            target = RichStyle.from_meta({"option": index})
            strips = [Strip(Segment.apply_style(list(strip), post_style=target), strip.cell_length) for strip in plain]
        self._drawn[key] = strips
        return strips
