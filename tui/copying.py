"""Ctrl+G: the last reply, or the screen pane's item when it has the focus, onto the clipboard.

Through the terminal (OSC 52, Textual's copy_to_clipboard), so it reaches the clipboard of
the machine the terminal runs on, over ssh and inside tmux (with `set -g set-clipboard on`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tui.host import CopyHost


def what_to_copy(app: CopyHost) -> tuple[str, str] | None:
    """(text, what it is) for the copy key, or None when there is nothing."""
    from tui.widgets.conversation.reply import Reply

    focused = app.focused
    item = app.screen_pane.current
    if item is not None and focused is not None and app.screen_pane in focused.ancestors_with_self:
        return item.content, f"the screen pane's {item.title!r}"
    # the turn's whole reply text; after a resume only the drawn replies hold it
    replies = [app.conversation.turn_reply_text] if app.conversation.turn_reply_text.strip() else []
    replies = replies or [r.source for r in app.query(Reply) if r.source.strip()]
    if replies:
        return replies[-1], "the last reply"
    return None


def copy(app: CopyHost) -> None:
    found = what_to_copy(app)
    if found is None:
        app.notify("Nothing to copy yet: no reply, and nothing on the screen pane.")
        return
    text, what = found
    app.copy_to_clipboard(text)
    app.notify(f"Copied {what} ({len(text):,} characters) to the clipboard, through the terminal.", title="Copy")
