"""Voice work gives way to the app.

Loading the models and synthesizing speech keep both cores of a small machine busy
(onnxruntime runs a thread per core and spins between operations). The app's own thread
then waits for a core, and a key typed while the reply is spoken shows late. A thread
that calls `yield_to_app()` runs at a lower scheduling priority, as do the threads it
starts afterwards (onnxruntime's and CTranslate2's pools are started by the thread that
loads the model), so it still uses every idle cycle but gives way at once to the app.
"""

from __future__ import annotations

import os
import threading

# nice 10: about a tenth of the share of a normal thread when both want the same core
NICE = 10
LOWEST = 19  # the lowest priority Linux has


def yield_to_app() -> bool:
    """Lower this thread's priority (Linux: nice is per thread) to NICE below the app's;
    False where it cannot. A thread started by one that gave way already has: it is not
    lowered again (the speaker's thread, started by the loading thread, would sink to the
    lowest priority and wait behind every other program on a busy machine)."""
    try:
        # relative to the app (its main thread): under `nice devagent` an absolute 10 would raise it
        thread = threading.get_native_id()
        wanted = min(LOWEST, os.getpriority(os.PRIO_PROCESS, os.getpid()) + NICE)
        if os.getpriority(os.PRIO_PROCESS, thread) < wanted:
            os.setpriority(os.PRIO_PROCESS, thread, wanted)
    except (AttributeError, OSError):  # no setpriority (Windows), or not per thread here
        return False
    return True


def thread_nice() -> int:
    """This thread's nice value (for tests)."""
    return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
