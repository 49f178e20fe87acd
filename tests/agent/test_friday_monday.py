"""Friday and Monday through the whole agent: a scripted model over real HTTP, the real
developer tools on the .NET-shaped fixture repository, the real memory store.

The scripted model decides from what it receives, so each assertion about its answer is an
assertion about what the tools really returned and what the session really sent.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest

from agent.eval.fixture import build_fixture, dotnet_on_path
from agent.events import AgentError, ToolFinished, TurnFinished
from agent.loop.session import Session
from agent.settings.config import AgentConfig
from agent.workspace_trust import WorkspaceTrust
from tests.double.server import Request, reply, text, tool_use

FRIDAY = datetime(2026, 11, 6, 17, 0, tzinfo=UTC)
MONDAY = datetime(2026, 11, 9, 9, 0, tzinfo=UTC)
ERROR = re.compile(r"(\S+\.cs):(\d+):\d+ (CS\d+)")
NOTE = (
    "---\nname: rename plan\ntype: project\ndescription: the Patch to Diff rename and what is left\n---\n"
    "Renaming ChangedFile.Patch to Diff (2026-11-06). The user finishes the ReviewOrchestrator call site on 2026-11-09.\n"
    "The Core project is the one the user cares about.\n"
)


def model(request: Request):
    """A model that only knows what is in the request."""
    results = request.tool_results()
    said = request.last_user_text()
    if results:
        content = results[0]["content"]
        if "Build failed" in content or "Build succeeded" in content:
            found = ERROR.search(content)
            if found:
                return reply(f"The build is red: {found.group(3)} in {found.group(1).split('/')[-1]} at line {found.group(2)}.")
            return reply("The build is green now.")
        if "File created successfully" in content:
            return reply("Noted for Monday.")
        if "ReviewOrchestrator.cs" in content or "patchText" in content:
            left = "file.Patch" in content
            return reply("The call site still uses Patch." if left else "The call site is already fixed.")
        return reply(f"Tool said: {content[:60]}")
    if "Why is the build red?" in said or "Build the project" in said:
        return reply(text("Let me build."), tool_use("build", {}))
    if "finish ReviewOrchestrator on Monday" in said:
        return reply(tool_use("memory", {"command": "create", "path": "/memories/rename.md", "file_text": NOTE}))
    if "What was I doing on Friday?" in said:
        # The rules say to check a memory against the repository before repeating it.
        if "<memory path=\"/memories/rename.md\"" in request.system_text():
            return reply(text("You were renaming Patch to Diff; checking the call site."),
                         tool_use("read_file", {"path": "src/ClaudeReviewBot.Core/Review/ReviewOrchestrator.cs", "start_line": 105, "end_line": 115}))
        return reply("I can't see Friday from here.")
    return reply("Sorry?")


@pytest.fixture
def fixture(tmp_path):
    made = build_fixture(tmp_path / "sandbox")
    with dotnet_on_path(made):
        yield made


def turn(session: Session, said: str) -> list:
    events: list = []
    session.send(said, events.append)
    assert not [e for e in events if isinstance(e, AgentError)]
    return events


def answer(events) -> str:
    return next(e for e in events if isinstance(e, TurnFinished)).text


def test_friday_then_monday_with_preloaded_memory(claude_double, fixture):
    claude_double.responder = model

    friday = Session(fixture.repo, AgentConfig(memory_mode="preloaded"), now=FRIDAY, trust=WorkspaceTrust(fixture.repo, for_this_run=True))
    events = turn(friday, "Why is the build red?")
    assert answer(events).endswith("The build is red: CS1061 in ReviewOrchestrator.cs at line 111.")
    built = next(e for e in events if isinstance(e, ToolFinished))
    assert built.name == "build" and built.summary == "1 error, 1 warning" and "CS1061" in (built.log or "")
    assert answer(turn(friday, "I'm renaming Patch to Diff. I'll finish ReviewOrchestrator on Monday.")) == "Noted for Monday."
    friday.close()

    monday = Session(fixture.repo, AgentConfig(memory_mode="preloaded"), now=MONDAY, trust=WorkspaceTrust(fixture.repo, for_this_run=True))
    events = turn(monday, "What was I doing on Friday?")
    first = claude_double.messages_requests()[-2]
    assert "Renaming ChangedFile.Patch to Diff" in first.system_text()
    assert "Today is Monday, 09 November 2026" in first.first_user_text()
    assert answer(events).endswith("The call site still uses Patch.")

    # Somebody finishes the rename: the agent's check follows the repository, not the note.
    fixture.fix_call_site()
    assert answer(turn(monday, "Build the project I care about.")).endswith("The build is green now.")
    assert [c[:2] for c in fixture.dotnet_calls()] == [["build", "ClaudeReviewBot.sln"]] * 2


def test_monday_without_memory_cannot_say(claude_double, fixture):
    claude_double.responder = model
    friday = Session(fixture.repo, AgentConfig(memory_mode="none"), now=FRIDAY, trust=WorkspaceTrust(fixture.repo, for_this_run=True))
    turn(friday, "I'm renaming Patch to Diff. I'll finish ReviewOrchestrator on Monday.")
    friday.close()
    monday = Session(fixture.repo, AgentConfig(memory_mode="none"), now=MONDAY, trust=WorkspaceTrust(fixture.repo, for_this_run=True))
    assert answer(turn(monday, "What was I doing on Friday?")) == "I can't see Friday from here."
    # With no memory tool the model's create reached no store: the tool is unknown to the session.
    results = claude_double.messages_requests()[1].tool_results()
    assert results and results[0]["is_error"] and "no tool named 'memory'" in results[0]["content"]
