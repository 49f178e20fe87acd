"""Ctrl+N and the palette's "New conversation": the next question goes out on its own."""

from __future__ import annotations

import pytest

from tests.tui.conftest import ask, wait_for
from tui.widgets.conversation.lines import Notice

pytestmark = pytest.mark.usefixtures("claude_double")


async def test_ctrl_n_starts_a_new_conversation(make_app, claude_double):
    claude_double.add("First.", "Second.")
    app = make_app(memory_mode="none")
    async with app.run_test(size=(120, 40)) as pilot:
        await ask(pilot, "the old question")
        await pilot.press("ctrl+n")
        await wait_for(pilot, lambda: any("New conversation" in str(n.render()) for n in app.query(Notice)), 10,
                       "the new-conversation notice")
        await ask(pilot, "a fresh question")
    first, second = claude_double.messages_requests()
    assert len(second.messages) == 1 and "a fresh question" in second.last_user_text()
    assert "the old question" not in str(second.body["messages"])


async def test_the_palette_offers_it(make_app):
    app = make_app(memory_mode="none")
    async with app.run_test(size=(120, 40)) as pilot:
        titles = [c.title for c in app.get_system_commands(app.screen)]
        assert "New conversation" in titles
        await pilot.pause()
