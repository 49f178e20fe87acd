"""How the memory pane hears its folders change: watchfiles on a thread of the pane's."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from textual.worker import Worker

    from memory.seam import Store

# watchfiles waits 1.6 s for a burst of changes to settle by default; a memory save is one
# rename, so a short debounce shows it at once and still folds an editor's save dance into one.
DEBOUNCE_MS = 50
# The watcher's thread wakes (and takes the GIL) every step even when nothing changes: 10 ms
# cost an idle app 0.5 % of a core on two cores, 25 ms half that, and a change still
# shows within two steps.
STEP_MS = 25

# The watcher cannot say when it has started; after its first quiet spell this long, the
# folder is listed once more (and after every later one it goes on waiting).
CATCH_UP_MS = 500


# benchmarks/memory_write.py names a file here to hear when a change reached each stage
# between the file event and the row drawn (time.monotonic, one clock for every process).
TRACE_ENV = "DEVAGENT_MEMORY_TRACE"


def trace(stage: str) -> None:
    path = os.environ.get(TRACE_ENV)
    if path:
        with open(path, "a", encoding="utf-8") as out:
            out.write(f"{stage} {time.monotonic():.6f}\n")


class Cancelled:
    """The stop event watchfiles checks every step: the watching worker was cancelled."""

    def __init__(self, worker: Worker[None]) -> None:
        self.worker = worker

    def is_set(self) -> bool:
        return self.worker.is_cancelled


def watched_directories(store: Store) -> list[Path]:
    """The folders the pane follows: the repository's and the user-wide one. A store built
    on first use names them without being built, so watching starts before anything slow."""
    known = getattr(store, "directories", None)
    if known is not None:
        return [Path(d) for d in known]
    return [Path(root.directory) for root in store.roots()]


def changes_in(directories: list[Path], stop: Cancelled) -> Iterator[bool]:
    """One item for each batch of changes (False), and one for the first quiet spell (True):
    the folder is listed again then, for what was written after the first listing and
    before the watcher was up to hear it. Ends when `stop` is set."""
    from watchfiles import watch

    caught_up = False
    for changes in watch(*directories, debounce=DEBOUNCE_MS, step=STEP_MS, stop_event=stop,
                         rust_timeout=CATCH_UP_MS, yield_on_timeout=True):
        if not changes:
            if not caught_up:
                caught_up = True
                yield True
            continue
        caught_up = True
        trace("watchfiles yielded")
        yield False
