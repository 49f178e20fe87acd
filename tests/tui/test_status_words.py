"""What the status line says while a reply streams: it waits for the user only when they type."""

from __future__ import annotations

from tests.claude_double import reply, text
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
