"""A piece of a streamed reply, rendered as Markdown.

Its own module because Textual's Markdown (markdown-it, the highlighter) takes a quarter
of a second to import: the conversation imports this on its first reply, and the app
imports it in the background once its first frame is out.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from textual.geometry import Region, Size
from textual.reactive import Reactive
from textual.widget import Widget
from textual.widgets import Markdown
from textual.widgets.markdown import MarkdownBlock

from tui.widgets.sizing import sized_by_layout

# how much text the open piece of a reply gathers before it may be cut
PIECE_CHARS = 1500


def _laid_out_once(block: type[MarkdownBlock]) -> type[MarkdownBlock]:
    """Markdown's `block` as a reply's block: one layout of the screen per write.

    A write parses new blocks and fills them before they are mounted; each kept the layout
    that filling asked for until it was mounted, then asked again, after the mount had
    laid it out: a second layout of the whole screen, a few hundredths of a second later,
    that a key typed meanwhile waited for. The subclass has the block's own name, so the
    stylesheets select it as before (a mixin class of its own would bring its own copy of
    the block's default styles, in another order)."""

    def refresh(self: MarkdownBlock, *regions: Region, repaint: bool = True, layout: bool = False,
                recompose: bool = False) -> MarkdownBlock:
        # not mounted yet: the mount lays it out with whatever it holds by then
        return block.refresh(self, *regions, repaint=repaint, layout=layout and self.is_mounted, recompose=recompose)

    namespace: dict[str, object] = {"refresh": refresh}
    if block in _LISTS:
        namespace["compose"] = _rows_laid_out_once(block)
    return _kin(block, namespace)


def _kin(widget: type[Widget], namespace: dict[str, object]) -> type[Any]:
    """A subclass of `widget` under its own name (the stylesheets select it as before) whose
    virtual size asks for no layout, with `namespace` besides."""
    return type(widget.__name__, (widget,), {"virtual_size": sized_by_layout(), "__module__": __name__, **namespace})


# Markdown's list blocks (their module is private: they are found by the tokens they take)
_LISTS = {Markdown.BLOCKS.get("bullet_list_open"), Markdown.BLOCKS.get("ordered_list_open")}
_row_parts: dict[type[Widget], type[Widget]] = {}


def _row_part(widget: type[Widget]) -> type[Widget]:
    """`widget` under its own name, with a size that asks for no layout (made once)."""
    if widget not in _row_parts:
        _row_parts[widget] = _kin(widget, {})
    return _row_parts[widget]


def _rows_laid_out_once(block: type[MarkdownBlock]) -> object:
    """A list's compose whose rows ask for no second layout either.

    Markdown's lists build each item as a row of plain containers, not of its blocks, so
    the sizes the first layout gives a row (a Horizontal), its bullet and its column (a
    Vertical) would each ask for another layout of the whole screen. Markdown builds the
    row as before; the row and those two then become their same-named kin whose size asks
    for none. (What the column holds are the reply's own blocks already.)"""

    def compose(self: MarkdownBlock) -> Iterator[Widget]:
        for row in block.compose(self):
            for part in (row, *row._pending_children):
                if type(part) not in _row_parts.values():
                    part.__class__ = _row_part(type(part))
            yield row

    return compose


def _blocks() -> dict[str, type[MarkdownBlock]]:
    # each of Markdown's block classes once (two names share the code block)
    made: dict[type[MarkdownBlock], type[MarkdownBlock]] = {}
    for block in Markdown.BLOCKS.values():
        if block not in made:
            made[block] = _laid_out_once(block)
    return {name: made[block] for name, block in Markdown.BLOCKS.items()}


class Reply(Markdown):
    """A piece of reply text; a tool call in the middle of a reply starts a new reply.

    A long reply is a run of pieces, each a child of the conversation: a write goes to
    the last one, so it lays out only that piece however long the reply has grown, and a
    sealed piece works out its height once per width instead of walking its blocks on
    every layout. tui.blocks says where a piece may end.
    """

    BLOCKS = _blocks()
    virtual_size: Reactive[Size] = sized_by_layout()

    is_reply = True  # what the conversation checks, without importing this module
    sealed = False
    _sealed_height: tuple[int, int] | None = None

    def seal(self) -> None:
        """No more text comes to this piece."""
        self.sealed = True

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        if self.sealed and self._sealed_height is not None and self._sealed_height[0] == width:
            return self._sealed_height[1]
        height = super().get_content_height(container, viewport, width)
        if self.sealed:
            self._sealed_height = (width, height)
        return height

READY = True  # set last: tui.widgets.plain_reply.markdown_ready() looks for it
