"""A piece of a streamed reply, rendered as Markdown.

Its own module because Textual's Markdown (markdown-it, the highlighter) takes a quarter
of a second to import: the conversation imports this on its first reply, and the app
imports it in the background once its first frame is out.
"""

from __future__ import annotations

import asyncio

from textual.geometry import Size
from textual.widgets import Markdown
from textual.widgets.markdown import MarkdownStream

# how much text the open piece of a reply gathers before it may be cut
PIECE_CHARS = 1500


class Reply(Markdown):
    """A piece of reply text; a tool call in the middle of a reply starts a new reply.

    A long reply is a run of pieces, each a child of the conversation: a write goes to
    the last one, so it lays out only that piece however long the reply has grown, and a
    sealed piece works out its height once per width instead of walking its blocks on
    every layout. tui.blocks says where a piece may end. Text reaches the open piece
    through its MarkdownStream, which gathers what arrives while a write is still being
    parsed and mounted.
    """

    is_reply = True  # what the conversation checks, without importing this module
    sealed = False
    sealed_height: tuple[int, int] | None = None  # (width, height) once sealed
    stream: MarkdownStream | None = None

    async def write(self, text: str) -> None:
        """Append `text` through the piece's stream (started on the first write)."""
        if not text:
            # a stream started for nothing: its task would not have run before a stop,
            # and MarkdownStream.stop cancels it, so the await raises CancelledError into
            # the app's handler and the app stops (the writer asks this once Markdown is in)
            return
        if self.stream is None:
            self.stream = Markdown.get_stream(self)
        await self.stream.write(text)

    async def settle(self) -> None:
        """Wait until everything written has been appended, and stop the stream."""
        stream, self.stream = self.stream, None
        if stream is not None:
            await asyncio.sleep(0)  # its task has begun (see write) before it is stopped
            await stream.stop()

    async def seal(self) -> None:
        """No more text comes to this piece."""
        await self.settle()
        self.sealed = True

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        if self.sealed and self.sealed_height is not None and self.sealed_height[0] == width:
            return self.sealed_height[1]
        height = super().get_content_height(container, viewport, width)
        if self.sealed:
            self.sealed_height = (width, height)
        return height


READY = True  # set last: tui.widgets.plain_reply.markdown_ready() looks for it
