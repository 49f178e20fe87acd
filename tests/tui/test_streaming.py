"""How streamed text reaches the conversation: batched across threads, held while typing."""

from __future__ import annotations

import threading

from agent.events import TextDelta, ToolStarted
from tests.tui.conftest import wait_for
from tui.turns.inbox import Inbox, joined
from tui.widgets.conversation import pane as conv
from tui.widgets.conversation.reply import Reply


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


async def test_text_waits_for_as_long_as_the_typing_goes_on_and_catches_up_in_slices(make_app, no_key, monkeypatch):
    monkeypatch.setattr(conv, "TYPING_HOLD_SECONDS", 0.4)
    monkeypatch.setattr(conv, "CATCH_UP_CHARS", 50)
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        conversation = app.conversation
        await conversation.add_text("start ")
        written = [len(app.query(Reply).last().source)]
        # typing for well over the old two-second cap, a key every tenth of a second
        for i in range(30):
            await pilot.press("a")
            await conversation.add_text(f"word{i:02d} ")
            await pilot.pause(0.1)
        assert app.query(Reply).last().source == "start ", "text landed while the user was typing"
        held = conversation.held_chars
        assert held == len("word00 ") * 30
        # the pause: it comes through, a slice at a time (each write a little more)
        async def grew() -> None:
            written.append(len("".join(r.source for r in app.query(Reply))))
        for _ in range(200):
            await pilot.pause(0.02)
            await grew()
            if written[-1] == len("start ") + held:
                break
        assert written[-1] == len("start ") + held
        steps = sorted(set(written))
        assert len(steps) >= 4, f"all at once, not in slices: {steps}"
        assert conversation.held_chars == 0
        assert "".join(r.source for r in app.query(Reply)) == "start " + "".join(f"word{i:02d} " for i in range(30))


async def test_typing_again_stops_the_catch_up_and_the_rest_keeps_its_order(make_app, no_key, monkeypatch):
    monkeypatch.setattr(conv, "TYPING_HOLD_SECONDS", 0.3)
    monkeypatch.setattr(conv, "CATCH_UP_CHARS", 20)
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        conversation = app.conversation
        await conversation.add_text("start ")
        await pilot.press("a")
        expected = "start " + "".join(f"part{i:03d} " for i in range(60))
        for i in range(60):
            await conversation.add_text(f"part{i:03d} ")
        await wait_for(pilot, lambda: len(app.query(Reply).last().source) > len("start "), 5, "the catch-up")
        await pilot.press("b")  # typing again part way
        await pilot.pause(0.1)
        partial = "".join(r.source for r in app.query(Reply))
        assert len(partial) < len(expected), "the catch-up went on while the user typed"
        assert expected.startswith(partial)
        await conversation.add_text("last")
        await conversation.end_turn()  # the end of the turn writes everything, in order
        assert "".join(r.source for r in app.query(Reply)) == expected + "last"


async def test_first_words_do_not_wait_for_markdown_to_import(make_app, no_key, monkeypatch):
    from tui.widgets.conversation import reply as reply_module
    from tui.widgets.conversation.plain_reply import PlainReply

    imported = {"done": False}  # as if Markdown were still being imported at launch
    monkeypatch.setattr(conv, "markdown_ready", lambda: reply_module if imported["done"] else None)
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        conversation = app.conversation
        await conversation.add_user("which island is it?")
        await conversation.add_text("**Zanzibar** is")
        await wait_for(pilot, lambda: app.query(PlainReply), 5, "the plain first words")
        assert app.query_one(PlainReply).source == "**Zanzibar** is"
        assert not app.query(Reply), "the first words waited for Markdown"
        imported["done"] = True
        await conversation.add_text(" the island.")
        await conversation.end_text()
        assert not app.query(PlainReply)
        (only,) = app.query(Reply)
        assert only.source == "**Zanzibar** is the island."
        assert only.has_class("-spaced"), "placed as the plain piece was (a blank line after the question)"


async def test_a_reply_that_ends_before_markdown_is_here_still_ends_as_markdown(make_app, no_key, monkeypatch):
    from tui.widgets.conversation.plain_reply import PlainReply

    monkeypatch.setattr(conv, "markdown_ready", lambda: None)
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        conversation = app.conversation
        await conversation.add_text("Short `answer`.")
        await wait_for(pilot, lambda: app.query(PlainReply), 5, "the plain first words")
        await conversation.end_text()  # the end of the turn waits for the import, off the UI thread
        assert not app.query(PlainReply)
        assert app.query_one(Reply).source == "Short `answer`."


async def test_spinners_move_once_a_second_while_the_session_loads_and_not_while_typing(make_app, no_key):
    from tui.widgets.conversation.lines import ThinkingLine

    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        conversation = app.conversation
        await conversation.thinking()
        line = app.query_one(ThinkingLine)
        line._timer.stop()  # ticked by hand here
        drawn: list[int] = []
        line.refresh = lambda *a, **k: drawn.append(1)  # type: ignore[method-assign]
        for _ in range(5):
            line._tick()
        assert len(drawn) == 5, "a spinner that moves at its own pace"
        drawn.clear()
        conversation.set_waiting("the SDK")  # a question waits for the session to load
        for _ in range(5):
            line._tick()
        assert len(drawn) <= 1
        conversation.set_waiting(None)
        await pilot.press("a")  # typing in the prompt
        assert conversation.typing_now()
        drawn.clear()
        for _ in range(5):
            line._tick()
        assert drawn == []




async def test_a_piece_sealed_right_after_an_empty_write_ends_quietly(make_app, no_key):
    # Markdown arriving mid-reply wakes the writer with nothing new to write; the turn's end
    # then seals the piece at once. A stream started for that empty write had a task that
    # never ran, and stopping it raised CancelledError into the app's handler: the app
    # stopped, as if quit, with no word of why.
    app = make_app()
    async with app.run_test(size=(120, 40)):
        piece = Reply(classes="reply")
        await app.conversation.mount(piece)
        await piece.update("Two tests failed.")
        await piece.write("")
        await piece.seal()
        assert piece.sealed and app.is_running
        # and a piece written and sealed at once keeps every word
        other = Reply(classes="reply")
        await app.conversation.mount(other)
        await other.write("All ")
        await other.write("green.")
        await other.seal()
        assert other.source == "All green."
