"""A memory's row in the pane: drawn by hand as the grid it replaces was, and drawn once
while it stays the same."""

from __future__ import annotations

from rich.console import Console
from rich.text import Text

from tests.tui.conftest import wait_for
from tui.widgets.memory.list_widget import MemoryList
from tui.widgets.memory.row import MemoryRow


def lines_of(row: MemoryRow, width: int) -> list[str]:
    console = Console(width=width, record=True, color_system="truecolor", force_terminal=True)
    console.print(row, end="")
    return console.export_text(styles=False).splitlines()


def sample() -> MemoryRow:
    name = Text("≠ ", "bold yellow")
    name.append("Rename Patch to Diff", "bold")
    about = Text("project", "cyan")
    about.append(" · half-done rename of ChangedFile.Patch", "dim italic")
    return MemoryRow([(name, Text("1.2k · 3d", "dim")), (about, Text())])


def test_the_right_part_is_kept_whole_and_right_aligned():
    for width in (30, 45, 80):
        first, second = lines_of(sample(), width)
        assert len(first) == width and len(second) == width
        assert first.endswith(" 1.2k · 3d")


def test_a_long_left_part_is_cut_with_an_ellipsis_not_wrapped():
    first, second = lines_of(sample(), 30)
    assert first == "≠ Rename Patch to D… 1.2k · 3d"
    assert second.rstrip() == "project · half-done…"  # the same column as the name above


def test_each_part_keeps_its_own_style():
    console = Console(width=40, record=True, color_system="truecolor", force_terminal=True)
    console.print(sample(), end="")
    segments = [s for s in console.render(sample(), console.options) if s.text.strip()]
    styles = {s.text.strip(): s.style for s in segments}
    assert styles["1.2k · 3d"] is not None and styles["1.2k · 3d"].dim
    assert styles["≠"] is not None and styles["≠"].color is not None


async def test_a_row_that_comes_back_unchanged_is_not_drawn_again():
    from textual.app import App, ComposeResult
    from textual.widgets.option_list import Option

    drawn: list[str] = []

    class Counted(MemoryRow):
        def render_strips(self, width, height, style, options):  # type: ignore[no-untyped-def]
            drawn.append(self.lines[0][0].plain)
            return super().render_strips(width, height, style, options)

    class Host(App[None]):
        CSS = "MemoryList { height: 1fr; }"  # as the pane's is: a row added does not resize it

        def compose(self) -> ComposeResult:
            yield MemoryList()

    def rows(names: list[str], listing: MemoryList) -> list[tuple[str, object, Option]]:
        def make(name: str) -> Option:
            return Option(Counted([(Text(name), Text("1k")), (Text("about"), Text())]), id=name)

        return [(n, n, listing.option(n, n, lambda n=n: make(n))) for n in names]

    app = Host()
    async with app.run_test(size=(60, 20)) as pilot:
        listing = app.query_one(MemoryList)
        listing.set_rows(rows(["a", "b", "c"], listing))
        await wait_for(pilot, lambda: sorted(set(drawn)) == ["a", "b", "c"], 5, "the first drawing")
        drawn.clear()
        listing.set_rows(rows(["a", "b", "c", "d"], listing))  # d is new, the rest keep their place
        await wait_for(pilot, lambda: "d" in drawn, 5, "the new row")
        await pilot.pause()
        assert set(drawn) == {"d"}
        drawn.clear()
        listing.set_rows(rows(["a", "b", "c", "d"], listing))  # the same listing again
        await pilot.pause()
        assert drawn == []
        listing.set_rows(rows(["0", "a", "b", "c", "d"], listing))  # every row moves down one
        await wait_for(pilot, lambda: "0" in drawn, 5, "the row above them")
        await pilot.pause()
        # each line's mouse target is its row's new place, not the one it was drawn at
        for index, name in enumerate(["0", "a", "b", "c", "d"]):
            strip = listing.render_line(index * 2)
            assert strip.text.strip().startswith(name)
            targets = {segment.style.meta.get("option") for segment in strip if segment.style and segment.style.meta}
            assert targets == {index}, (name, targets)
        top = listing.content_region.y - listing.region.y
        await pilot.click(MemoryList, offset=(2, top + 6))
        assert listing.highlighted == 3
