"""A repository's code runs only once the user trusted it; git never runs what its config names.

Through the Claude double with the real tools, on repositories whose `.venv` python,
conftest.py, npm scripts, build.rs and git config each drop a mark when they run.
"""

from __future__ import annotations

import os
import stat
import subprocess

import pytest

from agent.decisions import Decision
from agent.events import Notice, TrustAsked
from agent.workspace_trust import TrustStore, WorkspaceTrust, repository_key, trust_file
from tests.agent.sessions import session
from tests.double.server import tool_use
from tests.hostile_repos import argv_ran, dropped, hostile_git, node_repo, python_repo, rust_repo
from tests.repos import git, git_repo


def _results(claude_double):
    return [r for request in claude_double.messages_requests() for r in request.tool_results()]


def test_an_untrusted_repository_runs_none_of_its_code_and_the_model_and_user_hear_how(tmp_path, claude_double):
    root = tmp_path / "sandbox"
    repo = python_repo(root)
    claude_double.add(tool_use("git_status", {}, id="g1"), tool_use("build", {}, id="b1"))
    claude_double.add(tool_use("test", {}, id="t1"), "I could not run them.")
    events: list = []
    session(repo, memory_mode="none").send("Why is the build red?", events.append)
    assert dropped(root) == []  # no .venv python, no conftest, no fsmonitor, hook, filter or textconv
    status, build, test = _results(claude_double)
    assert "notes.txt" in status["content"] and not status.get("is_error")
    for result in (build, test):
        assert result.get("is_error") and "not trusted" in result["content"]
        assert f"devagent trust {repo}" in result["content"] and "--trust" in result["content"]
    assert str(repo / ".venv" / "bin" / "python") in test["content"]  # what would have run
    said = [e.message for e in events if isinstance(e, Notice)]
    assert len(said) == 1 and "not trusted" in said[0] and f"devagent trust {repo}" in said[0]


@pytest.mark.usefixtures("unsandboxed")
def test_the_first_tool_asks_with_the_exact_command_and_nothing_runs_before_the_answer(tmp_path, claude_double):
    root = tmp_path / "sandbox"
    repo = python_repo(root)
    claude_double.add(tool_use("test", {}, id="t1"))
    claude_double.add(tool_use("build", {}, id="b1"), "Both ran.")
    asked: list = []
    before: list = []

    def sink(event):
        if isinstance(event, TrustAsked):
            asked.append(event.request)
            before.append(dropped(root))
            assert talk.decisions.post(Decision(event.request.id, True))

    talk = session(repo, trust=WorkspaceTrust(repo, interactive=True), memory_mode="none")
    talk.send("Run the tests", sink)
    assert len(asked) == 1 and before == [[]]  # asked once, before anything ran
    request = asked[0]
    assert request.run.tool == "test" and request.run.cwd == repo.resolve() and request.run.environment == ".venv"
    assert "conftest" in dropped(root) and "venv-python" in dropped(root)
    # what the dialog showed is what ran, and the build after it ran without a second question
    ran = argv_ran(root)
    assert list(request.run.commands) == ran[:1]
    assert len(ran) == 2 and ran[1].startswith(str(repo.resolve() / ".venv" / "bin" / "python") + " -c <")
    test, build = _results(claude_double)
    assert not test.get("is_error") and "1 passed" in test["content"]
    assert not build.get("is_error")
    assert TrustStore().trusted(repo)
    # remembered: a later run that cannot ask runs the code too
    (root / "marks" / "conftest").unlink()
    claude_double.add(tool_use("test", {}, id="t2"), "Done.")
    session(repo, memory_mode="none").send("again", lambda e: None)
    assert "conftest" in dropped(root)


def test_no_is_remembered_and_runs_nothing(tmp_path, claude_double):
    root = tmp_path / "sandbox"
    repo = python_repo(root)
    claude_double.add(tool_use("test", {}, id="t1"), "Not run.")
    asked: list = []

    def sink(event):
        if isinstance(event, TrustAsked):
            asked.append(event)
            talk.decisions.post(Decision(event.request.id, False))

    talk = session(repo, trust=WorkspaceTrust(repo, interactive=True), memory_mode="none")
    talk.send("Run the tests", sink)
    claude_double.add(tool_use("build", {}, id="b1"), "Not run either.")
    talk = session(repo, trust=WorkspaceTrust(repo, interactive=True), memory_mode="none")
    talk.send("Build it", sink)
    assert len(asked) == 1 and dropped(root) == []
    for result in _results(claude_double):
        assert result.get("is_error") and "chose not to trust" in result["content"]
    assert TrustStore().decision(repo).trusted is False


@pytest.mark.usefixtures("unsandboxed")
def test_npm_scripts_and_build_rs_wait_for_trust_and_run_with_it(tmp_path, claude_double):
    root = tmp_path / "sandbox"
    web, crate = node_repo(root), rust_repo(root)
    claude_double.add(tool_use("build", {}, id="b1"), "No.")
    session(web, memory_mode="none").send("build", lambda e: None)
    claude_double.add(tool_use("build", {}, id="b2"), "No.")
    session(crate, memory_mode="none").send("build", lambda e: None)
    assert dropped(root) == []
    assert all("npm run build" in r["content"] or "cargo build" in r["content"] for r in _results(claude_double))
    # trusted for one run (`ask --trust`): prebuild and build run, nothing is remembered
    claude_double.add(tool_use("build", {}, id="b3"), "Built.")
    session(web, trust=WorkspaceTrust(web, for_this_run=True), memory_mode="none").send("build", lambda e: None)
    assert dropped(root) == ["build", "prebuild"]
    assert TrustStore().decision(web) is None


def test_git_status_runs_no_program_the_repository_config_names(tmp_path):
    from agent.tools.base import ToolContext
    from agent.tools.git import GitStatusTool

    root = tmp_path / "sandbox"
    repo = root / "plain"
    repo.mkdir(parents=True)
    hostile_git(repo, root)
    # what the test stands on: plain git does run them in this repository
    subprocess.run(["git", "diff", "--numstat"], cwd=repo, capture_output=True, env={**os.environ, "GIT_CONFIG_NOSYSTEM": "1"})
    assert {"filter", "fsmonitor"} <= set(dropped(root))
    for name in dropped(root):
        (root / "marks" / name).unlink()
    result = GitStatusTool().run({}, ToolContext(repo))
    assert "modified: notes.txt (+1 -1)" in result.text, result.text
    assert dropped(root) == []


def test_the_key_is_the_work_tree_so_links_share_one_answer_and_worktrees_are_asked_each(tmp_path):
    root = tmp_path / "sandbox"
    repo = git_repo(root / "plain", commit=True)
    git(repo, "worktree", "add", "-q", str(root / "wt"))
    (root / "link").symlink_to(repo)
    assert repository_key(repo) == repository_key(root / "link") == str(repo.resolve())
    assert repository_key(root / "wt") == str((root / "wt").resolve())
    assert repository_key(repo / "sub" / "..") == repository_key(repo)
    old = os.umask(0)
    try:
        TrustStore().remember(repo, True)
    finally:
        os.umask(old)
    assert TrustStore().trusted(root / "link") and not TrustStore().trusted(root / "wt")
    assert stat.S_IMODE(trust_file().stat().st_mode) == 0o600
    assert stat.S_IMODE(trust_file().parent.stat().st_mode) == 0o700
    # a file others could have written grants nothing
    trust_file().chmod(0o666)
    assert not TrustStore().trusted(repo)
