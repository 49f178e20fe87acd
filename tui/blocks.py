"""Where a streamed Markdown reply can be cut so that each piece renders on its own.

A reply is shown as a run of Markdown widgets: a write lays out only the newest one, and
the finished ones keep their heights. That is only right when each piece, rendered alone,
gives the blocks the whole text would: the cut goes at a blank line between top-level
blocks, never inside a code fence, a list (whose items and continuations span blank
lines) or before an indented line that continues the block above. And it goes only before
a paragraph: a paragraph has no top margin, so the gap above it is the block before's
bottom margin whether or not the two share a widget (margins collapse only inside one).
"""

from __future__ import annotations

import re

# strings, compiled (and kept) by `re` with the first reply rather than as the app starts
_FENCE = r"^ {0,3}(`{3,}|~{3,})"
_LIST_ITEM = r"^ {0,3}([-+*]|\d{1,9}[.)])(\s|$)"
# what a line cannot start with to begin a paragraph: indentation, headings, fences,
# tables, quotes, HTML, list markers and thematic breaks
_NOT_PARAGRAPH = r"^[\s#`~|><*+=_-]"
# enough of a line to tell whether it starts a list item ("123456789. " is the longest)
_DECIDED = 12


def cut_point(text: str) -> int:
    """The length of the longest start of `text` that ends at a safe cut (0: none yet).

    A cut is at the start of a line that follows a blank line, outside any fence, when that
    line starts a paragraph. The line after the cut must be complete (or long enough) to
    tell what it starts."""
    cut = 0
    fence: str | None = None  # the open fence's marker
    blank_before = False
    offset = 0
    for line in text.splitlines(keepends=True):
        start, offset = offset, offset + len(line)
        complete = line.endswith("\n")
        body = line.rstrip("\r\n")
        if fence is not None:
            # a closing fence: the same marker, at least as long, nothing after it
            if complete and body.strip().startswith(fence) and set(body.strip()) == {fence[0]}:
                fence = None
            blank_before = False
            continue
        if not body.strip():
            blank_before = True
            continue
        if not complete and len(body) < _DECIDED:
            break  # too little of this line to tell what it starts
        # after a blank line, a line that is neither indented nor an item ends any list
        if blank_before and start and not re.match(_NOT_PARAGRAPH, body) and not re.match(_LIST_ITEM, body):
            cut = start
        opening = re.match(_FENCE, body)
        if opening and complete:
            fence = opening.group(1)
        blank_before = False
    return cut
