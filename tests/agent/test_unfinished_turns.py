"""Cancelled and failed turns are recorded as such and never asked again (issue 10, point 5).

Every test reads what the session actually sent next, from the requests the Claude double
recorded.
"""

from __future__ import annotations

import threading
from datetime import UTC, datetime
from pathlib import Path

from agent.cancel import Cancellation
from agent.conversation import transcripts
from agent.conversation.history import CANCELLED_NOTE, NOT_ANSWERED
from agent.events import AgentError, TextDelta
from agent.loop.session import Session
from agent.settings.config import AgentConfig
from tests.agent.toolkit import EchoTool
from tests.double.server import Request, error, reply, tool_use

NOW = datetime(2026, 11, 9, 9, 0, tzinfo=UTC)
POISON = "PASTE-THAT-THE-API-REFUSES"


def make(repo: Path, mode: str = "none", **kwargs) -> Session:
    return Session(repo, AgentConfig(memory_mode=mode), tools=[EchoTool()], now=NOW, **kwargs)


def run(session: Session, text: str, cancel: Cancellation | None = None) -> list:
    events: list = []
    session.send(text, events.append, cancel)
    return events


def texts(message: dict) -> list[str]:
    return [b.get("text", "") for b in message["content"] if b.get("type") == "text"]


def sent(request: Request) -> str:
    return str(request.body["messages"])


def refuse_poison(request: Request):
    """A persistent 400: every request that still carries the text is refused."""
    if POISON in sent(request):
        return error(400, "messages: the request could not be processed")
    return None


def test_cancelled_question_is_closed_and_the_next_message_is_only_the_new_words(claude_double, tmp_path):
    claude_double.add(reply("The first answer is long " * 40, chunk=6, delay=0.02), "Answer to the second.")
    session = make(tmp_path)
    cancel = Cancellation()
    events: list = []

    def sink(event):
        events.append(event)
        if isinstance(event, TextDelta) and not cancel.cancelled:
            threading.Thread(target=cancel.cancel).start()

    session.send("first question", sink, cancel)
    assert events[-1].cancelled
    assert run(session, "second question")[-1].text == "Answer to the second."
    asked, closed, again = claude_double.messages_requests()[-1].messages
    assert texts(asked)[-1] == "first question"
    assert texts(closed)[-1] == CANCELLED_NOTE
    assert texts(again) == ["second question"], "the cancelled question is not asked again"


def test_a_failed_turn_is_noted_once_and_not_repeated(claude_double, tmp_path):
    claude_double.add(*[error(529)] * 3, "Fine now.", "And again.")
    session = make(tmp_path)
    session.config = AgentConfig(memory_mode="none", max_retries=2)
    assert [e for e in run(session, "what broke?") if isinstance(e, AgentError)]
    run(session, "try this")
    run(session, "and this")
    last = claude_double.messages_requests()[-1].messages
    # One record of the failure, then two ordinary turns; "what broke?" appears once.
    assert [m["role"] for m in last] == ["user", "assistant", "user", "assistant", "user"]
    assert sum("what broke?" in t for m in last for t in texts(m)) == 1
    assert texts(last[1])[-1].startswith("[This turn stopped here, unfinished: Claude API error 529")
    assert texts(last[-1]) == ["and this"]


def test_a_persistent_400_on_the_users_text_does_not_jam_the_session(claude_double, tmp_path):
    claude_double.responder = refuse_poison
    claude_double.add("Second turn works.", "Third too.")
    session = make(tmp_path)
    failed = run(session, f"please read {POISON}")
    assert [e.message for e in failed if isinstance(e, AgentError)] == [
        "Claude API error 400 invalid_request_error: messages: the request could not be processed"
    ]
    assert run(session, "hello again")[-1].text == "Second turn works."
    assert run(session, "and once more")[-1].text == "Third too."
    later = claude_double.messages_requests()[1:]
    assert all(POISON not in sent(r) for r in later), "the refused text is not sent again"
    first = later[0].messages
    assert "refused by the API" in texts(first[0])[-1] and texts(first[1]) == [NOT_ANSWERED]
    assert "Today is" in texts(first[0])[0], "the date went with the dropped message and comes back"
    # The saved transcript does not carry it either, so a later session cannot replay it.
    saved = transcripts.load(session.transcript.path)
    assert POISON not in str([m.message for m in saved.messages])
    assert len(saved.messages) == 6


def test_a_persistent_400_caused_by_a_tool_result_drops_that_turn(claude_double, tmp_path):
    claude_double.responder = refuse_poison
    claude_double.add(tool_use("echo", {"text": POISON}, id="e1"), "Back to normal.")
    session = make(tmp_path)
    events = run(session, "echo the paste")
    assert [e for e in events if isinstance(e, AgentError)]
    assert run(session, "what now?")[-1].text == "Back to normal."
    assert POISON not in sent(claude_double.messages_requests()[-1])


def test_a_refused_turn_is_not_replayed_by_the_next_session(claude_double, tmp_path):
    claude_double.responder = refuse_poison
    claude_double.add("Fine.", "Replayed fine.")
    first = make(tmp_path, "history")
    run(first, POISON)
    run(first, "a normal question")
    first.close()
    second = make(tmp_path, "history")
    assert run(second, "do you remember?")[-1].text == "Replayed fine."
    replayed = claude_double.messages_requests()[-1]
    assert POISON not in sent(replayed) and "a normal question" in sent(replayed)


def test_new_conversation_sends_nothing_of_the_old_one(claude_double, tmp_path):
    claude_double.add("One.", "Two.", "Fresh.")
    session = make(tmp_path)
    run(session, "old question one")
    run(session, "old question two")
    old_transcript = session.transcript.path
    session.new_conversation()
    events = run(session, "a new start")
    assert events[-1].text == "Fresh." and events[-1].turn == 3, "turn ids keep growing"
    (only,) = claude_double.messages_requests()[-1].messages
    assert texts(only)[0].startswith("Today is") and texts(only)[-1] == "a new start"
    assert session.transcript.path != old_transcript
    assert len(transcripts.load(old_transcript).messages) == 4
    assert len(transcripts.load(session.transcript.path).messages) == 2


def test_new_conversation_rereads_the_memory_folder(claude_double, tmp_path):
    from memory.store import MemoryStore

    store = MemoryStore(tmp_path / "sandbox" / "memories")
    claude_double.add("Noted.", "Seen.")
    session = make(tmp_path, "preloaded", store=store)
    run(session, "hi")
    text, is_error = store.run({"command": "create", "path": "/memories/deploy.md",
                                "file_text": "---\nname: deploy\ndescription: how we deploy\ntype: project\n---\n\nmake ship\n"})
    assert not is_error, text
    assert "make ship" not in claude_double.messages_requests()[-1].system_text()
    session.new_conversation()
    run(session, "how do we deploy?")
    assert "make ship" in claude_double.messages_requests()[-1].system_text()


def test_new_conversation_in_history_mode_does_not_replay_the_old_one(claude_double, tmp_path):
    claude_double.add("Old.", "New.")
    session = make(tmp_path, "history")
    run(session, "old words")
    session.new_conversation()
    run(session, "new words")
    assert "old words" not in sent(claude_double.messages_requests()[-1])
