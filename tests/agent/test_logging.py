"""Errors, retries and stream faults reach devagent.log with what a bug report needs, and no
secret reaches it or a transcript (issue 10, smaller points)."""

from __future__ import annotations

import json
import logging
import os
import stat
import subprocess
from datetime import UTC, datetime
from logging.handlers import RotatingFileHandler
from pathlib import Path

import pytest

from agent.loop.session import Session
from agent.settings.config import AgentConfig
from tests.agent.toolkit import EchoTool
from tests.conftest import TEST_API_KEY
from tests.double.server import error, reply, tool_use
from tui import terminal

NOW = datetime(2026, 11, 9, 9, 0, tzinfo=UTC)
ROOT = Path(__file__).resolve().parents[2]
KEY = "sk-ant-api03-" + "Zq8xP2mN4vL7rT1yK9wB3cF6hJ0dG5sA" * 3


def make(repo: Path, mode: str = "none") -> Session:
    return Session(repo, AgentConfig(memory_mode=mode), tools=[EchoTool()], now=NOW)


def session_records(caplog) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name.startswith("devagent")]


def test_a_retry_is_logged_with_status_type_and_request_id(claude_double, tmp_path, caplog):
    caplog.set_level(logging.INFO, logger="devagent")
    claude_double.add(error(529, "Overloaded"), "Made it.")
    make(tmp_path).send("hi", lambda e: None)
    (retry,) = [r for r in session_records(caplog) if r.levelno == logging.WARNING]
    line = retry.getMessage()
    assert "retry 1 of 4" in line and "status 529" in line and "overloaded_error" in line
    assert "request-id req_" in line and "Overloaded" in line


def test_a_dropped_stream_is_logged_with_its_stack(claude_double, tmp_path, caplog):
    caplog.set_level(logging.INFO, logger="devagent")
    claude_double.add(reply("Half of it", chunk=4, drop_after=3), "unused")
    make(tmp_path).send("hi", lambda e: None)
    (failed,) = [r for r in session_records(caplog) if r.levelno == logging.ERROR]
    line = failed.getMessage()
    assert "turn 1 failed: The connection to Claude dropped in the middle" in line
    assert "RemoteProtocolError; peer closed connection" in line and "caused by httpcore2.RemoteProtocolError" in line
    assert failed.exc_info is not None, "a transport fault keeps its stack"


def test_a_drop_before_words_logs_the_retry_with_a_traceback(claude_double, tmp_path, caplog):
    caplog.set_level(logging.INFO, logger="devagent")
    claude_double.add(reply("x", drop_after=1), "Second.")
    make(tmp_path).send("hi", lambda e: None)
    (retry,) = [r for r in session_records(caplog) if r.levelno == logging.WARNING]
    assert "retry 1 of 4" in retry.getMessage() and retry.exc_info is not None


@pytest.mark.e2e
def test_ask_writes_devagent_log_rotated_private_and_masked(claude_double, tmp_path):
    repo = tmp_path / "sandbox" / "app"
    repo.mkdir(parents=True)
    state = tmp_path / "sandbox" / "state"
    claude_double.add(error(500), "Recovered.", error(400, f"messages.0: bad value {KEY}"))
    env = {**os.environ, "XDG_STATE_HOME": str(state)}
    out = subprocess.run(
        ["uv", "run", "--no-sync", "devagent", "ask", "--repo", str(repo), "--memory", "none", "one", "two"],
        cwd=ROOT, capture_output=True, text=True, timeout=120, env=env,
    )
    assert "Recovered." in out.stdout and "Traceback" not in out.stderr
    log = state / "devagent" / "log" / "devagent.log"
    assert stat.S_IMODE(log.stat().st_mode) == 0o600
    text = log.read_text()
    assert "retry 1 of 4" in text and "status 500" in text
    assert "turn 2 failed: Claude API error 400" in text and "[masked: Anthropic API key]" in text
    assert KEY not in text and TEST_API_KEY not in text
    assert KEY not in "\n".join(p.read_text(errors="replace") for p in (state.rglob("*")) if p.is_file())


@pytest.fixture
def own_log(tmp_path):
    logger = logging.getLogger("devagent")
    before = list(logger.handlers), logger.level
    path = tmp_path / "sandbox" / "log" / "devagent.log"
    yield path
    for handler in logger.handlers:
        if handler not in before[0]:
            handler.close()
            logger.removeHandler(handler)
    logger.setLevel(before[1])


def test_the_agent_log_rotates(own_log, monkeypatch):
    monkeypatch.setattr(terminal, "LOG_BYTES", 10_000)
    assert terminal.start_logging(own_log) == own_log
    handler = next(h for h in logging.getLogger("devagent").handlers if isinstance(h, RotatingFileHandler))
    handler.maxBytes = 10_000  # the constant was read when the handler was made
    for n in range(400):
        logging.getLogger("devagent.session").warning("line %d of a long run of faults", n)
    assert own_log.with_name("devagent.log.1").is_file()
    assert own_log.stat().st_size <= 10_000
    assert terminal.start_logging(own_log) == own_log, "a second start adds no second handler"
    assert sum(isinstance(h, RotatingFileHandler) for h in logging.getLogger("devagent").handlers) == 1


def test_an_oversized_stderr_log_is_moved_aside(tmp_path, monkeypatch):
    path = tmp_path / "sandbox" / "log" / "stderr.log"
    path.parent.mkdir(parents=True)
    path.write_text("x" * 2000)
    monkeypatch.setattr(terminal, "LOG_BYTES", 1000)
    with terminal.stderr_to_log(path):
        os.write(2, b"after the move\n")
    assert path.with_name("stderr.log.1").read_text() == "x" * 2000
    assert path.read_text() == "after the move\n"


def test_a_key_in_a_tool_input_is_masked_in_the_transcript(claude_double, tmp_path):
    repo = tmp_path / "sandbox" / "repo"
    repo.mkdir(parents=True)
    note = f"---\nname: key\ndescription: the API key\ntype: reference\n---\n\n{KEY}\n"
    claude_double.add(tool_use("memory", {"command": "create", "path": "/memories/key.md", "file_text": note}, id="m1"),
                      "I did not save it.")
    session = Session(repo, AgentConfig(memory_mode="on-demand"), tools=[], now=NOW)
    session.send("remember my key", lambda e: None)
    result = claude_double.messages_requests()[1].tool_results()[0]
    assert result.get("is_error"), "the store refuses the key"
    raw = session.transcript.path.read_text()
    assert KEY not in raw
    saved = [json.loads(line) for line in raw.splitlines()]
    inputs = [b["input"] for r in saved if r["type"] == "message" for b in r["message"]["content"] if b.get("type") == "tool_use"]
    assert inputs and "[masked: Anthropic API key]" in inputs[0]["file_text"]
    assert inputs[0]["path"] == "/memories/key.md"
