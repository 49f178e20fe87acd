"""A piece of a streamed reply, rendered as Markdown.

Its own module because Textual's Markdown (markdown-it, the highlighter) takes a quarter
of a second to import: the conversation imports this on its first reply, and the app
imports it in the background once its first frame is out.
"""

from __future__ import annotations

from textual.geometry import Region, Size
from textual.reactive import Reactive
from textual.widgets import Markdown
from textual.widgets.markdown import MarkdownBlock

# how much text the open piece of a reply gathers before it may be cut
PIECE_CHARS = 1500


def _sized_by_layout() -> Reactive[Size]:
    """A virtual size whose change asks for no layout of its own.

    The layout that places a piece or a block sets its size; Textual's own virtual size
    then asks for a second layout of the whole screen, which gives the same result (its
    partial layouts already set it this way). Scrollbars, which do change the layout (a
    code block's), still ask for it themselves."""
    return Reactive(Size(0, 0), layout=False)


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

    return type(block.__name__, (block,), {"virtual_size": _sized_by_layout(), "refresh": refresh, "__module__": __name__})


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
    virtual_size: Reactive[Size] = _sized_by_layout()

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
