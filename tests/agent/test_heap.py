"""Memory a thread freed goes back to the system when the app trims the heap between turns."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT_DIR = Path(__file__).resolve().parents[2]

PROBE = """
import json, threading
from agent.heap import trim

def rss_mb():
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024

kept = []

def churn():
    # a turn's worth of medium-sized buffers, made and dropped on a thread of its own
    held = [bytearray(2000) for _ in range(100_000)]
    # one buffer made after them outlives them, as the app's own objects do: the heap's
    # top stays in use, so freeing the rest gives nothing back by itself (without it,
    # free() sometimes returned part of the heap's top at once, and the trim had less to do)
    kept.append(bytearray(2000))
    del held

thread = threading.Thread(target=churn)
thread.start()
thread.join()
before = rss_mb()
trimmed = trim()
print(json.dumps([before, rss_mb(), trimmed]))
"""


@pytest.mark.skipif(not Path("/proc/self/status").exists() or sys.platform != "linux", reason="reads RSS from /proc")
def test_trimming_gives_back_what_a_thread_freed():
    result = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT_DIR, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr[-2000:]
    before, after, trimmed = json.loads(result.stdout.strip().splitlines()[-1])
    assert trimmed is True
    assert before - after > 100, (before, after)  # of the ~200 MB freed, most is back


FULL_COLLECTIONS = """
import gc, json, sys
from agent.heap import collect_at_pause, full_collections_at_pauses

if sys.argv[1] == "at-pauses":
    full_collections_at_pauses()
fulls = []
gc.callbacks.append(lambda phase, info: phase == "stop" and info["generation"] == 2 and fulls.append(info["collected"]))

class Node:
    pass

kept = []
for i in range(300_000):  # a few turns' worth of objects, some in cycles that outlive a young collection
    node = Node()
    node.me = node
    kept.append(node)
    if len(kept) > 5_000:
        kept.clear()
during = len(fulls)
kept.clear()
ran = collect_at_pause()
again = collect_at_pause()
print(json.dumps([during, ran, again, fulls[during:]]))
"""


def full_collections(mode: str) -> list:
    result = subprocess.run([sys.executable, "-c", FULL_COLLECTIONS, mode], cwd=ROOT_DIR,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


# 3.14's collector is incremental: it has no full collection for a pause to take over
incremental = pytest.mark.skipif(sys.version_info >= (3, 14), reason="an incremental collector")


@incremental
def test_full_collections_wait_for_a_pause_and_the_pause_runs_one():
    during, ran, again, at_pause = full_collections("at-pauses")
    assert during == 0  # none in the middle of the work, where a key would wait for it
    assert ran is True and again is False  # the pause runs the one that is due, once
    assert len(at_pause) == 1 and at_pause[0] > 0  # and it finds the cycles left behind


@incremental
def test_without_waiting_the_interpreter_runs_full_collections_in_the_middle_of_the_work():
    # the same work under the interpreter's own thresholds: what the test above rules out
    during, _, _, _ = full_collections("default")
    assert during >= 1
