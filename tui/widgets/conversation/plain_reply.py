"""A reply's text as plain lines, for the moments Markdown is not imported yet.

Markdown takes a quarter of a second to import and is imported in the background once the
session is up, beside a question that may have been asked at once. The first words of that
reply do not wait for it: they show as plain text, and the conversation turns the piece
into Markdown as soon as the import is done.
"""

from __future__ import annotations

import sys
from typing import Any

from textual.widgets import Static

REPLY_MODULE = "tui.widgets.conversation.reply"


def markdown_ready() -> Any:
    """tui.widgets.conversation.reply when it is fully imported (it sets READY last), else None."""
    module = sys.modules.get(REPLY_MODULE)
    return module if getattr(module, "READY", False) else None


class PlainReply(Static):
    DEFAULT_CSS = """
    PlainReply {
        padding: 0 1;
        margin: 0 0 1 0;
    }
    PlainReply.-after-tools {
        margin-top: 1;
    }
    """

    is_reply = True  # what the conversation checks
    sealed = False

    def __init__(self, **kwargs: Any) -> None:
        super().__init__("", markup=False, **kwargs)
        self.source = ""

    async def append(self, text: str) -> None:
        await self.update_text(self.source + text)

    async def update_text(self, text: str) -> None:
        self.source = text
        self.update(text)

    async def seal(self) -> None:
        self.sealed = True
