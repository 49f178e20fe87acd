"""Short human-readable renderings shared by the panes and the status line."""

from __future__ import annotations

import time


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
    flat = " ".join(text.split())
    if len(flat) <= width:
        return flat
    return flat[: max(0, width - 1)] + "…"


_CONTROL = {c: f"\\x{c:02x}" for c in [*range(0, 9), *range(11, 32), 127, *range(128, 160)]}


def plain(text: str) -> str:
    """Text for a terminal: control characters (an escape sequence in a memory, say) shown
    as \\xNN instead of acted on; newlines and tabs stay."""
    return text.translate(_CONTROL)
