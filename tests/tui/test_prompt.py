"""The prompt takes several lines: pastes arrive whole, Enter sends, Ctrl+J adds a line."""

from __future__ import annotations

from textual import events

from tests.double.server import text
from tests.tui.conftest import screen_lines, type_text, wait_for
from tui.widgets.conversation.lines import UserTurn
from tui.widgets.prompt import FOLD_LINES

TRACE = "\n".join(
    ["Traceback (most recent call last):", '  File "app.py", line 3, in <module>', "    main()"]
    + [f"  frame {i}" for i in range(2)]
    + ["ValueError: bad input"]
)


def sent_texts(double) -> list[str]:
    """The last user text of every request the double got, in order."""
    return [request.last_user_text() for request in double.messages_requests()]


async def paste(pilot, text: str) -> None:
    pilot.app.prompt.post_message(events.Paste(text))
    await pilot.pause()


async def test_a_pasted_stack_trace_is_sent_whole(make_app, claude_double):
    claude_double.add(text("That is a ValueError."))
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await type_text(pilot, "why this")
        await pilot.press("ctrl+j")
        await paste(pilot, TRACE.replace("\n", "\r\n"))
        assert app.prompt.value == "why this\n" + TRACE
        # the box grows with its lines (up to its cap)
        await pilot.pause()
        assert app.prompt.size.height > 3
        await pilot.press("enter")
        await wait_for(pilot, lambda: not app.running and app.query(UserTurn), 120, "the turn")
        assert any(TRACE in sent for sent in sent_texts(claude_double)), sent_texts(claude_double)
        assert app.prompt.value == ""


async def test_newline_keys_insert_and_enter_sends(make_app, no_key):
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await type_text(pilot, "one")
        await pilot.press("ctrl+j")
        await type_text(pilot, "two")
        await pilot.press("alt+enter")
        await type_text(pilot, "three")
        assert app.prompt.value == "one\ntwo\nthree"
        await pilot.press("enter")
        await pilot.pause()
        (turn,) = app.query(UserTurn)
        assert str(turn.render()) == "one\ntwo\nthree"


async def test_a_long_paste_is_folded_with_its_line_count(make_app, claude_double):
    claude_double.add(text("Read it all."))
    long = "\n".join(f"line {i}" for i in range(200))
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await type_text(pilot, "look")
        await pilot.press("space")
        await paste(pilot, long)
        assert app.prompt.value == "look [pasted 200 lines #1]"
        assert "[pasted 200 lines #1]" in "\n".join(screen_lines(app))
        assert app.prompt.unfolded() == "look " + long
        await pilot.press("enter")
        await wait_for(pilot, lambda: not app.running and app.query(UserTurn), 120, "the turn")
        assert any(long in sent for sent in sent_texts(claude_double))
        # the conversation shows the turn folded too, its line count said
        shown = str(app.query_one(UserTurn).render())
        assert "line 0" in shown and "line 199" not in shown and "more lines" in shown
        # ↑ brings the folded form back, and it still unfolds
        await pilot.press("up")
        assert app.prompt.value == "look [pasted 200 lines #1]"
        assert app.prompt.unfolded() == "look " + long


async def test_a_short_paste_is_not_folded(make_app, no_key):
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        few = "\n".join(f"l{i}" for i in range(FOLD_LINES))
        await paste(pilot, few)
        assert app.prompt.value == few


async def test_up_and_down_move_between_lines_before_history(make_app, no_key):
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        app.prompt.remember("earlier question")
        await type_text(pilot, "a")
        await pilot.press("ctrl+j")
        await type_text(pilot, "b")
        await pilot.press("up")  # to the first line, not the history
        assert app.prompt.value == "a\nb" and app.prompt.cursor_location[0] == 0
        await pilot.press("up")
        assert app.prompt.value == "earlier question"
        await pilot.press("down")
        assert app.prompt.value == "a\nb"
