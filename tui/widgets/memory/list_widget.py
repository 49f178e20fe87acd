"""The memory pane's list: an OptionList changed by difference, not filled anew.

The pane lists the folder again on every change. Replacing every option (`clear_options`)
empties the list's drawn rows and its measured heights, and scrolls it to the top: drawing
them all again took most of the time an outside write needed to reach the screen. Here a
listing changes only what differs from the one shown: the rows it shares from the top stay
as they are (and keep their drawing when rows are only added below them), a row that shows
something else in the same place gets its new prompt, and only the rest is removed and
added. A row that comes back unchanged keeps its Option (reused through `option()`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, cast

from textual.css.styles import RulesMap
from textual.geometry import Region
from textual.visual import visualize
from textual.widgets import OptionList
from textual.widgets.option_list import Option

Row = tuple[str, object, Option]  # (slot, what the row shows, its Option)


class MemoryList(OptionList):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.shown: list[tuple[str, object]] = []  # (slot, shows) of each option, in order
        self.made: dict[str, tuple[object, Option]] = {}

    def option(self, slot: str, shows: object, make: Callable[[], Option]) -> Option:
        """The Option for the row at `slot` (a memory's path, a header's title): the last
        listing's if it showed the same (`shows` compares equal), else made now."""
        found = self.made.get(slot)
        return found[1] if found is not None and found[0] == shows else make()

    def set_rows(self, rows: Sequence[Row]) -> None:
        """Show `rows` (slot, what the row shows, its Option from `option`) in this order,
        changing only the options that differ from those shown."""
        wanted = [(slot, shows) for slot, shows, _ in rows]
        kept = 0
        while kept < min(len(wanted), len(self.shown)) and wanted[kept] == self.shown[kept]:
            kept += 1
        if len(wanted) == len(self.shown) and all(
            self._same_kind(index, rows[index]) for index in range(kept, len(wanted))
        ):
            # the same rows in the same places, some showing something new (an age, a mark)
            for index in range(kept, len(wanted)):
                if wanted[index] != self.shown[index]:
                    self.replace_option_prompt_at_index(index, rows[index][2].prompt)
        else:
            # Each removal clamps the highlight, and a highlight that moves scrolls the list
            # to it and says so: the highlight is set aside meanwhile (the pane puts it on
            # the row it was on, once the rows are in).
            highlighted = self.highlighted
            self.set_reactive(OptionList.highlighted, None)
            for index in reversed(range(kept, self.option_count)):
                self.remove_option_at_index(index)
            self.add_options([option for _, _, option in rows[kept:]])
            if highlighted is not None and self.option_count:
                self.set_reactive(OptionList.highlighted, min(highlighted, self.option_count - 1))
        self.shown = wanted
        # the Options the list holds now, the ones the next listing reuses
        self.made = {slot: (shows, self.get_option_at_index(index)) for index, (slot, shows) in enumerate(wanted)}

    def _same_kind(self, index: int, row: Row) -> bool:
        """Whether the option at `index` can take `row`'s prompt in place: the same slot,
        id and whether it can be picked."""
        slot, _, option = row
        current = self.get_option_at_index(index)
        return self.shown[index][0] == slot and current.id == option.id and current.disabled == option.disabled

    def reveal(self, index: int) -> None:
        """Scroll so the option at `index` shows whole, the highlight left where it is (as
        OptionList.scroll_to_highlight does for the highlighted one)."""
        width = self.scrollable_content_region.width
        if not 0 <= index < self.option_count or width <= 0:
            return  # not laid out yet: the list opens at its highlight anyway
        heights = [self._row_height(self.get_option_at_index(at), width) for at in range(index + 1)]
        y = sum(heights[:-1])
        self.scroll_to_region(Region(0, y, width, heights[-1]), animate=False, immediate=True)

    def _row_height(self, option: Option, width: int) -> int:
        padding = self.get_component_styles("option-list--option").padding
        return visualize(self, option.prompt).get_height(cast(RulesMap, self.styles), width - padding.width) + padding.height
