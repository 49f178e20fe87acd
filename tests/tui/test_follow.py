"""The conversation follows the newest output while the user is at the bottom, and only then."""

from __future__ import annotations

from agent.events import TextDelta, ToolFinished, ToolStarted, TurnFinished, TurnStarted, Usage
from tests.double.server import reply
from tests.tui.conftest import region_text, wait_for
from tui.widgets.conversation.pane import Conversation
from tui.widgets.conversation.reply import Reply


def paragraph(n: int, words: int = 40) -> str:
    return " ".join(f"w{n}x{i}" for i in range(words))


async def replay_turn(app, turn: int, question: str, events) -> None:
    await app.conversation.add_user(question)
    token = app.turns.begin()
    for event in [TurnStarted(turn, question), *events]:
        await app.main_screen.show(token, event)


def visible(app) -> str:
    conversation = app.query_one(Conversation)
    return region_text(app, conversation.content_region)


SIZES = [(60, 15), (80, 24), (100, 30), (160, 48)]


async def test_the_last_line_of_the_newest_reply_is_visible(make_app, no_key):
    # one app per size (pytest parametrize does not mix with the anyio marker here)
    for size in SIZES:
        await newest_reply_visible(make_app(), size)


async def newest_reply_visible(app, size) -> None:
    async with app.run_test(size=size) as pilot:
        for turn in range(1, 4):
            text = "\n\n".join(paragraph(turn * 10 + p) for p in range(4))
            deltas = [TextDelta(turn, text[i : i + 37]) for i in range(0, len(text), 37)]
            await replay_turn(app, turn, f"question {turn}", [
                *deltas,
                ToolStarted(turn, f"t{turn}", "build", "whole repository"),
                ToolFinished(turn, f"t{turn}", "build", 1.2, False, "built", None),
                # the text after a tool line is what used to stay under the fold
                TextDelta(turn, f"After the build: all good END{turn}"),
                TurnFinished(turn, Usage(), "", False),
            ])
            await wait_for(pilot, lambda turn=turn: f"END{turn}" in visible(app), 10, f"END{turn} at {size}")
        # End goes to the real end too, after the user has gone up to read
        conversation = app.conversation
        conversation.scroll_home(animate=False)
        await pilot.pause()
        assert "END3" not in visible(app) and not conversation.following
        conversation.focus()
        await pilot.press("end")
        await pilot.pause(0.1)
        assert "END3" in visible(app) and conversation.following


def held_after(text: str, words: str, chunk: int) -> int:
    """The events a stream of `text` in `chunk`-character pieces has sent once `words` is
    all out: message_start, content_block_start, then the deltas up to its last piece."""
    return 2 + (text.index(words) + len(words) - 1) // chunk + 1


async def test_scrolling_up_stops_following_and_the_bottom_resumes_it(make_app, claude_double):
    long = "\n\n".join(paragraph(p, 30) for p in range(40)) + "\n\nLAST-WORDS"
    claude_double.add(reply("\n\n".join(paragraph(100 + p) for p in range(12)) + " FIRST-END"))
    # held once "w5x" is out, until the user has gone up to read
    gate = claude_double.gate(after=held_after(long, "w5x", 40))
    claude_double.add(reply(long, chunk=40, delay=0.002, hold=gate))
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        conversation = app.conversation
        app.prompt.value = "first"
        await pilot.press("enter")
        await wait_for(pilot, lambda: not app.running, 120, "the first turn")
        await wait_for(pilot, lambda: "FIRST-END" in visible(app), 10, "the end of the first reply")

        app.prompt.value = "second"
        await pilot.press("enter")
        await wait_for(pilot, lambda: "w5x" in app.conversation.turn_reply_text, 20, "the stream")
        # the user goes up to read: the view stays where they put it while text arrives
        await pilot.press("pageup")
        await pilot.pause()
        assert not conversation.following
        held = conversation.scroll_y
        gate.open()
        await wait_for(pilot, lambda: "w20x" in app.conversation.turn_reply_text, 20, "more text")
        await pilot.pause(0.3)
        assert conversation.scroll_y == held
        assert "new output below" in str(conversation.border_subtitle)
        await wait_for(pilot, lambda: not app.running, 30, "the end of the turn")
        await pilot.pause(0.2)
        assert "LAST-WORDS" not in visible(app)
        # Ctrl+End from the prompt: the real end, and the hint is gone
        await pilot.press("ctrl+end")
        await wait_for(pilot, lambda: "LAST-WORDS" in visible(app), 10, "the real end")
        assert conversation.following and not conversation.border_subtitle


async def test_reaching_the_bottom_by_scrolling_follows_again(make_app, claude_double):
    long = "\n\n".join(paragraph(p, 30) for p in range(30)) + " TAIL"
    # held once "w15x" is out (more than a screen of it), until the user has paged back
    # down; the rest follows
    gate = claude_double.gate(after=held_after(long, "w15x", 30))
    claude_double.add(reply(long, chunk=30, delay=0.002, hold=gate))
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        conversation = app.conversation
        app.prompt.value = "go"
        await pilot.press("enter")
        await wait_for(pilot, lambda: "w15x" in visible(app), 120, "the stream, drawn")
        await pilot.press("pageup")
        await pilot.pause()
        assert not conversation.following
        for _ in range(20):
            await pilot.press("pagedown")
        await pilot.pause()
        assert conversation.following
        gate.open()
        await wait_for(pilot, lambda: not app.running, 30, "the end of the turn")
        await wait_for(pilot, lambda: "TAIL" in visible(app), 10, "the tail")
        assert isinstance(conversation.children[-1], Reply)
