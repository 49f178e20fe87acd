"""One toast for one thing said: a key pressed again while its toast still shows (F8 at a
width where nothing can grow) does not stack copies of it, which at 80x24 cover the screen,
even when another toast came in between (F8, F7 past the narrowest, F8 again)."""

from __future__ import annotations

import time


class Repeats:
    def __init__(self) -> None:
        self._showing: dict[tuple[str, str, str], float] = {}  # each toast on screen: until when

    def new(self, message: str, title: str, severity: str, timeout: float) -> bool:
        """True when this toast is not one still on screen; it is then shown."""
        now = time.monotonic()
        self._showing = {key: until for key, until in self._showing.items() if until > now}
        key = (message, title, severity)
        if key in self._showing:
            return False
        self._showing[key] = now + timeout
        return True
