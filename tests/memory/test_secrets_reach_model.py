"""Issue 9, point 4: a credential that reached the disk some other way (an editor, another
tool, a word the user said) never reaches the model verbatim: not through the memory
tool, the preloaded snapshot or the index, replayed history, the previous session's
notes, nor the saved transcript.

Memories are planted by hand, as an editor would leave them; sessions are real and talk
to the Claude double over HTTP.
"""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime
from pathlib import Path

import pytest

from agent.cancel import Cancellation
from agent.conversation.transcripts import transcripts_dir
from agent.loop.session import Session
from agent.recall import memory_modes
from agent.tools.base import ToolContext
from agent.tools.memory_tool import MemoryTool
from memory.store import MemoryStore
from tests.agent.sessions import session as new_session
from tests.agent.toolkit import EchoTool
from tests.double.server import text, thinking, tool_use
from tests.memory.secret_corpus import ALPHABETS

_rng = random.Random(4)
AWS_SECRET = "".join(_rng.choice(ALPHABETS["b64"]) for _ in range(40))
AWS_ID = "AKIA" + "".join(_rng.choice(ALPHABETS["upper"]) for _ in range(16))
GITHUB = "ghp_" + "".join(_rng.choice(ALPHABETS["alnum"]) for _ in range(36))
ANTHROPIC = "sk-ant-api03-" + "".join(_rng.choice(ALPHABETS["url"]) for _ in range(93)) + "AA"
PLANTED = f"---\nname: aws\ntype: project\ndescription: the deploy account\n---\nDeploy with\naws_access_key_id = {AWS_ID}\naws_secret_access_key = {AWS_SECRET}\n"
FRIDAY = datetime(2026, 11, 6, 17, 30, tzinfo=UTC)
MONDAY = datetime(2026, 11, 9, 9, 0, tzinfo=UTC)


def shows_a_secret(text: str) -> bool:
    return any(s in text for s in (AWS_SECRET, AWS_ID, GITHUB, ANTHROPIC, GITHUB[4:20], ANTHROPIC[13:40]))


@pytest.fixture
def planted(repo) -> MemoryStore:
    """The repository's real memory folder, with files written by hand."""
    store = MemoryStore.for_repository(repo)
    store.directory.joinpath("aws.md").write_text(PLANTED)
    store.directory.joinpath(f"creds_{GITHUB}.md").write_text("a note whose name holds a key\n")
    store.directory.joinpath("MEMORY.md").write_text(f"- [aws](aws.md): deploy account {AWS_ID}\n")
    return store


def run_memory(store: MemoryStore, command: dict) -> str:
    result = MemoryTool(store).run(command, ToolContext(repo=store.directory, cancel=Cancellation()))
    assert result.summary is not None and not shows_a_secret(result.summary)
    return result.text


def test_memory_view_of_a_planted_file_is_masked(planted):
    shown = run_memory(planted, {"command": "view", "path": "/memories/aws.md"})
    assert not shows_a_secret(shown), shown
    assert "[masked: AWS access key ID]" in shown and "[masked: AWS secret access key]" in shown
    assert "Deploy with" in shown and "credential-shaped strings were masked" in shown


def test_memory_listing_masks_a_key_in_a_file_name(planted):
    shown = run_memory(planted, {"command": "view", "path": "/memories"})
    assert not shows_a_secret(shown), shown
    assert "aws.md" in shown and "creds_[masked: GitHub token].md" in shown


def test_an_edit_next_to_a_planted_key_shows_it_masked(planted):
    shown = run_memory(planted, {"command": "str_replace", "path": "/memories/aws.md", "old_str": "Deploy with", "new_str": "Deploy from CI with"})
    assert "has been edited" in shown or "edited" in shown
    assert not shows_a_secret(shown), shown
    assert "Deploy from CI with" in planted.directory.joinpath("aws.md").read_text()


@pytest.mark.parametrize("mode", ["preloaded", "index"])
def test_the_preloaded_snapshot_and_the_index_are_masked(repo, planted, mode):
    start = memory_modes.prepare(mode, repo, store=planted, now=MONDAY)
    assert start.context and not shows_a_secret(start.context), start.context
    assert "[masked: AWS access key ID]" in start.context
    if mode == "preloaded":
        assert "Deploy with" in start.context and "[masked: AWS secret access key]" in start.context


def session(repo: Path, mode: str, when: datetime) -> Session:
    return new_session(repo, tools=[EchoTool()], now=when, memory_mode=mode)


def saved_text(repo: Path) -> str:
    return "\n".join(p.read_text() for p in sorted(transcripts_dir(repo).glob("*.jsonl")))


def test_a_memory_view_reaches_the_model_and_the_transcript_masked(repo, planted, claude_double):
    claude_double.add(tool_use("memory", {"command": "view", "path": "/memories/aws.md"}, id="v1"))
    claude_double.add("The deploy account uses an access key pair.")
    s = session(repo, "preloaded", MONDAY)
    s.send("Which AWS account do we deploy with?", lambda e: None)
    first, second = claude_double.messages_requests()
    assert not shows_a_secret(json.dumps(first.body)), "the preloaded memory was sent unmasked"
    [result] = second.tool_results()
    assert not shows_a_secret(json.dumps(result)) and "[masked: AWS" in json.dumps(result)
    saved = saved_text(repo)
    assert "The deploy account uses" in saved
    assert not shows_a_secret(saved), "the transcript holds a key"


@pytest.mark.parametrize("mode", ["history", "window"])
def test_replayed_history_is_masked(repo, claude_double, mode):
    # Friday: the user pasted a key, and the model's thinking and its tool call quoted it.
    claude_double.add(thinking(f"The user pasted {GITHUB}; I should not repeat it.", "sig-1"), tool_use("echo", {"text": GITHUB}, id="e1"))
    claude_double.add(text("Noted; do not paste keys here."))
    friday = session(repo, mode, FRIDAY)
    friday.send(f"my token is {GITHUB}, set up the release job", lambda e: None)
    friday.close()
    before = len(claude_double.messages_requests())
    claude_double.add("Morning.")
    monday = session(repo, mode, MONDAY)
    monday.send("What did I give you on Friday?", lambda e: None)
    first = claude_double.messages_requests()[before]
    sent = json.dumps(first.body["messages"])
    assert not shows_a_secret(sent), sent
    assert "[masked: GitHub token]" in sent and "Noted; do not paste keys here." in sent
    assert "set up the release job" in sent


def test_the_previous_sessions_notes_are_masked(repo, claude_double):
    claude_double.add("Done.")
    claude_double.add(f"- The eval runs use the key {ANTHROPIC}.\n- Finish the release job.")
    friday = session(repo, "summary", FRIDAY)
    friday.send("Set up the eval runs.", lambda e: None)
    friday.close()
    claude_double.add("Morning.")
    monday = session(repo, "summary", MONDAY)
    monday.send("Where were we?", lambda e: None)
    first = claude_double.messages_requests()[-1]
    assert not shows_a_secret(first.system_text()), first.system_text()
    assert "[masked: Anthropic API key]" in first.system_text() and "Finish the release job." in first.system_text()
