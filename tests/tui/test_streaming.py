"""How streamed text reaches the conversation: batched across threads, held while typing."""

from __future__ import annotations

import threading

from agent.events import TextDelta, ToolStarted
from tests.tui.conftest import wait_for
from tui.inbox import Inbox, joined
from tui.widgets import conversation as conv
from tui.widgets.conversation import Reply


def test_adjacent_deltas_of_one_turn_join():
    items = [
        (1, TextDelta(1, "a")),
        (1, TextDelta(1, "b")),
        (1, ToolStarted(1, "t", "build", "")),
        (1, TextDelta(1, "c")),
        (2, TextDelta(2, "d")),
    ]
    assert joined(items) == [
        (1, TextDelta(1, "ab")),
        (1, ToolStarted(1, "t", "build", "")),
        (1, TextDelta(1, "c")),
        (2, TextDelta(2, "d")),
    ]


def test_inbox_wakes_once_per_batch():
    wakes = []
    inbox = Inbox(lambda: wakes.append(1))
    threads = [threading.Thread(target=lambda i=i: inbox.put(1, TextDelta(1, str(i)))) for i in range(50)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(wakes) == 1
    (only,) = inbox.take()
    assert sorted(only[1].text) == sorted("".join(str(i) for i in range(50)))
    inbox.put(1, TextDelta(1, "x"))
    assert len(wakes) == 2


async def test_text_waits_while_the_user_types(make_app, no_key, monkeypatch):
    # a generous hold, so a slow machine does not let the held text through early
    monkeypatch.setattr(conv, "TYPING_HOLD_SECONDS", 1.0)
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        conversation = app.conversation
        await conversation.add_text("first ")
        assert app.query_one(Reply).source == "first "
        await pilot.press("h", "i")  # typing in the prompt
        await conversation.add_text("second")
        await pilot.pause(conv.FLUSH_SECONDS + 0.05)
        assert app.query_one(Reply).source == "first ", "text landed while the user was typing"
        await wait_for(pilot, lambda: app.query_one(Reply).source == "first second", 5, "the held text")
        # the end of a turn writes whatever is held at once
        await pilot.press("x")
        await conversation.add_text(" third")
        await conversation.end_turn()
        assert app.query(Reply).last().source == "first second third"
