"""Resuming a saved session: after its last finished turn, with its model and thinking, and
a first request that starts with the earlier history byte for byte."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from agent.conversation import saved_sessions as sessions
from agent.conversation import transcripts
from agent.loop.resume import open_saved
from agent.loop.session import Session
from agent.settings.config import AgentConfig
from tests.double.server import Request, reply, text, thinking, tool_use

ROOT = Path(__file__).resolve().parents[2]
NOW = datetime(2026, 11, 9, 9, 0, tzinfo=UTC)


@pytest.fixture
def repo(make_repo) -> Path:
    return make_repo(files={"notes.txt": "the shop sells shoes\n"})


def without_marks(value):
    if isinstance(value, dict):
        return {k: without_marks(v) for k, v in value.items() if k != "cache_control"}
    if isinstance(value, list):
        return [without_marks(v) for v in value]
    return value


def exact(value) -> str:
    return json.dumps(value, ensure_ascii=False)


class Interrupt:
    """A tool during which the process is interrupted (Ctrl+C): nothing after it runs."""

    name = "interrupt"

    def definition(self) -> dict:
        return {"name": "interrupt", "description": "Stops.", "input_schema": {"type": "object", "properties": {}}}

    def summarize_input(self, input: dict) -> str:
        return ""

    def run(self, input, ctx):
        raise KeyboardInterrupt


def test_a_session_resumes_after_its_last_finished_turn_byte_for_byte(claude_double, repo):
    from agent.tools import developer_tools

    config = AgentConfig(model="claude-sonnet-5-5", memory_mode="on-demand", max_retries=0)
    tools = [*developer_tools(), Interrupt()]
    first = Session(repo, config, now=NOW, tools=tools)
    claude_double.add(reply(thinking("Read the notes first.", "sig-a1"), tool_use("read_file", {"path": "notes.txt"}, id="toolu_1")))
    claude_double.add(reply(thinking("Shoes, then.", "sig-a2"), text("It sells shoes.")))
    first.send("What does the shop sell?", lambda e: None)
    claude_double.add(reply(text("Nothing else.")))
    first.send("Anything else?", lambda e: None)
    last_finished = claude_double.messages_requests()[-1]
    history = list(first.messages)
    # The third turn dies in the middle, as a process does on Ctrl+C: nothing closes it.
    claude_double.add(reply(tool_use("interrupt", {}, id="toolu_2")))
    with pytest.raises(KeyboardInterrupt):
        first.send("Stop in the middle.", lambda e: None)
    assert len(transcripts.load(first.transcript.path).messages) == len(history) + 2

    # Resumed with another model configured: the session keeps its own.
    later = AgentConfig(model="claude-haiku-5-5", memory_mode="none")
    resumed, said = open_saved(repo, later, None, now=NOW + timedelta(hours=2), tools=tools)
    assert "Resumed the session of 09 Nov 2026" in said and "What does the shop sell?" in said
    assert resumed.config.model == "claude-sonnet-5-5" and resumed.config.memory_mode == "on-demand"
    assert resumed.messages == history
    claude_double.add(reply(text("Back again.")))
    resumed.send("Where were we?", lambda e: None)
    after = claude_double.messages_requests()[-1]

    earlier = without_marks(last_finished.messages)
    assert exact(without_marks(after.messages[: len(earlier)])) == exact(earlier)
    assert exact(after.messages[len(earlier)]) == exact(history[-1])
    assert exact(after.body["system"]) == exact(last_finished.body["system"])
    assert exact(after.body["tools"]) == exact(last_finished.body["tools"])
    assert after.body["model"] == "claude-sonnet-5-5"
    signatures = [b.get("signature") for m in after.messages if isinstance(m["content"], list) for b in m["content"] if b.get("type") == "thinking"]
    assert signatures == ["sig-a1", "sig-a2"]
    # Same day: the date is not told twice. The unfinished turn is gone from the history.
    assert "Today is" not in after.last_user_text() and "Stop in the middle" not in json.dumps(after.messages)

    # The transcript is one file that now loads as the resumed conversation.
    assert resumed.transcript.path == first.transcript.path
    saved = transcripts.load(first.transcript.path)
    assert [m.message for m in saved.messages] == resumed.messages
    # Two finished turns and the one after resuming; the interrupted one never finished.
    assert sessions.describe(first.transcript.path).turns == 3
    assert [r["turn"] for r in saved.turns] == [1, 2, 4]


def test_nothing_to_resume_is_one_sentence(claude_double, repo):
    session, said = open_saved(repo, AgentConfig(), None)
    assert session is None and said.startswith("No saved session to resume")
    session, said = open_saved(repo, AgentConfig(), "20991231")
    assert session is None and "devagent sessions" in said


def test_resume_arguments_tell_an_id_from_a_turn_or_a_path():
    assert sessions.resume_value("") == (None, None)
    assert sessions.resume_value("20261109T090000123456-a1b2c3") == ("20261109T090000123456-a1b2c3", None)
    assert sessions.resume_value("a1b2c3") == ("a1b2c3", None)
    assert sessions.resume_value("20261109") == ("20261109", None)
    assert sessions.resume_value("what next?") == (None, "what next?")
    assert sessions.resume_value("../shop") == (None, "../shop")


def devagent(*args: str, **kw) -> subprocess.Popen:
    return subprocess.Popen(
        ["uv", "run", "--no-sync", "devagent", *args],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=os.environ.copy(), **kw,
    )


@pytest.mark.e2e
def test_ask_resumes_a_session_whose_process_was_killed_mid_turn(claude_double, repo, user_dirs):
    """End to end: `devagent ask` is killed while a build runs in its second turn, then
    `devagent ask --resume` goes on from the first turn's end, and `devagent sessions` lists it."""
    config_dir = user_dirs["config"] / "devagent"
    config_dir.mkdir(parents=True, exist_ok=True)
    started = repo / "build-started"
    build = f"{sys.executable} -c \"import pathlib,time; pathlib.Path({str(started)!r}).touch(); time.sleep(60)\""
    (config_dir / "config.toml").write_text(f"[repos.{json.dumps(str(repo))}]\nbuild = {json.dumps(build)}\n")

    def model(request: Request):
        said = request.last_user_text()
        if request.tool_results():
            return reply(text("Built."))
        if "build it" in said:
            return reply(tool_use("build", {}))
        return reply(thinking("A plain question.", "sig-e2e"), text("It sells shoes."))

    claude_double.responder = model
    first = devagent("ask", "--repo", str(repo), "--memory", "none", "What does it sell?", "Now build it.", start_new_session=True)
    deadline = time.monotonic() + 120
    while not started.exists() and time.monotonic() < deadline and first.poll() is None:
        time.sleep(0.1)
    assert started.exists(), first.communicate(timeout=5)
    os.killpg(first.pid, signal.SIGKILL)
    first.wait(timeout=30)
    finished_turn = claude_double.messages_requests()[0]
    reply_blocks = [{"type": "thinking", "thinking": "A plain question.", "signature": "sig-e2e"}, {"type": "text", "text": "It sells shoes."}]

    second = devagent("ask", "--repo", str(repo), "--resume", "What did we talk about?")
    out, err = second.communicate(timeout=120)
    assert second.returncode == 0, err
    assert "Resumed the session of" in err and "What does it sell?" in err
    after = claude_double.messages_requests()[-1]
    earlier = without_marks(finished_turn.messages) + [{"role": "assistant", "content": reply_blocks}]
    assert exact(without_marks(after.messages[: len(earlier)])) == exact(earlier)
    assert "build it" not in json.dumps(after.messages)

    listing = devagent("sessions", str(repo))
    out, err = listing.communicate(timeout=120)
    assert listing.returncode == 0, err
    (line,) = out.splitlines()
    assert "2 turns" in line and "What does it sell?" in line


def test_the_app_takes_resume_with_or_without_an_id():
    from tui.cli import app_parser, resume_id

    assert app_parser().parse_args(["--resume"]).resume == ""
    assert app_parser().parse_args(["--resume", "20261109T0900"]).resume == "20261109T0900"
    assert app_parser().parse_args([]).resume is None
    # `devagent --resume ../shop`: argparse hands the path to --resume; it goes back.
    assert resume_id(app_parser().parse_args(["--resume", "../shop"]).resume) == ("", "../shop")


def test_a_resumed_session_keeps_the_effort_it_ran_with(claude_double, repo):
    # Sonnet 5.5 takes no change of effort in the middle of a conversation.
    first = Session(repo, AgentConfig(model="claude-sonnet-5-5", effort="low", memory_mode="none", max_retries=0), now=NOW)
    claude_double.add(reply(text("Shoes.")))
    first.send("What does the shop sell?", lambda e: None)
    assert claude_double.messages_requests()[-1].body["output_config"] == {"effort": "low"}

    later = AgentConfig(model="claude-sonnet-5-5", effort="high", memory_mode="none", max_retries=0)
    resumed, _ = open_saved(repo, later, None, now=NOW + timedelta(hours=1))
    assert resumed.config.effort == "low"
    claude_double.add(reply(text("Hats too.")))
    resumed.send("Anything else?", lambda e: None)
    assert claude_double.messages_requests()[-1].body["output_config"] == {"effort": "low"}
