"""Short human-readable renderings shared by the panes and the status line, and the one
sanitiser every widget passes outside text through before it reaches the terminal."""

from __future__ import annotations

import re
import time

# Colour codes carry no content: they go. Every other control character is shown as a
# visible stand-in (ESC as ␛, BEL as ␇), so `ESC[2J` or an OSC title sequence written by
# the model, a memory file, a tool or a file name reads as text instead of clearing the
# screen or renaming the terminal. Bidi controls, which reorder what is shown, are dropped.
_SGR = re.compile(r"\x1b\[[0-9;:]*m")
_VISIBLE: dict[int, str | None] = {c: chr(0x2400 + c) for c in range(0x20) if c not in (0x09, 0x0A)}
_VISIBLE[0x0D] = None  # a CR before a newline is a line ending; alone it would overwrite the line
_VISIBLE[0x7F] = "\u2421"  # ␡
_VISIBLE.update({c: f"\\x{c:02x}" for c in range(0x80, 0xA0)})  # C1: no pictures exist for them
_VISIBLE.update({c: None for c in (0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A))})
_VISIBLE.update({0x2028: "\n", 0x2029: "\n"})
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]")


def sanitize(text: str) -> str:
    """`text` with no control character left that a terminal would act on."""
    if not _UNSAFE.search(text):
        return text  # the common case, a reply delta: no copy
    return _SGR.sub("", text).translate(_VISIBLE)


def chars(n: int) -> str:
    """Sizes in characters: 812, 1.2k, 14k."""
    if n < 1000:
        return str(n)
    if n < 10_000:
        return f"{n / 1000:.1f}k"
    return f"{round(n / 1000)}k"


def tokens(n: int) -> str:
    return chars(n)


def age(modified: float, now: float | None = None) -> str:
    """How long ago, in the largest unit that fits: now, 42s, 5m, 3h, 2d, 7w."""
    seconds = max(0.0, (time.time() if now is None else now) - modified)
    if seconds < 10:
        return "now"
    for unit, size in (("w", 604800), ("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{int(seconds // size)}{unit}"
    return f"{int(seconds)}s"


def ago(modified: float, now: float | None = None) -> str:
    """How long ago, as words that stand alone: "just now", "42s ago", "3d ago"."""
    when = age(modified, now)
    return "just now" if when == "now" else f"{when} ago"


def duration(seconds: float) -> str:
    if seconds < 1:
        return f"{seconds * 1000:.0f}ms"
    if seconds < 60:
        return f"{seconds:.1f}s"
    return f"{int(seconds // 60)}m{int(seconds % 60):02d}s"


def cost(usd: float) -> str:
    if usd == 0:
        return "$0"
    if usd < 0.0001:
        return "<$0.0001"  # "$0.0000" would read as free
    if usd < 0.01:
        return f"${usd:.4f}"
    return f"${usd:.2f}"


def one_line(text: str, width: int) -> str:
    """The text squeezed onto one line of at most `width` cells."""
    flat = " ".join(sanitize(text).split())
    if len(flat) <= width:
        return flat
    return flat[: max(0, width - 1)] + "…"

