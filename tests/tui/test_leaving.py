"""Leaving the app: Ctrl+C says how in plain words, the footer shows Ctrl+Q, and what to type
to come back is printed once the terminal is back."""

from __future__ import annotations

from tests.double.server import reply, text, tool_use
from tests.tui.conftest import screen_lines, wait_for
from tui import format as fmt
from tui import resume_hint
from tui.widgets.conversation.reply import Reply
from tui.widgets.prompt import Prompt


async def test_ctrl_c_says_how_to_quit_without_markup(make_app, no_key):
    app = make_app()
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        app.conversation.focus()
        await pilot.pause()
        await pilot.press("ctrl+c")
        await wait_for(pilot, lambda: bool(app.screen.query("Toast")), 5, "the toast")
        messages = [str(toast.render()) for toast in app.screen.query("Toast")]
        assert any("Ctrl+Q" in m for m in messages), messages
        assert not any("[b]" in m or "[/b]" in m for m in messages), messages


async def test_the_footer_shows_how_to_quit_at_every_width(make_app, no_key):
    for size in ((80, 24), (160, 48)):
        app = make_app()
        async with app.run_test(size=size) as pilot:
            await pilot.pause(0.3)
            footer = screen_lines(app)[-1]
            assert "Quit" in footer and "^q" in footer, (size, footer)


async def test_the_resume_command_is_there_once_a_turn_was_had(make_app, claude_double):
    claude_double.add("Shoes.")
    app = make_app(memory_mode="none")
    async with app.run_test(size=(120, 40)) as pilot:
        assert resume_hint(app.turns.session) is None  # nothing said yet: nothing to continue
        prompt = app.query_one("#prompt", Prompt)
        prompt.focus()
        prompt.value = "what do we sell?"
        await pilot.press("enter")
        await wait_for(pilot, lambda: len(claude_double.messages_requests()) == 1 and not app.running, 20, "the turn")
        await wait_for(pilot, lambda: any("Shoes." in line for line in screen_lines(app)), 10, "the reply")
        # the reply turns into Markdown once the turn has ended
        await wait_for(pilot, lambda: bool(app.query(Reply)) and all(r.is_mounted for r in app.query(Reply)), 10, "the Markdown")
        await pilot.pause(0.5)
        hint = resume_hint(app.turns.session)
    from agent.conversation.saved_sessions import session_id

    assert hint == f"devagent --resume {session_id(app.turns.session.transcript.path)} continues this conversation."


async def test_the_status_line_says_what_the_session_cost_at_every_width(make_app, claude_double):
    usage = {"input_tokens": 1200, "output_tokens": 340, "cache_read_input_tokens": 900}
    claude_double.add(reply(text("One."), usage=usage), reply(text("Two."), usage=usage))
    for size in ((80, 24), (120, 30), (200, 40)):
        app = make_app(memory_mode="none")
        base = len(claude_double.messages_requests())
        async with app.run_test(size=size) as pilot:
            for n, question in enumerate(("first?", "second?")):
                prompt = app.query_one("#prompt", Prompt)
                prompt.value = question
                await pilot.press("enter")
                await wait_for(pilot, lambda n=n, app=app, base=base: app.status.info.usage is not None
                               and len(claude_double.messages_requests()) == base + n + 1 and not app.running, 20, "the turn")
                await pilot.pause(0.2)
            line = app.status.render().plain
            total = app.status.info.total
            assert total is not None and total.output_tokens == 680, size
            assert "session" in line and fmt.cost(total.cost_usd) in line, (size, line)
        claude_double.add(reply(text("One."), usage=usage), reply(text("Two."), usage=usage))


async def test_the_copy_key_puts_the_reply_or_the_screen_item_on_the_clipboard(make_app, claude_double):
    claude_double.add(
        reply(tool_use("show_on_screen", {"title": "Plan", "content": "# Plan\n\n1. rename", "format": "markdown"})),
        reply(text("The **plan** is on screen.")),
    )
    app = make_app(memory_mode="none")
    async with app.run_test(size=(160, 48), notifications=True) as pilot:
        await pilot.press("ctrl+g")
        assert app.clipboard == ""  # nothing yet: it says so
        prompt = app.query_one("#prompt", Prompt)
        prompt.value = "a plan please"
        await pilot.press("enter")
        await wait_for(pilot, lambda: len(claude_double.messages_requests()) == 2 and not app.running, 20, "the turn")
        await pilot.pause(0.3)
        await pilot.press("ctrl+g")
        assert app.clipboard == "The **plan** is on screen."
        await pilot.press("f3")
        await pilot.pause(0.2)
        await pilot.press("ctrl+g")
        assert app.clipboard == "# Plan\n\n1. rename"
        await wait_for(pilot, lambda: any("Copied" in str(t.render()) for t in app.screen.query("Toast")), 5,
                       "the toast")
