"""One toast for one thing said: a key pressed again while its toast still shows (F8 at a
width where nothing can grow) does not stack copies of it, which at 80x24 cover the screen."""

from __future__ import annotations

import time


class Repeats:
    def __init__(self) -> None:
        self._last: tuple[str, str, str] | None = None
        self._until = 0.0

    def new(self, message: str, title: str, severity: str, timeout: float) -> bool:
        """True when this toast is not the one still on screen; it is then the one shown."""
        now = time.monotonic()
        key = (message, title, severity)
        if key == self._last and now < self._until:
            return False
        self._last, self._until = key, now + timeout
        return True
