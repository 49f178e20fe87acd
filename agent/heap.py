"""The app's heap: out of the garbage collector's way while start-up builds what lives as
long as the app, full collections at the app's pauses, and freed memory given back to the
system between turns and replies.

A turn's work is spread over threads (the turn's own, the HTTP client's, the voice's), and
glibc's malloc keeps what each of them freed for later: the voice's buffers above all,
sized by the sentence, so each longer sentence than any before left the app megabytes
larger for the rest of the session. `malloc_trim` hands free pages back. Elsewhere than
glibc this does nothing.
"""

from __future__ import annotations

import gc
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from typing import Any


@cache
def _malloc_trim() -> Any:
    if not sys.platform.startswith("linux"):
        return None
    import ctypes  # not before the first frame: only the first trim needs it

    try:
        return ctypes.CDLL("libc.so.6").malloc_trim
    except (OSError, AttributeError):  # not glibc (musl has no malloc_trim)
        return None


def trim() -> bool:
    """Return free heap pages to the system; whether anything was returned."""
    malloc_trim = _malloc_trim()
    return bool(malloc_trim(0)) if malloc_trim is not None else False


@contextmanager
def building_for_good() -> Iterator[None]:
    """No garbage collection while the block builds what lives as long as the process
    (the SDK's import makes some 150,000 objects), then all of it put out of the
    collector's reach (gc.freeze).

    Each full collection walks every object made so far: three of them, 50 to 160 ms each,
    stopped every thread while the session loaded, a question asked at launch and the keys
    typed meanwhile included. Garbage made meanwhile elsewhere waits for the block's end."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        _freeze_and_resume(was_enabled)


def _freeze_and_resume(resume: bool = True) -> None:
    settle_heap()
    if resume:
        gc.enable()


@contextmanager
def collector_held() -> Iterator[None]:
    """No garbage collection until the first frame (`release_collector`), or until the
    block ends if the app never got that far.

    Start-up builds the heap the app lives on, tens of thousands of objects by the first
    frame, and the collector kept walking it as it grew: one full pass of about 50 ms and
    dozens of younger ones, all before anything showed. What start-up allocates lives as
    long as the app, so there is nothing worth collecting yet."""
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def release_collector() -> None:
    """At the first frame, inside `collector_held`: what start-up built is frozen (as in
    `settle_heap`) and collection resumes for what comes later."""
    if not gc.isenabled():
        _freeze_and_resume()


def settle_heap() -> None:
    """Put everything allocated so far out of the garbage collector's reach.

    Start-up leaves a large heap that lives as long as the app (the SDK, the voice stack),
    and every full collection walks all of it: 60-130 ms on a small machine, during which
    typed keys wait. Frozen, it is skipped; collections then only walk what came later.
    """
    gc.freeze()


# younger collections after which the interpreter starts a full one by itself (its own
# default is 10) once full collections wait for pauses: the backstop for a pause that does
# not come (a long turn typed over)
FULL_COLLECTION_BACKSTOP = 100
# younger collections after which a pause runs one: when the interpreter would have
FULL_COLLECTION_DUE = 10


def full_collections_at_pauses() -> None:
    """Full collections wait for the caller's pauses (`collect_at_pause`).

    A full collection walks every object made since the heap was last frozen: 15 to 20 ms
    on a small machine once a turn or two has run, and the interpreter starts one wherever
    the count says, in the middle of a key's echo as likely as anywhere. Younger
    collections, a millisecond or two, go on as before."""
    young, middle, _ = gc.get_threshold()
    gc.set_threshold(young, middle, FULL_COLLECTION_BACKSTOP)


def collect_at_pause() -> bool:
    """The full collection, if the interpreter would have run one by now; whether it ran."""
    if gc.get_count()[2] < FULL_COLLECTION_DUE:
        return False
    gc.collect()
    return True


def trim_soon() -> None:
    """`trim` on a thread of its own: it walks every arena, and the caller is the UI."""
    threading.Thread(target=trim, name="heap-trim", daemon=True).start()
