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

def churn():
    # a turn's worth of medium-sized buffers, made and dropped on a thread of its own
    held = [bytearray(2000) for _ in range(100_000)]
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
