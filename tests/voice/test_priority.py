"""Voice threads give way to the app's: a lower priority for them and the threads they start."""

from __future__ import annotations

import os
import sys
import threading

import pytest

from agent.voice.priority import LOWEST, NICE, thread_nice, yield_to_app


@pytest.mark.skipif(sys.platform != "linux", reason="nice is per thread on Linux only")
def test_only_the_calling_thread_and_the_threads_it_starts_give_way():
    before = thread_nice()
    seen: dict[str, int] = {}

    def voice_thread() -> None:
        assert yield_to_app()
        seen["voice"] = thread_nice()
        child = threading.Thread(target=lambda: seen.__setitem__("started by it", thread_nice()))
        child.start()
        child.join()

    worker = threading.Thread(target=voice_thread)
    worker.start()
    worker.join()
    lowered = min(before + NICE, LOWEST)
    assert seen == {"voice": lowered, "started by it": lowered}
    assert thread_nice() == before, "the app's own thread was slowed"
    assert os.getpriority(os.PRIO_PROCESS, 0) == before


@pytest.mark.skipif(sys.platform != "linux", reason="nice is per thread on Linux only")
def test_under_nice_the_voice_still_gives_way_and_is_never_raised():
    seen: dict[str, int] = {}

    def voice_thread() -> None:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 15)  # `nice -n 15 devagent`
        yield_to_app()
        seen["voice"] = thread_nice()

    worker = threading.Thread(target=voice_thread)
    worker.start()
    worker.join()
    assert seen == {"voice": LOWEST}
