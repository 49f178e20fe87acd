"""The app's full garbage collections wait for the end of a turn and for the user's pause."""

from __future__ import annotations

import gc
import sys
import threading
import time

import pytest

from agent import heap
from tests.double.server import reply, text
from tests.tui.conftest import wait_for
from tui.widgets.conversation import pane as conv


class Node:
    pass


def make_a_full_collection_due() -> None:
    """Objects in cycles until the interpreter would have started a full collection."""
    kept = []
    for _ in range(2_000_000):
        if gc.get_count()[2] >= heap.FULL_COLLECTION_DUE:
            return
        node = Node()
        node.me = node
        kept.append(node)
        if len(kept) > 5_000:
            kept.clear()
    raise AssertionError(f"no full collection came due: {gc.get_count()}")


@pytest.mark.skipif(sys.version_info >= (3, 14), reason="an incremental collector: no full collection to wait")
async def test_a_full_collection_waits_for_the_turn_to_end_and_the_user_to_pause(make_app, claude_double):
    claude_double.add(text("First."))
    # the answer takes a second to start, so the user is seen typing while the turn runs
    # (answered at once, on a busy machine, the turn could end before the first key)
    claude_double.add(reply(text("Done."), wait=1.0))
    app = make_app()
    fulls: list[tuple[float, str]] = []  # when each full collection ended, and on which thread

    def heard(phase: str, info: dict) -> None:
        if phase == "stop" and info["generation"] == 2:
            fulls.append((time.monotonic(), threading.current_thread().name))

    gc.callbacks.append(heard)
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await wait_for(pilot, lambda: app.turns.session is not None, 120, "the session")
            assert gc.get_threshold()[2] == heap.FULL_COLLECTION_BACKSTOP
            # the first answer settles the start-up heap (frozen, which restarts the counts)
            await app.submit_turn("a first question")
            await wait_for(pilot, lambda: not app.running and app.turns.settled.is_set(), 60, "the first turn")
            await pilot.pause(0.5)
            make_a_full_collection_due()
            fulls.clear()
            await app.submit_turn("a question")
            # the user types until well after the turn has ended
            typed_in_turn = 0
            while app.running:
                await pilot.press("a")
                typed_in_turn += 1
                await pilot.pause(0.05)
            assert typed_in_turn > 3
            for _ in range(3):
                await pilot.press("b")
                await pilot.pause(0.05)
            typed_until = time.monotonic()
            await wait_for(pilot, lambda: fulls, 10, "the full collection at the pause")
            ended, thread = fulls[0]
            # not while the turn ran, nor while the user typed: only once they paused
            assert ended > typed_until + conv.TYPING_HOLD_SECONDS * 0.5, ended - typed_until
            assert thread == "MainThread"
            assert gc.get_count()[2] < heap.FULL_COLLECTION_DUE
    finally:
        gc.callbacks.remove(heard)


async def test_quitting_while_the_collection_waits_for_the_pause_leaves_nothing_to_go_off(make_app, claude_double, monkeypatch):
    # The user is still typing when the turn ends, and quits: the wait for their pause used
    # to be a timer of the app's, which went off while the app closed, with no screen left
    # to ask whether they still typed (a traceback on the way out).
    from tui.screens import heap_pause as app_module
    from tui.widgets.conversation.pane import Conversation

    claude_double.add(text("Done."))
    monkeypatch.setattr(app_module, "TYPING_HOLD_SECONDS", 0.01)  # it asks again and again
    monkeypatch.setattr(Conversation, "typing_now", lambda self: True)  # and the user never pauses
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.turns.session is not None, 120, "the session")
        await app.submit_turn("a question")
        await wait_for(pilot, lambda: not app.running and app.status.info.activity == "", 60, "the turn's end")
        await pilot.pause(0.1)
    # leaving the block closes the app, and raises whatever failed in it meanwhile
