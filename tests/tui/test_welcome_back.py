"""Welcome back in the app: given once the app is up after hours away, as the session's first
turn; skipped by typing; never on --resume; asked for again in words; built from git alone
without a key."""

from __future__ import annotations

from datetime import datetime, timedelta

from agent.loop.session import Session
from agent.loop.welcome_back import ASKED, OWN_WORDS
from agent.settings.config import AgentConfig
from tests.double.server import reply, text
from tests.tui.conftest import wait_for
from tui.widgets.conversation.lines import UserTurn
from tui.widgets.conversation.reply import Reply
from tui.widgets.prompt import Prompt
from tui.widgets.screen.pane import ScreenPane


def _earlier_session(repo, claude_double, hours_ago: float) -> None:
    claude_double.add(reply(text("Noted: the parser comes next.")))
    then = datetime.now().astimezone() - timedelta(hours=hours_ago)
    Session(repo, AgentConfig(memory_mode="none", thinking="off"), now=then).send("The parser comes next.", lambda e: None)


def _briefings(claude_double) -> list:
    return [r for r in claude_double.messages_requests() if OWN_WORDS in r.last_user_text()]


def _users(app) -> list[str]:
    return [str(getattr(u.content, "plain", u.content)) for u in app.query(UserTurn)]


def _replies(app) -> str:
    return "\n".join(r.source for r in app.query(Reply))


async def test_after_hours_away_the_app_opens_with_the_briefing(make_app, repo, claude_double):
    _earlier_session(repo, claude_double, hours_ago=10)
    claude_double.add(reply(text("Welcome back. Nothing was committed since; next, the parser.")))
    app = make_app(memory_mode="none")
    async with app.run_test(size=(160, 48)) as pilot:
        await wait_for(pilot, lambda: "next, the parser" in _replies(app), 30, "the briefing")
        assert _users(app) == [ASKED]
        (sent,) = _briefings(claude_double)
        assert len(sent.messages) == 1  # the session's first turn
        await wait_for(pilot, lambda: not app.running, 10, "the turn to end")
        # a follow-up refers to it: the next request carries the briefing turn
        claude_double.add(reply(text("The parser, as I said.")))
        prompt = app.query_one("#prompt", Prompt)
        prompt.value = "what did you say was next?"
        await pilot.press("enter")
        await wait_for(pilot, lambda: "as I said" in _replies(app), 20, "the follow-up")
        follow = claude_double.messages_requests()[-1].messages
        assert len(follow) == 3 and "next, the parser" in str(follow[1]["content"])


async def test_a_recent_session_gets_no_briefing(make_app, repo, claude_double):
    _earlier_session(repo, claude_double, hours_ago=2)
    app = make_app(memory_mode="none")
    async with app.run_test(size=(160, 48)) as pilot:
        await wait_for(pilot, lambda: app.turns.ready.is_set(), 30, "the session")
        await pilot.pause(0.5)
        assert _briefings(claude_double) == [] and _users(app) == []


async def test_typing_skips_the_briefing(make_app, repo, claude_double):
    _earlier_session(repo, claude_double, hours_ago=10)
    gate = claude_double.gate()
    claude_double.add(reply(text("Welcome back. A long briefing that the user does not wait for."), hold=gate))
    app = make_app(memory_mode="none")
    async with app.run_test(size=(160, 48)) as pilot:
        await wait_for(pilot, lambda: app.running and app.turns.briefing, 30, "the briefing to start")
        app.query_one("#prompt", Prompt).focus()
        await pilot.press("w", "h")
        await wait_for(pilot, lambda: not app.running, 10, "the briefing to stop")
        gate.open()
        assert app.query_one("#prompt", Prompt).value == "wh"  # the typed words stay
        assert "does not wait" not in _replies(app)


async def test_resume_gets_no_briefing(make_app, repo, claude_double, store):
    from tui.app import DevAgentApp

    _earlier_session(repo, claude_double, hours_ago=30)
    app = DevAgentApp(repo, AgentConfig(memory_mode="none", thinking="off"), store=store, probe_voice=False, resume="")
    async with app.run_test(size=(160, 48)) as pilot:
        await wait_for(pilot, lambda: app.turns.ready.is_set(), 30, "the session")
        await pilot.pause(0.5)
        assert _briefings(claude_double) == []


async def test_asking_in_words_gives_the_briefing(make_app, repo, claude_double):
    claude_double.add(reply(text("Nothing new since your last session.")), reply(text("Still nothing new.")))
    app = make_app(memory_mode="none")
    async with app.run_test(size=(160, 48)) as pilot:
        prompt = app.query_one("#prompt", Prompt)
        prompt.focus()
        for asked, answer in (("what's new?", "Nothing new"), ("Catch me up", "Still nothing")):
            prompt.value = asked
            await pilot.press("enter")
            await wait_for(pilot, lambda said=answer: said in _replies(app) and not app.running, 30, "the briefing")
        # the user's own words show; the request is the briefing's, with its checks
        assert len(_briefings(claude_double)) == 2 and _users(app) == ["what's new?", "Catch me up"]


async def test_without_a_key_the_briefing_comes_from_git(make_app, repo, claude_double, monkeypatch):
    _earlier_session(repo, claude_double, hours_ago=10)
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    app = make_app(memory_mode="none")
    async with app.run_test(size=(160, 48)) as pilot:
        await wait_for(pilot, lambda: "No commits since" in _replies(app), 30, "the local briefing")
        assert _users(app) == [ASKED]
        screen = app.query_one(ScreenPane)
        await wait_for(pilot, lambda: screen.current is not None and screen.current.title == "Welcome back", 10,
                       "the detail on screen")
        assert "## Commits since" in screen.current.content
        assert _briefings(claude_double) == []
