"""Voice threads give way to the app's: a lower priority for them and the threads they start."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from agent.voice.priority import LOWEST, NICE, thread_nice, yield_to_app

ROOT = Path(__file__).resolve().parents[2]


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
    # `nice -n 15 devagent`: the app's own threads are at 15, the voice's go lower still
    script = ("import threading; from agent.voice.priority import yield_to_app, thread_nice; seen = [];"
              "t = threading.Thread(target=lambda: (yield_to_app(), seen.append(thread_nice()))); t.start(); t.join();"
              "print(thread_nice(), seen[0])")
    done = subprocess.run(["nice", "-n", "15", sys.executable, "-c", script], cwd=ROOT, capture_output=True,
                          text=True, check=True)
    assert done.stdout.split() == ["15", str(LOWEST)]


@pytest.mark.skipif(sys.platform != "linux", reason="nice is per thread on Linux only")
def test_a_thread_started_by_one_that_gave_way_is_not_lowered_again():
    before = thread_nice()
    seen: dict[str, int] = {}

    def speaker_thread() -> None:
        yield_to_app()  # as the speaker's synthesis thread does, started by the loading thread
        seen["speaker"] = thread_nice()

    def loading_thread() -> None:
        yield_to_app()
        child = threading.Thread(target=speaker_thread)
        child.start()
        child.join()

    worker = threading.Thread(target=loading_thread)
    worker.start()
    worker.join()
    assert seen == {"speaker": min(before + NICE, LOWEST)}
