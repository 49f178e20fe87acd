"""Turns through the app against the Claude double: streaming, tool lines, logs, errors, Esc."""

from __future__ import annotations

import re

import pytest

from tests.double.server import error, refusal, reply, text, tool_use
from tests.tui.conftest import wait_for
from tui.widgets.conversation.lines import Notice, ToolLine, UserTurn
from tui.widgets.conversation.reply import Reply
from tui.widgets.prompt import Prompt
from tui.widgets.status import StatusLine

pytestmark = pytest.mark.usefixtures("claude_double")


async def ask(pilot, question: str) -> None:
    prompt = pilot.app.query_one("#prompt", Prompt)
    prompt.focus()
    prompt.value = question
    await pilot.press("enter")


async def finished(pilot, timeout: float = 20) -> None:
    await wait_for(pilot, lambda: not pilot.app.running, timeout, "the turn to finish")
    await pilot.pause()


def replies(app) -> str:
    return "\n".join(r.source for r in app.query(Reply))


async def test_reply_streams_into_markdown(make_app, claude_double):
    long = "The build is **green**. " + " ".join(f"word{i}" for i in range(120))
    gate = claude_double.gate(after=12)
    claude_double.add(reply(long, chunk=5, hold=gate,
                            usage={"input_tokens": 1200, "output_tokens": 340, "cache_read_input_tokens": 900}))
    app = make_app()
    async with app.run_test(size=(160, 48)) as pilot:
        await ask(pilot, "is the build green?")
        assert [u.content.plain if hasattr(u.content, "plain") else str(u.content) for u in app.query(UserTurn)] == ["is the build green?"]
        # mid-stream: part of the reply is on screen before the turn ends
        await wait_for(pilot, lambda: "green" in replies(app), 20, "the first words")
        assert app.running
        gate.open()
        await finished(pilot)
        assert replies(app).strip() == long
        assert app.query_one("#prompt", Prompt).value == ""
        usage = app.query_one(StatusLine).info.usage
        assert (usage.input_tokens, usage.output_tokens, usage.cache_read_tokens) == (1200, 340, 900)
        rendered = app.query_one(StatusLine).render().plain
        assert "in 1.2k" in rendered and "out 340" in rendered and "cached 900" in rendered


async def test_tool_call_is_one_line_then_ok(make_app, claude_double):
    claude_double.add(tool_use("git_status", {}))
    claude_double.add(text("You are on main with a clean tree."))
    app = make_app()
    async with app.run_test(size=(160, 48)) as pilot:
        await ask(pilot, "where am I?")
        await wait_for(pilot, lambda: bool(app.query(ToolLine)), 20, "the tool line")
        await finished(pilot)
        (line,) = app.query(ToolLine)
        assert line.tool_name == "git_status"
        assert line.finished is not None and line.finished[1] is False
        shown = line.line().plain
        assert re.match(r"✓ git_status  .+ → main, clean  \d+(ms|\.\ds)", shown), shown
        assert "clean tree" in replies(app)
        # the reply after the tool sits below the tool line
        children = list(app.conversation.children)
        assert children.index(line) < children.index(app.query(Reply).last())


async def test_build_log_opens_from_the_tool_line(make_app, claude_double, repo):
    # inside the repository: the build's sandbox shows it nothing else of /tmp
    script = repo / "build.sh"
    script.write_text("echo 'src/Orders.cs(111,17): error CS1061: no Patch'; echo 'Build FAILED.'; exit 1\n")
    claude_double.add(tool_use("build", {}))
    claude_double.add(text("One error in Orders.cs."))
    app = make_app(build_command=f"sh {script}")
    async with app.run_test(size=(160, 48)) as pilot:
        await ask(pilot, "build it")
        await finished(pilot)
        (line,) = app.query(ToolLine)
        assert line.tool_log and "CS1061" in line.tool_log
        assert "⏎ log" in line.line().plain
        app.conversation.focus()
        await pilot.press("up", "enter")  # the tool line picked, its log opened
        await pilot.pause()
        item = app.screen_pane.current
        assert item.format == "log" and "CS1061" in item.content and item.title.startswith("build")
        assert app.screen_pane.display
        # the last log is also one key away from anywhere
        await app.screen_pane.show("other", "x", "text")
        app.query_one("#prompt", Prompt).focus()
        await pilot.press("ctrl+l")
        await pilot.pause()
        assert "CS1061" in app.screen_pane.current.content


async def test_show_on_screen_newest_first_and_older_a_key_away(make_app, claude_double):
    claude_double.add(tool_use("show_on_screen", {"title": "Plan", "content": "# Plan\n\n1. rename", "format": "markdown"}))
    claude_double.add(tool_use("show_on_screen", {"title": "The diff", "content": "-Patch\n+Diff\n", "format": "diff"}))
    claude_double.add(text("Both are on screen."))
    app = make_app()
    async with app.run_test(size=(160, 48)) as pilot:
        await ask(pilot, "show me")
        await finished(pilot)
        pane = app.screen_pane
        assert [i.title for i in pane.items] == ["The diff", "Plan"]
        assert pane.current.title == "The diff"
        assert "Screen 1/2 newest · The diff" in str(pane.border_title)
        pane.query_one("#screen-body").focus()
        await pilot.press("left")
        assert pane.current.title == "Plan"
        assert "Screen 2/2 oldest · Plan" in str(pane.border_title)
        await pilot.press("right")
        assert pane.current.title == "The diff"
        app.query_one("#prompt", Prompt).focus()
        await pilot.press("f5")
        assert pane.current.title == "Plan"


async def test_a_refusal_is_said_in_the_reply_and_the_next_question_is_answered(make_app, claude_double):
    # "Handling streaming refusals": no text comes, so the app says it (and the voice, which
    # speaks the reply); the refused exchange leaves the conversation.
    claude_double.add(refusal(explanation="This request was declined."))
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await ask(pilot, "something refused")
        await finished(pilot)
        assert "Claude declined to answer that." in replies(app)
        assert any("declined this request" in str(n.render()) for n in app.query(Notice))
        claude_double.add(text("Answered."))
        await ask(pilot, "something else")
        await finished(pilot)
        assert "Answered." in replies(app)
    assert "something refused" not in str(claude_double.messages_requests()[-1].messages)


async def test_api_error_is_a_sentence_not_a_traceback(make_app, claude_double):
    claude_double.add(error(400, "messages.1.content.0: Invalid `signature` in `thinking` block"))
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await ask(pilot, "hello")
        await finished(pilot)
        notices = [n for n in app.query(Notice) if n.kind == "error"]
        assert notices, "the error should be shown in the conversation"
        message = str(notices[0].render())
        assert "signature" in message and "Traceback" not in message
        # the session goes on
        claude_double.add(text("Still here."))
        await ask(pilot, "again")
        await finished(pilot)
        assert "Still here." in replies(app)


async def test_escape_cancels_and_nothing_late_lands(make_app, claude_double):
    slow = "slowly " * 400
    gate = claude_double.gate(after=12)
    claude_double.add(reply(slow, chunk=7, hold=gate))
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await ask(pilot, "talk slowly")
        await wait_for(pilot, lambda: "slowly" in replies(app), 20, "the first words")
        await pilot.press("escape")
        assert not app.running
        assert any(n.kind == "cancelled" for n in app.query(Notice))
        landed = replies(app)
        gate.open()  # the rest of the reply comes after Esc
        await pilot.pause(0.6)
        assert replies(app) == landed, "text from the cancelled turn arrived after Esc"
        assert len(landed) < len(slow)
        # the next turn runs normally once the cancelled one has wound down
        claude_double.add(text("Fresh answer."))
        await ask(pilot, "next")
        await finished(pilot)
        assert "Fresh answer." in app.query(Reply).last().source


async def test_enter_while_a_turn_runs_queues_the_question(make_app, claude_double):
    # The stream stops after its first words until the keys below are in, however loaded
    # the machine; then the rest of it streams on.
    gate = claude_double.gate(after=12)
    claude_double.add(reply("streaming " * 150, chunk=5, delay=0.002, hold=gate))
    claude_double.add(text("Answer to the queued one."))
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await ask(pilot, "stream")
        await wait_for(pilot, lambda: "streaming" in replies(app), 120, "the stream")
        await pilot.press("o", "k")
        prompt = app.query_one("#prompt", Prompt)
        assert prompt.value == "ok"
        await pilot.press("enter")
        # queued, shown as such, not sent yet; the prompt is free for the next one
        assert app.running and prompt.value == ""
        assert app.queued.texts == ["ok"] and app.queued.display
        assert "queued" in str(app.queued.render()) and len(app.query(UserTurn)) == 1
        assert len(claude_double.messages_requests()) == 1
        gate.open()
        # sent by itself when the running turn ends
        await wait_for(pilot, lambda: len(app.query(UserTurn)) == 2, 60, "the queued turn")
        await finished(pilot)
        assert [str(u.render()) for u in app.query(UserTurn)] == ["stream", "ok"]
        assert "Answer to the queued one." in replies(app)
        assert claude_double.messages_requests()[-1].last_user_text() == "ok"
        assert not app.queued.texts and not app.queued.display


async def test_esc_takes_a_queued_question_back_before_it_cancels(make_app, claude_double):
    gate = claude_double.gate(after=12)
    claude_double.add(reply("streaming " * 600, chunk=5, hold=gate))
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await ask(pilot, "stream")
        await wait_for(pilot, lambda: "streaming" in replies(app), 120, "the stream")
        prompt = app.query_one("#prompt", Prompt)
        prompt.value = "second thoughts"
        await pilot.press("enter")
        assert app.queued.texts == ["second thoughts"]
        await pilot.press("escape")
        # the question is back where it was typed; the turn goes on
        assert prompt.value == "second thoughts" and not app.queued.texts
        assert app.running
        await pilot.press("escape")
        assert not app.running
        gate.open()
        await pilot.pause(0.3)
        assert len(app.query(UserTurn)) == 1
        assert len(claude_double.messages_requests()) == 1


async def test_quit_during_a_turn_stops_it(make_app, claude_double):
    # held after its first words: the turn runs until the double stops
    claude_double.add(reply("talking " * 1000, chunk=5, hold=claude_double.gate(after=12)))
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await ask(pilot, "talk")
        await wait_for(pilot, lambda: "talking" in replies(app), 20, "the stream")
        cancel = app.turns.cancellation
        await pilot.press("ctrl+q")
        await pilot.pause()
        assert cancel.cancelled
    assert app.return_code == 0


async def test_earlier_turns_come_back_with_up(make_app, claude_double):
    claude_double.add(text("one"), text("two"))
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        for question in ("first question", "second question"):
            await ask(pilot, question)
            await finished(pilot)
        prompt = app.query_one("#prompt", Prompt)
        prompt.value = "draft"
        await pilot.press("up")
        assert prompt.value == "second question"
        await pilot.press("up", "up")
        assert prompt.value == "first question"
        await pilot.press("down", "down")
        assert prompt.value == "draft"


async def test_while_the_user_types_the_status_says_the_reply_waits_and_keeps_still(make_app, claude_double, monkeypatch):
    from tui.widgets.conversation import pane as conv

    # a pause is two seconds here: a test's key presses can be slow on a loaded machine
    monkeypatch.setattr(conv, "TYPING_HOLD_SECONDS", 2.0)
    long = " ".join(f"word{i}" for i in range(400))
    # held after its first words until the user has begun typing, then a part of it comes
    # in while they type, the rest held back until they are done: the turn runs at every
    # key and text arrives mid-typing, however slow the machine
    typing_began, typing_ended = claude_double.gate(after=12), claude_double.gate(after=120)
    claude_double.add(reply(long, chunk=8, hold=[typing_began, typing_ended]))
    app = make_app()
    async with app.run_test(size=(160, 48)) as pilot:
        await ask(pilot, "a long answer, please")
        await wait_for(pilot, lambda: "word1" in replies(app), 20, "the first words")
        said: list[str] = []
        held: list[int] = []
        for key in range(25):  # typing, ten keys a second
            await pilot.press("x")
            if key == 2:
                typing_began.open()
            await pilot.pause(0.1)
            if app.running:
                said.append(app.query_one(StatusLine).info.activity)
                held.append(app.conversation.held_chars)
        waits = [s for s in said if "reply waits while you type" in s]
        assert waits, f"the status never said the reply waits: {said}"
        assert len(set(waits)) == 1, f"the status line kept changing while the user typed: {sorted(set(waits))}"
        assert max(held) > 0, "the reply did not wait"
        typing_ended.open()
        await finished(pilot)  # the pause: everything is written
        assert replies(app).strip() == long


async def test_past_the_most_turns_shown_the_oldest_go_and_one_line_says_so(make_app, claude_double, monkeypatch):
    import tui.widgets.conversation.pane as conversation_module

    monkeypatch.setattr(conversation_module, "MAX_SHOWN_TURNS", 3)
    claude_double.add(tool_use("git_status", {}))
    for n in range(1, 6):
        claude_double.add(text(f"Answer {n}."))
    app = make_app()
    async with app.run_test(size=(160, 48)) as pilot:
        for n in range(1, 6):
            await ask(pilot, f"question {n}")
            await finished(pilot)
        conversation = app.conversation
        shown = [str(turn.render()) for turn in conversation.query(UserTurn)]
        assert shown == ["question 3", "question 4", "question 5"]
        assert "Answer 1." not in replies(app) and "Answer 5." in replies(app)
        assert not app.query(ToolLine)  # the first turn's tool line went with it
        said = [str(notice.render()) for notice in app.query(Notice)]
        assert sum("first 2 turns are no longer shown" in line for line in said) == 1
        # the welcome stays first, the line about the forgotten turns right after it
        kinds = [type(child).__name__ for child in conversation.children]
        assert kinds[:3] == ["Notice", "Notice", "UserTurn"]
        # the model's history is the session's, not the pane's: all five turns went to it
        assert "question 1" in str(claude_double.messages_requests()[-1].body["messages"][0])


async def test_first_words_shown_plain_become_markdown_once_when_a_tool_call_follows(make_app, claude_double, monkeypatch):
    # a question asked at launch: Markdown is still being imported when the first words
    # come, and a tool call ends the text while the import finishes
    import importlib
    import threading
    import time as clock

    import tui.widgets.conversation.pane as conversation_module

    imported = threading.Event()
    real_import = importlib.import_module
    calls: list[str] = []

    class SlowImport:
        @staticmethod
        def import_module(name: str):
            # the import started with the first words ends first; the one the end of the
            # text waits on ends while the writer is turning the piece into Markdown
            calls.append(name)
            clock.sleep(0.2 if len(calls) == 1 else 0.25)
            module = real_import(name)
            imported.set()
            return module

    monkeypatch.setattr(conversation_module, "importlib", SlowImport)
    monkeypatch.setattr(conversation_module, "markdown_ready", lambda: real_import("tui.widgets.conversation.reply") if imported.is_set() else None)
    claude_double.add(reply(text("Let me look at the branch."), tool_use("git_status", {}), delay=0.01))
    claude_double.add(text("You are on main."))
    app = make_app()
    async with app.run_test(size=(160, 48)) as pilot:
        await ask(pilot, "where am I?")
        await finished(pilot, 30)
        await pilot.pause(0.5)
        shown = [piece.source.strip() for piece in app.conversation.children if getattr(piece, "is_reply", False)]
        assert shown == ["Let me look at the branch.", "You are on main."], shown
        assert not app.query(conversation_module.PlainReply)  # all of it Markdown now


async def test_a_plain_piece_turned_into_markdown_from_two_sides_at_once_is_turned_once(monkeypatch):
    # the writer (woken when the import ends) and the end of the text (a tool call) can
    # both turn the plain first piece into Markdown while either is still mounting
    import asyncio
    import importlib

    from textual.app import App, ComposeResult

    import tui.widgets.conversation.pane as conversation_module
    from tui.widgets.conversation.pane import Conversation

    reply_module = importlib.import_module("tui.widgets.conversation.reply")
    monkeypatch.setattr(conversation_module, "markdown_ready", lambda: None)
    monkeypatch.setattr(Conversation, "_markdown_soon", lambda self: None)

    class Host(App[None]):
        def compose(self) -> ComposeResult:
            yield Conversation()

    app = Host()
    async with app.run_test(size=(80, 24)) as pilot:
        conversation = app.query_one(Conversation)
        await conversation.add_text("Let me look at the branch.")
        await pilot.pause()
        assert isinstance(conversation._reply, conversation_module.PlainReply)
        await asyncio.gather(conversation._to_markdown(reply_module), conversation._to_markdown(reply_module))
        await pilot.pause()
        pieces = [child for child in conversation.children if getattr(child, "is_reply", False)]
        assert [type(p).__name__ for p in pieces] == ["Reply"]
        assert pieces[0].source == "Let me look at the branch."
