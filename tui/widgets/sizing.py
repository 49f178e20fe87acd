"""A virtual size that asks for no layout of its own when it changes.

Textual's `Widget.virtual_size` lays the whole screen out again whenever it changes. For
a widget whose virtual size is what a layout of the screen just gave it (a container's
content, a block of a reply), that second layout finds what the first one did, and a key
typed meanwhile waits for it. Textual's own partial layouts already set it this way.
What does change the layout still asks for one itself: a scrollbar that comes or goes
(`show_vertical_scrollbar`), a widget mounted or resized.
"""

from __future__ import annotations

from textual.geometry import Size
from textual.reactive import Reactive


def sized_by_layout() -> Reactive[Size]:
    """A `virtual_size` for a widget class: repaints when it changes, lays nothing out."""
    return Reactive(Size(0, 0), layout=False)
