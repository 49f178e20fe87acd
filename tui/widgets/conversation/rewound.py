"""Questions a rewind took out of the conversation, drawn faint in the pane, kept for reading.

The last `turns` questions still in the conversation (a `UserTurn` not faint already) and
everything after them get the `-rewound` class; undoing the rewind takes it off what the
last one marked.
"""

from __future__ import annotations

from textual.widget import Widget

from tui.widgets.conversation.lines import UserTurn

FAINT = "-rewound"


def mark(children: list[Widget], turns: int) -> list[Widget]:
    """Marks what left the conversation; the widgets it marked."""
    asked = [i for i, child in enumerate(children) if isinstance(child, UserTurn) and not child.has_class(FAINT)]
    if not asked or turns <= 0:
        return []
    marked = [child for child in children[asked[-min(turns, len(asked))]:] if not child.has_class(FAINT)]
    for child in marked:
        child.add_class(FAINT)
    return marked


def unmark(marked: list[Widget]) -> list[Widget]:
    for child in marked:
        child.remove_class(FAINT)
    return []
