"""Quoting what the model sent inside a result, at a bounded length.

An error result goes back to the model with the next request: a 1 MB path quoted whole
would double that request and every one after it. Quotes keep the start and the end,
where a name is usually told apart.
"""

from __future__ import annotations

import re

LIMIT = 200


def quoted(text: str, limit: int = LIMIT) -> str:
    """`text` itself when short; otherwise its start and end around a count of what was cut."""
    if len(text) <= limit:
        return text
    keep = max(limit - 30, 2)
    head, tail = text[: keep * 2 // 3], text[-(keep - keep * 2 // 3) :]
    return f"{head}…[{len(text) - len(head) - len(tail):,} characters]…{tail}"


# Control characters (C0, DEL, C1) and the format characters that reorder or hide text.
_UNSHOWABLE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200b-\u200f\u202a-\u202e\u2060\u2066-\u2069\ufeff]")


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    return repr(char)[1:-1] if ord(char) < 0x100 else f"\\u{ord(char):04x}"


def shown_name(name: str) -> str:
    """A file name as one line of valid UTF-8 text: bytes that are not UTF-8 appear as
    \\xe9 escapes, control and reordering characters as \\n, \\x1b or \\u202e.

    A name os.scandir decoded with surrogates cannot be encoded into a request body, so
    one such file name in a listing or the prompt made every request fail; a name holding
    a newline wrote a line of its own choosing into the system prompt.
    """
    try:
        text = name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    except UnicodeEncodeError:  # a lone surrogate that no file name can hold
        text = name.encode("utf-8", "backslashreplace").decode("utf-8")
    return _UNSHOWABLE.sub(_escape, text)
