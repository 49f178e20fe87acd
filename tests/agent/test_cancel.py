"""Cancelling a turn: between stream events, inside a stalled read, and while a tool runs."""

from __future__ import annotations

import os
import threading
import time
from datetime import UTC, datetime
from pathlib import Path

from agent.cancel import Cancellation
from agent.conversation.history import CANCELLED_NOTE
from agent.events import TextDelta, TurnFinished
from agent.loop.session import Session
from agent.settings.config import AgentConfig
from agent.workspace_trust import WorkspaceTrust
from tests.agent.toolkit import EchoTool, SleepTool
from tests.double.server import reply, tool_use
from tests.processes import alive

NOW = datetime(2026, 11, 9, 9, 0, tzinfo=UTC)


def make(tmp_path: Path, tools) -> Session:
    return Session(tmp_path, AgentConfig(memory_mode="none"), tools=tools, now=NOW)


def cancel_when(session: Session, text: str, trigger) -> tuple[list, float]:
    """Sends `text`, cancels at the first event `trigger` accepts; returns events and seconds to finish."""
    cancel = Cancellation()
    events: list = []
    fired = threading.Event()
    moment: list[float] = []

    def sink(event):
        events.append(event)
        if not fired.is_set() and trigger(event):
            fired.set()
            moment.append(time.monotonic())
            threading.Thread(target=cancel.cancel).start()

    session.send(text, sink, cancel)
    assert moment, "the trigger never fired"
    return events, time.monotonic() - moment[0]


def test_cancel_between_stream_events(claude_double, tmp_path):
    claude_double.add(reply("word " * 200, chunk=5, delay=0.02), "Next turn.")
    session = make(tmp_path, [EchoTool()])
    events, took = cancel_when(session, "talk", lambda e: isinstance(e, TextDelta))
    assert isinstance(events[-1], TurnFinished) and events[-1].cancelled
    assert len([e for e in events if isinstance(e, TextDelta)]) < 20
    assert took < 2
    assert session.send("again", lambda e: None).api_calls == 1
    # The cancelled turn stays as such, with the words the user saw, and is not asked again.
    first, closed, again = claude_double.messages_requests()[-1].messages
    assert [first["role"], closed["role"], again["role"]] == ["user", "assistant", "user"]
    shown = "".join(e.text for e in events if isinstance(e, TextDelta))
    assert [b["text"] for b in closed["content"]] == [shown, CANCELLED_NOTE]
    assert [b["text"] for b in again["content"]] == ["again"]


def test_cancel_inside_a_stalled_read(claude_double, tmp_path):
    # The server sends one delta and then nothing for 30 s: only closing the response ends the read.
    claude_double.add(reply("Thinking about it for a long while", chunk=4, stall=30))
    session = make(tmp_path, [EchoTool()])
    events, took = cancel_when(session, "talk", lambda e: isinstance(e, TextDelta))
    assert events[-1].cancelled
    assert took < 5


def test_cancel_while_a_tool_runs_kills_its_process_tree(claude_double, tmp_path):
    pid_file = tmp_path / "child.pid"
    claude_double.add(tool_use("sleep", {}, id="t1"), "After the cancel.")
    session = make(tmp_path, [SleepTool(pid_file)])


    cancel = Cancellation()
    events: list = []

    def watcher():
        deadline = time.monotonic() + 20
        while not (pid_file.exists() and pid_file.read_text()):
            if time.monotonic() > deadline:
                return
            time.sleep(0.02)
        cancel.cancel()

    threading.Thread(target=watcher, daemon=True).start()
    began = time.monotonic()
    session.send("sleep", events.append, cancel)
    assert time.monotonic() - began < 15
    child = int(pid_file.read_text())
    deadline = time.monotonic() + 5
    while alive(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not alive(child), "the tool's grandchild outlived the cancel"
    assert events[-1].cancelled
    assert len(claude_double.messages_requests()) == 1

    # The cancelled call has its tool_result, the turn is closed as cancelled, and the next
    # words come on their own.
    session.send("what happened?", lambda e: None)
    last = claude_double.messages_requests()[-1]
    results, closed, asked = last.messages[-3:]
    assert results["content"][0]["type"] == "tool_result" and results["content"][0]["tool_use_id"] == "t1"
    assert closed["content"] == [{"type": "text", "text": CANCELLED_NOTE}]
    assert [b["text"] for b in asked["content"]] == ["what happened?"]


def test_cancelled_before_it_starts(claude_double, tmp_path):
    cancel = Cancellation()
    cancel.cancel()
    events: list = []
    make(tmp_path, [EchoTool()]).send("hi", events.append, cancel)
    assert events[-1].cancelled and claude_double.requests == []


def test_cancel_stops_a_real_test_run(claude_double, tmp_path):
    """The developer `test` tool runs pytest in a small repository; a cancel kills the run.

    The run may be sandboxed (its own /tmp and pid namespace), so it marks itself where the
    test can see it: a file in the repository, and a `sleep` child with an argument no
    other process has, found on the host's /proc by that argument."""
    repo = tmp_path / "sandbox" / "slow"
    (repo / "tests").mkdir(parents=True)
    started = repo / "started"
    marker = f"{60 + os.getpid() % 1000 / 1000:.3f}"
    (repo / "pyproject.toml").write_text('[project]\nname = "slow"\nversion = "0"\n')
    (repo / "tests" / "test_slow.py").write_text(
        "import subprocess, time\n\n"
        "def test_slow():\n"
        f"    subprocess.Popen(['sleep', {marker!r}])\n"
        "    open('started', 'w').write('yes')\n"
        "    time.sleep(60)\n"
    )
    claude_double.add(tool_use("test", {}, id="t1"), "Cancelled, fine.")
    session = Session(repo, AgentConfig(memory_mode="none"), now=NOW, trust=WorkspaceTrust(repo, for_this_run=True))
    cancel = Cancellation()

    def watcher():
        deadline = time.monotonic() + 60
        while not (started.exists() and _sleeping(marker)) and time.monotonic() < deadline:
            time.sleep(0.05)
        cancel.cancel()

    threading.Thread(target=watcher, daemon=True).start()
    events: list = []
    session.send("run the tests", events.append, cancel)
    assert events[-1].cancelled and started.exists()
    deadline = time.monotonic() + 5
    while _sleeping(marker) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _sleeping(marker), "the test run's child outlived the cancel"
    finished = [e for e in events if type(e).__name__ == "ToolFinished"]
    assert len(finished) == 1 and finished[0].name == "test"


def _sleeping(marker: str) -> bool:
    """Whether a `sleep MARKER` runs anywhere on the machine (host pids, any namespace)."""
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if Path(f"/proc/{entry}/cmdline").read_bytes().split(b"\0")[:2] == [b"sleep", marker.encode()]:
                    return True
            except OSError:
                continue
    return False


def test_cancel_before_the_response_starts(claude_double, tmp_path):
    claude_double.add(reply("too late", wait=20), "Next.")
    session = make(tmp_path, [EchoTool()])
    cancel = Cancellation()
    threading.Timer(0.5, cancel.cancel).start()
    events: list = []
    began = time.monotonic()
    session.send("hi", events.append, cancel)
    assert events[-1].cancelled and time.monotonic() - began < 3
    # The abandoned request does not disturb the next turn.
    assert session.send("again", lambda e: None).api_calls == 1
