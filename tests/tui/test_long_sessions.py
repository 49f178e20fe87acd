"""The app in a long session: context fullness on the status line, compaction as one line,
resuming with --resume, and the palette's list of saved sessions."""

from __future__ import annotations

import pytest
from textual.widgets import OptionList

from agent.settings.config import AgentConfig
from tests.double.server import reply, text, tool_use
from tests.tui.conftest import ask, wait_for
from tui.app import DevAgentApp
from tui.screens.sessions import SessionsScreen
from tui.widgets.conversation.lines import Notice
from tui.widgets.screen.pane import ScreenPane
from tui.widgets.status import StatusLine

pytestmark = pytest.mark.usefixtures("claude_double")


def notices(app) -> list[str]:
    return [str(n.render()) for n in app.query(Notice)]


async def test_the_status_line_shows_how_full_the_context_is(make_app, claude_double):
    claude_double.add(reply(text("Fine.")))
    app = make_app()
    async with app.run_test(size=(200, 48)) as pilot:
        await ask(pilot, "how full is it?", timeout=120)
        status = app.query_one(StatusLine)
        # Haiku 5.5's window is 1M ("What's new in Claude Haiku 5.5").
        assert status.info.context is not None and status.info.context.window == 1_000_000
        assert "context " in status.render().plain and "of 1M" in status.render().plain


async def test_a_compaction_is_one_folded_line_and_its_summary_waits_on_the_screen_pane(make_app, claude_double, repo):
    # Compaction's trigger is at least 50,000 tokens: six reads of a full page (about 10,000
    # tokens each) pass it.
    (repo / "page.txt").write_text("".join(f"line {n:03}: stock of item {n}, shelf by shelf, {'.' * 60}\n" for n in range(400)))
    reads = [reply(tool_use("read_file", {"path": "page.txt"})) for _ in range(6)]
    claude_double.add(*reads, reply(text("Read.")), reply(text("Summarised and answered.")))
    app = make_app(clear_at=40_000, compact_at=50_000, keep_tool_uses=10)
    async with app.run_test(size=(160, 48)) as pilot:
        await ask(pilot, "read the page", timeout=120)
        await ask(pilot, "and now?", timeout=120)
        folded = [n for n in notices(app) if "earlier conversation summarised" in n]
        assert len(folded) == 1 and "\n" not in folded[0]
        item = app.query_one(ScreenPane).items[0]
        assert item.title == "Earlier conversation, summarised" and "read the page" in item.content


async def test_resume_continues_the_saved_session(claude_double, repo, store):
    claude_double.add(reply(text("It sells shoes.")))
    first = DevAgentApp(repo, AgentConfig(thinking="off"), store=store, probe_voice=False)
    async with first.run_test(size=(160, 48)) as pilot:
        await ask(pilot, "what does the shop sell?", timeout=120)
    first.close_session()
    claude_double.add(reply(text("We talked about shoes.")))
    second = DevAgentApp(repo, AgentConfig(thinking="off"), store=store, probe_voice=False, resume="")
    async with second.run_test(size=(160, 48)) as pilot:
        await wait_for(pilot, lambda: second.turns.session is not None, 120, "the session")
        await pilot.pause()
        assert any("Resumed the session of" in n and "what does the shop sell?" in n for n in notices(second))
        await ask(pilot, "what did we talk about?", timeout=120)
    sent = claude_double.messages_requests()[-1]
    assert "what does the shop sell?" in sent.first_user_text() and sent.messages[1]["content"][0]["text"] == "It sells shoes."


async def test_the_palette_lists_sessions_to_read_or_continue(claude_double, repo, store):
    claude_double.add(reply(text("It sells shoes.")))
    first = DevAgentApp(repo, AgentConfig(thinking="off"), store=store, probe_voice=False)
    async with first.run_test(size=(160, 48)) as pilot:
        await ask(pilot, "what does the shop sell?", timeout=120)
    first.close_session()
    app = DevAgentApp(repo, AgentConfig(thinking="off"), store=store, probe_voice=False)
    async with app.run_test(size=(160, 48)) as pilot:
        await wait_for(pilot, lambda: app.turns.session is not None, 120, "the session")
        app.action_sessions()
        await wait_for(pilot, lambda: isinstance(app.screen, SessionsScreen) and bool(app.screen.query(OptionList)), 10, "the list")
        options = app.screen.query_one(OptionList)
        assert options.option_count == 1
        assert "what does the shop sell?" in str(options.get_option_at_index(0).prompt)
        options.highlighted = 0
        await pilot.press("r")
        await wait_for(pilot, lambda: not isinstance(app.screen, SessionsScreen), 10, "the list to close")
        await pilot.pause()
        pane = app.query_one(ScreenPane)
        assert pane.items[0].format == "markdown" and "It sells shoes." in pane.items[0].content

        app.action_sessions()
        await wait_for(pilot, lambda: isinstance(app.screen, SessionsScreen) and bool(app.screen.query(OptionList)), 10, "the list")
        app.screen.query_one(OptionList).highlighted = 0
        await pilot.press("enter")
        await wait_for(pilot, lambda: any("Resumed the session of" in n for n in notices(app)), 120, "the switch")
        claude_double.add(reply(text("Shoes, as before.")))
        await ask(pilot, "remind me?", timeout=120)
    sent = claude_double.messages_requests()[-1]
    assert sent.messages[1]["content"][0]["text"] == "It sells shoes."


async def test_a_resumed_session_draws_its_earlier_turns(claude_double, repo, store):
    from tui.widgets.conversation.lines import UserTurn
    from tui.widgets.conversation.reply import Reply

    claude_double.add(reply(text("It sells shoes.")), reply(text("And socks.")))
    first = DevAgentApp(repo, AgentConfig(thinking="off"), store=store, probe_voice=False)
    async with first.run_test(size=(160, 48)) as pilot:
        await ask(pilot, "what does the shop sell?", timeout=120)
        await ask(pilot, "anything else?", timeout=120)
    first.close_session()
    second = DevAgentApp(repo, AgentConfig(thinking="off"), store=store, probe_voice=False, resume="")
    async with second.run_test(size=(160, 48)) as pilot:
        await wait_for(pilot, lambda: any("Resumed the session of" in n for n in notices(second)), 120, "the session")
        await pilot.pause(0.3)
        asked = [str(u.content.plain if hasattr(u.content, "plain") else u.content) for u in second.query(UserTurn)]
        assert [a for a in asked if "?" in a] == ["what does the shop sell?", "anything else?"], asked
        answers = "\n".join(r.source for r in second.query(Reply))
        assert "It sells shoes." in answers and "And socks." in answers
