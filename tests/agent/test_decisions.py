"""The user's answers reach the turn that asked, by the question's id, and only while it waits.

Through the Claude double with a real session in review mode: the answer comes down through
the session's mailbox, never through the object an event carried."""

from __future__ import annotations

import subprocess
import threading

from agent.cancel import Cancellation
from agent.decisions import Decision, Decisions
from agent.events import CodeChangeHeld, CodeChangeSettled
from agent.loop.session import Session
from agent.settings.config import AgentConfig
from agent.tools.text_editor import EDITOR_NAME
from tests.double.server import tool_use

APP = "def greet(name):\n    return 'Hello ' + name\n"


def _repo(tmp_path):
    repo = tmp_path / "shop"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "app.py").write_text(APP)
    return repo


def _rename(old: str, new: str) -> dict:
    return tool_use(EDITOR_NAME, {"command": "str_replace", "path": "app.py", "old_str": old, "new_str": new})


def test_a_late_answer_to_a_cancelled_change_decides_nothing_then_or_later(tmp_path, claude_double):
    repo = _repo(tmp_path)
    talk = Session(repo, AgentConfig(memory_mode="none", code_writes="review"))
    asked: list[str] = []
    cancel = Cancellation()

    def first(event):
        if isinstance(event, CodeChangeHeld):
            asked.append(event.id)
            threading.Timer(0.2, cancel.cancel).start()  # the user pressed Esc before deciding

    claude_double.add(_rename("def greet", "def welcome"))
    talk.send("Rename greet.", first, cancel)
    assert not talk.decisions.waiting(asked[0])
    # an Enter that arrives once the turn is gone: dropped, nothing written
    assert not talk.decisions.post(Decision(asked[0], True))
    assert (repo / "app.py").read_text() == APP

    seen: list = []
    checks: list = []

    def second(event):
        # (the session's sink swallows what it raises: what is checked here is asserted after)
        seen.append(event)
        if isinstance(event, CodeChangeHeld):
            asked.append(event.id)
            waits = talk.decisions.waiting(event.id)
            # the stale answer again, while another change waits: it does not decide that one
            stale = talk.decisions.post(Decision(asked[0], True))
            checks.extend([waits, stale, talk.decisions.waiting(event.id), talk.decisions.post(Decision(event.id, False)),
                           talk.decisions.post(Decision(event.id, True))])

    claude_double.add(_rename("return 'Hello '", "return 'Hi '"))
    claude_double.add("Kept it.")
    talk.send("Say Hi instead.", second)
    assert asked[1] != asked[0]
    # waited; the stale answer dropped; still waited; its own answer taken; a second one dropped
    assert checks == [True, False, True, True, False]
    assert [e.state for e in seen if isinstance(e, CodeChangeSettled)] == ["kept"]
    assert (repo / "app.py").read_text() == APP
    assert not any(talk.decisions.waiting(about) for about in asked)


def test_an_answer_from_another_thread_wakes_the_waiting_turn_and_a_cancel_closes_the_question():
    decisions = Decisions()
    answered: list = []
    waiter = threading.Thread(target=lambda: answered.append(decisions.ask("c1", lambda: None, lambda: False)))
    waiter.start()
    while not decisions.waiting("c1"):
        threading.Event().wait(0.01)
    assert not decisions.post(Decision("c2", True))  # no such question
    assert decisions.post(Decision("c1", True))
    waiter.join(5)
    assert answered == [Decision("c1", True)] and not decisions.waiting("c1")

    cancelled = threading.Event()
    shown: list[str] = []
    threading.Timer(0.1, cancelled.set).start()
    assert decisions.ask("c3", lambda: shown.append("c3"), cancelled.is_set) is None
    assert shown == ["c3"] and not decisions.waiting("c3")
    assert not decisions.post(Decision("c3", True))
