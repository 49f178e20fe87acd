"""What the status line says while a reply streams: it waits for the user only when they type."""

from __future__ import annotations

from tests.double.server import reply, text
from tests.tui.conftest import wait_for
from tui.widgets.prompt import Prompt


async def test_a_streaming_reply_does_not_say_it_waits_while_nobody_types(make_app, claude_double):
    claude_double.add(reply(text(" ".join(f"word{i}" for i in range(400))), chunk=6, delay=0.01))
    app = make_app(memory_mode="none")
    said: list[str] = []
    async with app.run_test(size=(120, 30)) as pilot:
        prompt = app.query_one("#prompt", Prompt)
        prompt.value = "talk for a while"
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.running, 10, "the turn")
        while app.running:
            said.append(app.status.info.activity)
            await pilot.pause(0.05)
    assert any("working" in s for s in said), said
    assert not any("waits while you type" in s for s in said), sorted(set(said))


async def test_without_voice_the_first_line_offers_no_talk_key(repo, store, claude_double):
    from agent.settings.config import AgentConfig
    from agent.voice.status import voice_off
    from tui.app import DevAgentApp
    from tui.screens.startup import welcome
    from tui.widgets.conversation.lines import Notice

    app = DevAgentApp(repo, AgentConfig(thinking="off"), store=store, probe_voice=False, voice_off="turned off (--no-voice)")
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.pause()

        def first() -> str:
            return next(str(n.render()) for n in app.query(Notice) if n.kind == "welcome")

        # started without voice (as --no-voice does): no key to offer
        assert "to talk" not in first() and "F1 shows every key" in first()
        # voice that finds no microphone after the first line named its key
        app._welcome.update(welcome("F2"))
        app.set_voice_state(voice_off("no audio input device"))
        await pilot.pause()
        assert "to talk" not in first() and "F1 shows every key" in first()


async def test_a_turn_that_only_thought_says_no_answer_came(make_app, claude_double):
    from tests.double.server import thinking
    from tui.widgets.conversation.lines import Notice

    claude_double.add(reply(thinking("Let me think about the build.")))
    app = make_app(memory_mode="none")
    async with app.run_test(size=(120, 30)) as pilot:
        prompt = app.query_one("#prompt", Prompt)
        prompt.value = "why is the build red?"
        await pilot.press("enter")
        await wait_for(pilot, lambda: len(claude_double.messages_requests()) == 1 and not app.running, 20, "the turn")
        await pilot.pause(0.2)
        assert any("No answer came back" in str(n.render()) for n in app.query(Notice))


async def test_the_status_line_says_a_long_input_is_arriving(make_app, claude_double):
    from tests.double.server import tool_use

    # The memory tool's input is held back by the API: pings for three seconds, then all of it.
    note = {"command": "create", "path": "/memories/steps.md", "file_text": "one small step\n" * 2000}
    claude_double.add(reply(tool_use("memory", note, id="m1"), input_seconds=3.0, ping_every=0.5), reply(text("Saved.")))
    app = make_app(memory_mode="on-demand")
    said: list[str] = []
    async with app.run_test(size=(120, 30)) as pilot:
        prompt = app.query_one("#prompt", Prompt)
        prompt.value = "note the steps"
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.running, 10, "the turn")
        while app.running:
            said.append(app.status.info.activity)
            await pilot.pause(0.05)
    assert any("writing memory… 1 s" in s or "writing memory… 2 s" in s for s in said), sorted(set(said))
