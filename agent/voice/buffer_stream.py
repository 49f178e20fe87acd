"""An output that plays into memory in real time, for tests and scripts without a card."""

from __future__ import annotations

import bisect
import threading
import time
from collections.abc import Callable
from typing import Any, Protocol

import numpy as np

from agent.voice.audio import Device

# What an output stream calls with each block: (outdata, frames, time info, status).
OutputCallback = Callable[[np.ndarray, int, Any, Any], None]


class OutputStream(Protocol):
    """What the speaker uses of an output stream: sounddevice's, or a BufferStream."""

    def start(self) -> None: ...

    def stop(self) -> None: ...

    def abort(self) -> None: ...

    def close(self) -> None: ...


# open_stream(rate, callback, *, device, blocksize, latency) -> a started stream
OpenStream = Callable[..., OutputStream]


class BufferStream:
    """An output that plays into memory in real time instead of into a sound card.

    It calls the speaker's callback on its own thread at the pace a device would, so the
    speaker runs exactly as it does with sounddevice; `audio` is what was "heard".
    """

    def __init__(self, rate: int, callback: OutputCallback, *, blocksize: int = 256,
                 speed: float = 1.0) -> None:
        self.rate = rate
        self.blocksize = blocksize
        self.speed = speed
        self.latency = 0.0
        self._callback = callback
        self._blocks: list[np.ndarray] = []
        self._times: list[float] = []
        self._running = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._running.set()
        self._thread = threading.Thread(target=self._run, name="buffer-stream", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        period = self.blocksize / self.rate / self.speed
        started = time.monotonic()
        index = 0
        while self._running.is_set():
            block = np.zeros((self.blocksize, 1), dtype=np.int16)
            self._callback(block, self.blocksize, None, None)
            self._blocks.append(block[:, 0].copy())
            self._times.append(time.monotonic())
            index += 1
            delay = started + index * period - time.monotonic()
            if delay > 0:
                time.sleep(delay)

    @property
    def audio(self) -> np.ndarray:
        blocks = list(self._blocks)
        return np.concatenate(blocks) if blocks else np.zeros(0, dtype=np.int16)

    def position_at(self, moment: float) -> int:
        """Samples played before the monotonic time `moment`."""
        return bisect.bisect_left(list(self._times), moment) * self.blocksize

    def abort(self) -> None:
        self._running.clear()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=5)

    stop = abort

    def close(self) -> None:
        self.abort()


def open_buffer_stream(rate: int, callback: OutputCallback, *, device: Device = None, blocksize: int = 256,
                       latency: str | float | None = None, speed: float = 1.0) -> BufferStream:
    stream = BufferStream(rate, callback, blocksize=blocksize, speed=speed)
    stream.start()
    return stream
