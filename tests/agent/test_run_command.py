"""run_command through a session and the Claude double: asked after trust, answered once, always, edited or no;
a headless run runs only the texts allowed beforehand.

Each test has a fresh repository; the commands leave files in it, so what ran is read
from the repository, not from what the tool said.
"""

from __future__ import annotations

import pytest

from agent.command_consent import AllowedCommands, CommandAsked, CommandConsent
from agent.decisions import Decision
from agent.tools.toolchain.file_changes import command_changes
from agent.workspace_trust import TrustAsked, WorkspaceTrust
from tests.agent.sessions import trusted
from tests.double.server import tool_use
from tests.repos import git_repo
from tests.system_packages import needs

pytestmark = needs("bubblewrap")

MAKE = "echo made > made.txt"


@pytest.fixture
def repo(tmp_path):
    return git_repo(tmp_path / "sandbox" / "shop", {"app.py": "print('hi')\n"}, commit=True)


def _session(repo, trust, commands=None):
    from agent.loop.session import Session
    from agent.settings.config import AgentConfig

    return Session(repo, AgentConfig(memory_mode="none"), trust=trust, commands=commands)


def _results(claude_double):
    return [r for request in claude_double.messages_requests() for r in request.tool_results()]


class Answering:
    """The user: says yes to trust, and answers each command with `answer(request)`."""

    def __init__(self, answer):
        self.answer = answer
        self.asked: list = []
        self.order: list[str] = []
        self.talk = None

    def __call__(self, event):
        if isinstance(event, TrustAsked):
            self.order.append("trust")
            self.talk.decisions.post(Decision(event.request.id, True))
        elif isinstance(event, CommandAsked):
            self.order.append("command")
            self.asked.append(event.request)
            self.talk.decisions.post(self.answer(event.request))


def _ask(repo, claude_double, answer, command=MAKE, trust=None, **input):
    claude_double.add(tool_use("run_command", {"command": command, "reason": "to make a file", **input}), "Done.")
    user = Answering(answer)
    user.talk = _session(repo, trust or WorkspaceTrust(repo, interactive=True))
    user.talk.send("make the file", user)
    return user


def test_trust_comes_first_then_the_exact_command_and_its_reason_then_it_runs_once(repo, claude_double):
    user = _ask(repo, claude_double, lambda r: Decision(r.id, True), network=True)
    assert user.order == ["trust", "command"]
    request = user.asked[0]
    assert (request.command, request.reason, request.network, request.unsandboxed) == (MAKE, "to make a file", True, None)
    assert (repo / "made.txt").read_text() == "made\n"
    (result,) = _results(claude_double)
    assert "approved this command once" in result["content"] and "without the network" in result["content"]
    assert "made.txt (added)" in result["content"]
    assert AllowedCommands().listing(repo) == []
    # once is once: the same text asks again
    (repo / "made.txt").unlink()
    again = _ask(repo, claude_double, lambda r: Decision(r.id, True))
    assert again.order == ["command"] and (repo / "made.txt").exists()


def test_the_files_a_command_changed_are_recorded_with_their_content_before(repo, claude_double):
    (repo / "app.py").write_text("print('changed by the user')\n")
    _ask(repo, claude_double, lambda r: Decision(r.id, True), command="echo new > app.py; rm -f gone.txt; echo x > made.txt")
    (record,) = command_changes(repo)
    assert {(f.path, f.status) for f in record.files} == {("app.py", "modified"), ("made.txt", "added")}
    assert record.before_content("app.py") == b"print('changed by the user')\n"
    assert record.after_content("app.py") == b"new\n" and record.before_content("made.txt") is None
    assert record.turn == 1 and record.command.startswith("echo new")
    assert not any(p.name.endswith(".json") for p in repo.rglob("*") if ".git" not in p.parts)  # nothing in the repository


def test_no_runs_nothing_and_the_model_hears_so(repo, claude_double):
    _ask(repo, claude_double, lambda r: Decision(r.id, False))
    assert not (repo / "made.txt").exists()
    (result,) = _results(claude_double)
    assert result.get("is_error") and "the user said no" in result["content"]


def test_the_user_edits_the_command_and_the_edited_text_runs(repo, claude_double):
    _ask(repo, claude_double, lambda r: Decision(r.id, True, edited="echo edited > edited.txt"))
    assert not (repo / "made.txt").exists() and (repo / "edited.txt").read_text() == "edited\n"
    (result,) = _results(claude_double)
    assert "$ echo edited > edited.txt" in result["content"] and f"after editing it from `{MAKE}`" in result["content"]


def test_always_remembers_that_exact_text_for_this_repository_until_revoked(repo, tmp_path, claude_double):
    _ask(repo, claude_double, lambda r: Decision(r.id, True, always=True))
    assert [a.command for a in AllowedCommands().listing(repo)] == [MAKE]
    (repo / "made.txt").unlink()
    user = _ask(repo, claude_double, lambda r: pytest.fail("asked again"))
    assert user.order == [] and (repo / "made.txt").exists()
    # another text, even one that differs by a space, is asked about
    other = _ask(repo, claude_double, lambda r: Decision(r.id, False), command=MAKE.replace(" > ", "  > "))
    assert other.order == ["command"]
    # another repository does not share it
    elsewhere = git_repo(tmp_path / "sandbox" / "other", {"a": "a"}, commit=True)
    assert AllowedCommands().allowed(elsewhere, MAKE) is None
    assert AllowedCommands().forget(repo, MAKE)
    (repo / "made.txt").unlink()
    after = _ask(repo, claude_double, lambda r: Decision(r.id, False))
    assert after.order == ["command"] and not (repo / "made.txt").exists()


def test_headless_runs_only_the_texts_allowed_beforehand(repo, claude_double):
    claude_double.add(tool_use("run_command", {"command": MAKE, "reason": "r"}),
                      tool_use("run_command", {"command": "echo other > other.txt", "reason": "r"}))
    claude_double.add("Done.")
    events: list = []
    _session(repo, trusted(repo), CommandConsent(repo, allowed=(MAKE,))).send("go", events.append)
    assert (repo / "made.txt").exists() and not (repo / "other.txt").exists()
    allowed, refused = _results(claude_double)
    assert "allowed for this run" in allowed["content"]
    assert refused.get("is_error") and "not among the commands allowed" in refused["content"]
    assert "devagent ask --allow 'echo other > other.txt'" in refused["content"]
    assert not any(isinstance(e, CommandAsked) for e in events)


def test_never_before_workspace_trust_even_when_allowed(repo, claude_double):
    claude_double.add(tool_use("run_command", {"command": MAKE, "reason": "r"}), "Not run.")
    _session(repo, WorkspaceTrust(repo), CommandConsent(repo, allowed=(MAKE,))).send("go", lambda e: None)
    assert not (repo / "made.txt").exists()
    (result,) = _results(claude_double)
    assert "not trusted" in result["content"]


def test_without_bubblewrap_the_user_is_told_and_always_is_not_kept(repo, claude_double, monkeypatch):
    from agent.tools.toolchain import sandbox

    monkeypatch.setattr(sandbox, "BWRAP", "bwrap-not-installed-here")
    user = _ask(repo, claude_double, lambda r: Decision(r.id, True, always=True),
                trust=WorkspaceTrust(repo, interactive=True, for_this_run=True))
    assert "bubblewrap is not installed" in (user.asked[0].unsandboxed or "")
    assert (repo / "made.txt").exists()  # the user said yes, knowing
    assert AllowedCommands().listing(repo) == []
    (result,) = _results(claude_double)
    assert "outside any sandbox" in result["content"]
