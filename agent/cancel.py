"""Stopping a turn from another thread: the stream, and any process a tool started.

The loop polls `cancelled` between stream events; a stream stalled inside a read is
unblocked by the callbacks registered with `on_cancel` (the session shuts the connection's
socket down), and a running tool's process tree is killed here, since a tool waiting on
`dotnet build` would otherwise hold the turn for minutes.
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
from collections.abc import Callable


class Cancellation:
    def __init__(self) -> None:
        self._event = threading.Event()
        self._lock = threading.Lock()
        self._processes: list[subprocess.Popen[bytes]] = []
        self._callbacks: list[Callable[[], None]] = []

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()

    def cancel(self) -> None:
        with self._lock:
            if self._event.is_set():
                return
            self._event.set()
            processes = list(self._processes)
            callbacks = list(self._callbacks)
        for proc in processes:
            _kill_tree(proc)
        for callback in callbacks:
            try:
                callback()
            except Exception:
                # Cancelling is best effort from a UI thread; the loop still sees the flag.
                pass

    def wait(self, timeout: float | None = None) -> bool:
        return self._event.wait(timeout)

    def register_process(self, proc: subprocess.Popen[bytes]) -> None:
        with self._lock:
            already = self._event.is_set()
            if not already:
                self._processes.append(proc)
        if already:
            _kill_tree(proc)

    def unregister_process(self, proc: subprocess.Popen[bytes]) -> None:
        with self._lock:
            if proc in self._processes:
                self._processes.remove(proc)

    def on_cancel(self, callback: Callable[[], None]) -> Callable[[], None]:
        """Calls `callback` on cancel (at once if already cancelled); returns an unregister function."""
        with self._lock:
            already = self._event.is_set()
            if not already:
                self._callbacks.append(callback)
        if already:
            callback()

        def remove() -> None:
            with self._lock:
                if callback in self._callbacks:
                    self._callbacks.remove(callback)

        return remove


def _kill_tree(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is not None:
        return
    try:
        # Tools start their commands with start_new_session=True, so the pid is the group id
        # and the whole tree goes, workers included.
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        try:
            proc.kill()
        except OSError:
            pass
