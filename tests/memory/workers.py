"""Processes for the concurrency tests: each runs as its own interpreter.

    python -m tests.memory.workers inserts FOLDER NAME COUNT
        COUNT read-modify-write commands on one file, each adding a line "NAME-i".
    python -m tests.memory.workers hold FOLDER SECONDS
        takes the store's lock, leaves a temp file as a write in flight would, prints
        "held", sleeps, then cleans up and releases.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from memory.lock import LOCK_NAME
from memory.store import MemoryStore

TARGET = "/memories/shared.md"


def inserts(folder: str, name: str, count: int) -> int:
    store = MemoryStore(Path(folder), max_file_chars=10**7, max_total_chars=10**8, lock_timeout=60)
    for i in range(count):
        text, is_error = store.run({"command": "insert", "path": TARGET, "insert_line": 0, "insert_text": f"{name}-{i}"})
        if is_error:
            print(text, file=sys.stderr)
            return 1
    return 0


def hold(folder: str, seconds: float) -> int:
    import filelock

    lock = filelock.FileLock(os.path.join(folder, LOCK_NAME))
    with lock:
        temp = os.path.join(folder, f".tmp-{os.getpid()}-0123abcd")
        with open(temp, "w") as handle:
            handle.write("a write in flight")
        print("held", flush=True)
        time.sleep(seconds)
        os.unlink(temp)
    return 0


if __name__ == "__main__":
    mode, *rest = sys.argv[1:]
    if mode == "inserts":
        sys.exit(inserts(rest[0], rest[1], int(rest[2])))
    if mode == "hold":
        sys.exit(hold(rest[0], float(rest[1])))
    sys.exit(f"unknown mode {mode}")
