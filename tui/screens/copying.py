"""Ctrl+G: the last reply, or the screen pane's item when it has the focus, onto the clipboard.

Through the terminal (OSC 52, Textual's copy_to_clipboard), so it reaches the clipboard of
the machine the terminal runs on, over ssh and inside tmux (with `set -g set-clipboard on`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from textual.widget import Widget

    from tui.widgets.conversation.pane import Conversation
    from tui.widgets.screen.pane import ScreenPane


def what_to_copy(focused: Widget | None, screen_pane: ScreenPane, conversation: Conversation,
                 drawn: list[str]) -> tuple[str, str] | None:
    """(text, what it is) for the copy key, or None when there is nothing. `drawn`: the
    replies' texts as the conversation draws them, oldest first."""
    item = screen_pane.current
    if item is not None and focused is not None and screen_pane in focused.ancestors_with_self:
        return item.content, f"the screen pane's {item.title!r}"
    # the turn's whole reply text; after a resume only the drawn replies hold it
    replies = [conversation.turn_reply_text] if conversation.turn_reply_text.strip() else []
    replies = replies or [text for text in drawn if text.strip()]
    if replies:
        return replies[-1], "the last reply"
    return None
