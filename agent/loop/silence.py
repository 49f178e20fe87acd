"""A reply stream that goes quiet is ended, not waited on for the client's whole timeout.

Once a stream has begun, the API sends an event (a ping at least) every few seconds. A
stream silent for much longer is stuck: a read timeout of two minutes, retried five times,
held a headless `ask` for ten minutes. One watcher thread per call checks the time of the
last event and, past the limit, runs `on_silence` (which shuts the socket down).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

SILENCE_SECONDS = 30.0
STALLED = (
    "Claude's reply stream went silent for {seconds:.0f} s after it began, so the turn was stopped "
    "instead of waiting longer. Ask again; if it keeps happening, the API or the network is struggling."
)


class SilenceWatch:
    def __init__(self, on_silence: Callable[[], None], seconds: float | None = None) -> None:
        self.seconds = SILENCE_SECONDS if seconds is None else seconds
        self._on_silence = on_silence
        self._last = time.monotonic()
        self._stopped = threading.Event()
        self.fired = False

    def start(self) -> SilenceWatch:
        self._last = time.monotonic()
        threading.Thread(target=self._watch, name="stream-silence", daemon=True).start()
        return self

    def heard(self) -> None:
        """An event arrived: cheap, it runs once per event."""
        self._last = time.monotonic()

    def stop(self) -> None:
        self._stopped.set()

    def message(self) -> str:
        return STALLED.format(seconds=self.seconds)

    def _watch(self) -> None:
        while True:
            left = self._last + self.seconds - time.monotonic()
            if left <= 0:
                break
            if self._stopped.wait(left):
                return
        if not self._stopped.is_set():
            self.fired = True
            self._on_silence()
