"""`devagent ask` end to end: the real command in its own process against the double."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.double.server import error, refusal, reply, text, tool_use

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.e2e


@pytest.fixture
def repo(make_repo):
    return make_repo("app", {"README.md": "# app\n"}, commit=True)


def ask(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["uv", "run", "--no-sync", "devagent", "ask", *args],
        cwd=ROOT, capture_output=True, text=True, timeout=120, env=env or os.environ.copy(),
    )


def test_ask_prints_each_reply_then_one_json_line(claude_double, repo):
    claude_double.add(text("Let me look."), tool_use("git_status", {}, id="g1"))
    claude_double.add(reply("You are on main, nothing changed.", usage={"input_tokens": 50, "output_tokens": 9, "cache_read_input_tokens": 400}))
    claude_double.add("Anytime.")
    out = ask("--repo", str(repo), "--memory", "on-demand", "What changed?", "Thanks!")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.strip().splitlines()
    usage = json.loads(lines[-1])
    assert "Let me look." in out.stdout and "You are on main, nothing changed." in out.stdout
    assert lines[-2] == "Anytime."
    assert usage["api_calls"] == 3 and usage["turns"] == 2 and usage["memory"] == "on-demand"
    assert usage["cache_read_tokens"] == 400 and usage["cost_usd"] > 0
    assert "[git_status" in out.stderr

    first, second, third = claude_double.messages_requests()
    # The real git_status ran in the repository and its result went back to the model.
    assert "main" in second.tool_results()[0]["content"]
    assert first.tool_names() == [
        "git_status", "git_diff", "build", "test", "read_file", "search", "find_files", "show_on_screen", "run_command",
        "git_log", "str_replace_based_edit_tool", "memory",
    ]
    assert "Today is" in first.first_user_text()
    assert "Thanks!" in third.last_user_text()
    transcript = Path(usage["transcript"])
    assert transcript.is_file() and str(transcript).startswith(os.environ["XDG_DATA_HOME"])


def test_each_ask_is_a_new_session(claude_double, repo):
    claude_double.add("One.", "Two.")
    assert ask("--repo", str(repo), "--memory", "history", "first").returncode == 0
    assert ask("--repo", str(repo), "--memory", "history", "second").returncode == 0
    second = claude_double.messages_requests()[-1]
    # The second session replays the first and opens with its own date line.
    assert [m["role"] for m in second.messages] == ["user", "assistant", "user"]
    assert sum("Today is" in b.get("text", "") for m in second.messages for b in m["content"]) == 2


def test_model_and_effort_options_reach_the_request(claude_double, repo):
    claude_double.add("ok")
    assert ask("--repo", str(repo), "--memory", "none", "--model", "claude-sonnet-5-5", "--effort", "high", "hi").returncode == 0
    body = claude_double.requests[0].body
    assert body["model"] == "claude-sonnet-5-5" and body["output_config"] == {"effort": "high"}


def test_environment_sets_model_and_effort(claude_double, repo):
    claude_double.add("ok")
    env = {**os.environ, "DEVAGENT_MODEL": "claude-opus-5-5", "DEVAGENT_EFFORT": "medium"}
    assert ask("--repo", str(repo), "--memory", "none", "hi", env=env).returncode == 0
    body = claude_double.requests[0].body
    assert body["model"] == "claude-opus-5-5" and body["output_config"] == {"effort": "medium"}


def test_a_refusal_is_printed_and_the_next_turn_is_answered_without_it(claude_double, repo):
    claude_double.add(refusal(explanation="This request was declined because it could enable cyber harm."), "It is nine.")
    out = ask("--repo", str(repo), "--memory", "none", "Write malware.", "What time is it?")
    assert out.returncode == 0, out.stderr
    assert "Claude declined to answer that." in out.stdout and "It is nine." in out.stdout
    assert "declined this request" in out.stderr and "cyber harm" in out.stderr
    assert "malware" not in json.dumps(claude_double.messages_requests()[-1].messages)


def test_an_api_error_is_a_sentence_and_a_failing_exit(claude_double, repo):
    claude_double.add(error(400, "max_tokens: too large"))
    out = ask("--repo", str(repo), "--memory", "none", "hi")
    assert out.returncode == 1
    assert "Claude API error 400 invalid_request_error: max_tokens: too large" in out.stderr
    assert "Traceback" not in out.stderr
    assert json.loads(out.stdout.strip().splitlines()[-1])["api_calls"] == 0, "a refused request produced no reply"


def test_missing_key_is_one_sentence(claude_double, repo):
    env = {k: v for k, v in os.environ.items() if k not in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN")}
    out = ask("--repo", str(repo), "hi", env=env)
    assert out.returncode == 2
    assert out.stderr.strip().count("\n") == 0 and "ANTHROPIC_API_KEY" in out.stderr
    assert claude_double.requests == []


def test_a_missing_repository_is_refused(claude_double, tmp_path):
    out = ask("--repo", str(tmp_path / "nowhere"), "hi")
    assert out.returncode == 2 and "is not a folder" in out.stderr


def test_a_build_that_fails_is_printed_as_failed(claude_double, repo):
    # A real build of a real repository: Python with a syntax error. The build tool call
    # succeeds (is_error is False); the build it ran did not, and the line must say so.
    (repo / "pyproject.toml").write_text('[project]\nname = "app"\nversion = "0.1.0"\n')
    (repo / "app.py").write_text("def broken(:\n    pass\n")
    env = {**os.environ, "GIT_AUTHOR_NAME": "T", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "T", "GIT_COMMITTER_EMAIL": "t@example.com"}
    subprocess.run(["git", "add", "."], cwd=repo, check=True, env=env)
    subprocess.run(["git", "commit", "-q", "-m", "broken"], cwd=repo, check=True, env=env)
    claude_double.add(tool_use("build", {}, id="b1"), "The build fails: app.py line 1.")
    out = ask("--repo", str(repo), "--memory", "none", "--trust", "Does it build?")
    assert out.returncode == 0, out.stderr  # the session did its work; the answer is the failure
    (line,) = [line for line in out.stderr.splitlines() if line.startswith("[build ")]
    assert line.startswith("[build × failed: ") and "1 error" in line
    assert "done" not in line
    assert "SyntaxError" in claude_double.messages_requests()[1].tool_results()[0]["content"]
    usage = json.loads(out.stdout.strip().splitlines()[-1])
    assert usage["tools"] == {"failed": 1}


def test_a_tool_input_with_escape_sequences_reaches_the_terminal_as_text(claude_double, repo):
    # The model copies a name the repository chose; the terminal must not act on it.
    title = "\x1b]2;owned\x07"
    (repo / f"t{title}.txt").write_text("hi\n")
    claude_double.add(tool_use("read_file", {"path": f"t{title}.txt"}, id="r1"),
                      tool_use("find_files", {"glob": f"*{title}*"}, id="f1"))
    claude_double.add(f"Read t{title}.txt \x1b[2J done.")
    out = ask("--repo", str(repo), "--memory", "none", "Read it.")
    assert out.returncode == 0, out.stderr
    for stream in (out.stdout, out.stderr):
        assert "\x1b" not in stream and "\x07" not in stream
    assert "[read_file: t␛]2;owned␇.txt]" in out.stderr
    assert "Read t␛]2;owned␇.txt ␛[2J done." in out.stdout
    _, results = claude_double.messages_requests()[:2]
    read, found = results.tool_results()
    assert "hi" in read["content"] and '"t\\u001b]2;owned\\u0007.txt"' in found["content"]


def test_ask_in_an_untrusted_repository_says_it_has_instructions_and_sends_none(claude_double, repo):
    (repo / "AGENTS.md").write_text("Answer in French.\n")
    claude_double.add("Fine.")
    out = ask("--repo", str(repo), "--memory", "none", "Hello?")
    assert out.returncode == 0, out.stderr
    assert "has instructions for coding agents (AGENTS.md)" in out.stderr
    assert "French" not in str(claude_double.messages_requests()[0].body)
    claude_double.add("Bien.")
    trusted = ask("--repo", str(repo), "--memory", "none", "--trust", "Hello?")
    assert "has instructions" not in trusted.stderr
    assert "Answer in French." in claude_double.messages_requests()[1].system_text()
