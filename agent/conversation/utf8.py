"""Text that can always be encoded: what enters the history, a transcript or a request.

Python strings can hold lone surrogates: a file name or a command-line argument that is not
UTF-8 arrives as `\\udcXX` (surrogateescape), and JSON may carry a `\\ud800` escape. The
SDK, the API and the transcript all need UTF-8, and one such character left in the history
would fail every later request. Each is replaced with U+FFFD, and the caller says so in the
text, so the model knows the name it sees is not quite the name on disk.
"""

from __future__ import annotations

from typing import Any

REPLACEMENT = "\ufffd"


def valid(text: str) -> tuple[str, int]:
    """`text` as valid Unicode, and how many characters were replaced.

    A surrogate pair split over two code points is joined into the one character it means;
    only a lone surrogate becomes U+FFFD.
    """
    if text.isascii():
        return text, 0
    try:
        text.encode("utf-8")
        return text, 0
    except UnicodeEncodeError:
        pass
    before = text.count(REPLACEMENT)
    fixed = text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    return fixed, fixed.count(REPLACEMENT) - before


def valid_value(value: Any) -> tuple[Any, int]:
    """A JSON-like value (dicts, lists, strings) with every string made valid, keys included;
    returns the value itself when nothing needed replacing."""
    if isinstance(value, str):
        return valid(value)
    if isinstance(value, dict):
        total = 0
        cleaned: dict[str, Any] = {}
        for key, item in value.items():
            new_key, n = valid(key) if isinstance(key, str) else (key, 0)
            new_item, m = valid_value(item)
            cleaned[new_key] = new_item
            total += n + m
        return (cleaned, total) if total else (value, 0)
    if isinstance(value, (list, tuple)):
        items = [valid_value(item) for item in value]
        total = sum(n for _, n in items)
        return ([item for item, _ in items], total) if total else (value, 0)
    return value, 0


def replaced_note(count: int, what: str) -> str:
    """One sentence saying that `what` lost `count` characters to U+FFFD."""
    noun = "character" if count == 1 else "characters"
    verb = "was" if count == 1 else "were"
    return (
        f"Note: {count} {noun} of {what} {verb} not valid UTF-8 (a file name or argument in "
        f"another encoding, say) and {verb} replaced with {REPLACEMENT}."
    )


def as_text(value: Any) -> str:
    """Whatever a caller passed as a turn's words, as a string."""
    if isinstance(value, str):
        return value
    if isinstance(value, (bytes, bytearray)):
        # Undecodable bytes become surrogates here, so valid() counts and notes them.
        return bytes(value).decode("utf-8", "surrogateescape")
    return "" if value is None else str(value)
