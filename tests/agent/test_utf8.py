"""Text that is not valid UTF-8 never poisons a session (issue 9, point 3).

A lone surrogate reaches a session from a file name that is not UTF-8, a `\\ud800` escape in
a tool input or a command-line argument. It must not fail the request, the transcript or any
later turn; it is replaced with U+FFFD, and the text says so.
"""

from __future__ import annotations

import json
import os
import subprocess
from datetime import UTC, datetime
from pathlib import Path

import pytest

from agent.conversation import transcripts
from agent.conversation.utf8 import valid, valid_value
from agent.events import AgentError, TurnFinished
from agent.loop.session import Session
from agent.settings.config import AgentConfig
from agent.tools.base import ToolContext, ToolResult
from agent.tools.git import GitStatusTool
from tests.agent.toolkit import EchoTool
from tests.double.server import tool_use
from tests.marked_text import unmarked
from tests.repos import git_repo

NOW = datetime(2026, 11, 9, 9, 0, tzinfo=UTC)
ROOT = Path(__file__).resolve().parents[2]
NOT_UTF8 = b"caf\xe9 menu.txt"  # Latin-1, as an old archive would name it


class ListTool:
    """Lists a real folder with os.listdir, which hands back undecodable names as surrogates."""

    name = "list"

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def definition(self) -> dict:
        return {"name": "list", "description": "List.", "input_schema": {"type": "object", "properties": {}}}

    def summarize_input(self, input: dict) -> str:
        return ""

    def run(self, input: dict, ctx: ToolContext) -> ToolResult:
        names = sorted(os.listdir(self.folder))
        return ToolResult(text="\n".join(names), summary=f"{len(names)} files", log="\n".join(names))


def make(repo: Path, tools: list) -> Session:
    return Session(repo, AgentConfig(memory_mode="none"), tools=tools, now=NOW)


def run(session: Session, text) -> list:
    events: list = []
    session.send(text, events.append)
    return events


def errors(events) -> list[str]:
    return [e.message for e in events if isinstance(e, AgentError)]


def assert_transcript_is_utf8(session: Session) -> None:
    raw = session.transcript.path.read_bytes()
    raw.decode("utf-8")  # raises if it is not
    saved = transcripts.load(session.transcript.path)
    assert saved is not None and saved.messages


@pytest.fixture
def sandbox(tmp_path):
    path = tmp_path / "sandbox" / "repo"
    path.mkdir(parents=True)
    return path


def test_valid_replaces_lone_surrogates_and_joins_pairs():
    assert valid("plain") == ("plain", 0)
    assert valid("a\ud800b\udce9") == ("a\ufffdb\ufffd", 2)
    assert valid("\ud83d\ude00") == ("\U0001f600", 0)
    assert valid("already \ufffd here") == ("already \ufffd here", 0)
    value, count = valid_value({"k\udcff": ["x", {"y": "\ud800"}]})
    assert value == {"k\ufffd": ["x", {"y": "\ufffd"}]} and count == 2


def test_user_text_with_a_lone_surrogate_is_sent_replaced_and_the_next_turn_works(claude_double, sandbox):
    claude_double.add("Got it.", "Still here.")
    session = make(sandbox, [EchoTool()])
    first = run(session, "open caf\ud800 please")
    assert errors(first) == [] and first[-1].text == "Got it."
    second = run(session, "and now?")
    assert errors(second) == [] and second[-1].text == "Still here."
    sent = claude_double.messages_requests()[0].last_user_text()
    assert "open caf\ufffd please" in sent
    assert "1 character of this message was not valid UTF-8" in sent
    assert_transcript_is_utf8(session)


def test_a_tool_input_with_a_lone_surrogate_runs_replaced_and_says_so(claude_double, sandbox):
    claude_double.add(tool_use("echo", {"text": "bad \ud800 name"}, id="t1"), "Echoed.", "Next.")
    session = make(sandbox, [EchoTool()])
    events = run(session, "echo it")
    assert errors(events) == [] and events[-1].text == "Echoed."
    second = claude_double.messages_requests()[1]
    assistant = second.messages[1]["content"]
    assert assistant[0]["input"] == {"text": "bad \ufffd name"}
    result = second.tool_results()[0]["content"]
    assert unmarked(result)[2].startswith("echo: bad \ufffd name")
    assert "of the tool input was not valid UTF-8" in result
    assert run(session, "next")[-1].text == "Next."
    assert_transcript_is_utf8(session)


def test_a_tool_result_listing_a_name_that_is_not_utf8(claude_double, sandbox):
    folder = sandbox / "archive"
    folder.mkdir()
    with open(os.path.join(os.fsencode(folder), NOT_UTF8), "wb") as f:
        f.write(b"soup\n")
    claude_double.add(tool_use("list", {}, id="l1"), "One file.", "Next.")
    session = make(sandbox, [ListTool(folder)])
    events = run(session, "what is in the archive?")
    assert errors(events) == [] and events[-1].text == "One file."
    finished = [e for e in events if type(e).__name__ == "ToolFinished"][0]
    assert finished.log == "caf\ufffd menu.txt"
    result = claude_double.messages_requests()[1].tool_results()[0]["content"]
    assert unmarked(result)[2].startswith("caf\ufffd menu.txt\n")
    assert "of this result was not valid UTF-8" in result
    assert run(session, "next")[-1].text == "Next."
    assert_transcript_is_utf8(session)


def test_git_status_in_a_real_repository_with_a_name_that_is_not_utf8(claude_double, sandbox):
    git_repo(sandbox)
    with open(os.path.join(os.fsencode(sandbox), NOT_UTF8), "wb") as f:
        f.write(b"soup\n")
    claude_double.add(tool_use("git_status", {}, id="g1"), "One untracked file.", "Next.")
    session = make(sandbox, [GitStatusTool()])
    events = run(session, "what changed?")
    assert errors(events) == [] and events[-1].text == "One untracked file."
    result = claude_double.messages_requests()[1].tool_results()[0]["content"]
    assert "Untracked (1):" in result and "caf" in result and "menu.txt" in result
    assert run(session, "next")[-1].text == "Next."
    assert_transcript_is_utf8(session)
    assert sorted(os.listdir(os.fsencode(sandbox))) == sorted([b".git", NOT_UTF8])


@pytest.mark.parametrize("text", [None, b"bytes \xff here", 42, "", "\udcff" * 3])
def test_send_never_raises_whatever_it_is_given(claude_double, sandbox, text):
    claude_double.add("Fine.")

    def sink(event):
        raise RuntimeError("the display broke")

    session = make(sandbox, [EchoTool()])
    session.send(text, sink)  # must not raise, even with a sink that does
    events = run(session, "and this?")
    # The first turn's reply was consumed; the second has no script: a sentence, not a raise.
    assert isinstance(events[-1], TurnFinished)
    assert claude_double.messages_requests()[0].body["messages"]


@pytest.mark.e2e
def test_ask_with_an_argument_that_is_not_utf8(claude_double, tmp_path):
    repo = tmp_path / "sandbox" / "app"
    repo.mkdir(parents=True)
    claude_double.add("First answer.", "Second answer.")
    out = subprocess.run(
        ["uv", "run", "--no-sync", "devagent", "ask", "--repo", str(repo), "--memory", "none",
         b"read caf\xe9.txt", "and then?"],
        cwd=ROOT, capture_output=True, timeout=120, env=os.environ.copy(),
    )
    stdout, stderr = out.stdout.decode("utf-8"), out.stderr.decode("utf-8", "replace")
    assert out.returncode == 0, stderr
    assert "Traceback" not in stderr
    assert "First answer." in stdout and "Second answer." in stdout
    first, second = claude_double.messages_requests()
    assert "read caf\ufffd.txt" in first.last_user_text()
    assert "not valid UTF-8" in first.last_user_text()
    assert "and then?" in second.last_user_text()
    record = json.loads(stdout.strip().splitlines()[-1])
    Path(record["transcript"]).read_bytes().decode("utf-8")
