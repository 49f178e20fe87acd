"""Where the turn driver's work runs: a Textual worker of the app's that waits, off the
event loop, on a daemon thread of its own.

A thread worker runs in the event loop's default executor, whose threads the app joins
when it closes: a quit while the session still loads (seconds of imports that cannot be
stopped) waited for the load. The driver's work (the session's load, a turn, its
withdrawal, its cancellation) runs instead in an async worker that awaits a daemon
thread: the app cancels the worker when it closes and waits for none of these threads.
What must end with the app is stopped through the turn's cancellation (TurnDriver.stop).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from concurrent.futures import Executor, Future
from typing import Any


class DaemonThreads(Executor):
    """An executor that pools nothing: a daemon thread each call, and no wait on shutdown."""

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        future: Future[Any] = Future()

        def run() -> None:
            if not future.set_running_or_notify_cancel():
                return
            try:
                result = fn(*args, **kwargs)
            except BaseException as exc:  # handed to the awaiting worker, which reports it
                future.set_exception(exc)
            else:
                future.set_result(result)

        threading.Thread(target=run, name="turn-work", daemon=True).start()
        return future


DAEMONS = DaemonThreads()


async def on_a_daemon_thread(work: Callable[[], None]) -> None:
    """The body of the driver's workers: `work`, awaited on a daemon thread."""
    await asyncio.get_running_loop().run_in_executor(DAEMONS, work)
