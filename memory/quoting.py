"""Quoting what the model sent inside a result, at a bounded length.

An error result goes back to the model with the next request: a 1 MB path quoted whole
would double that request and every one after it. Quotes keep the start and the end,
where a name is usually told apart.
"""

from __future__ import annotations

LIMIT = 200


def quoted(text: str, limit: int = LIMIT) -> str:
    """`text` itself when short; otherwise its start and end around a count of what was cut."""
    if len(text) <= limit:
        return text
    keep = max(limit - 30, 2)
    head, tail = text[: keep * 2 // 3], text[-(keep - keep * 2 // 3) :]
    return f"{head}…[{len(text) - len(head) - len(tail):,} characters]…{tail}"


def shown_name(name: str) -> str:
    """A file name as valid UTF-8 text: bytes that are not UTF-8 appear as \\xe9 escapes.

    A name os.scandir decoded with surrogates cannot be encoded into a request body, so
    one such file name in a listing or the prompt made every request fail.
    """
    try:
        return name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    except UnicodeEncodeError:  # a lone surrogate that no file name can hold
        return name.encode("utf-8", "backslashreplace").decode("utf-8")
