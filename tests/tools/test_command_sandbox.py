"""A command the user approved runs in the sandbox: what it tries outside the repository gets nothing.

Each test runs run_command on a fresh repository deep in a box of bait: a file beside the
repository, a fake home with `.ssh` keys, a key and a token in the environment, a server
listening on this machine. The outer test runs this module again in a mount namespace with
everything but the box read-only (tests/read_only_rerun.py), so a sandbox that leaked a
write would fail there with EROFS instead of landing somewhere real.
"""

from __future__ import annotations

import os
import socket
import sys
import threading
import time
from pathlib import Path

import pytest

from agent.cancel import Cancellation
from agent.command_consent import CommandAsked, CommandConsent
from agent.decisions import Decision
from agent.events import CommandEnded, CommandOutput, CommandStarted
from agent.loop.turn import TurnState
from agent.tools.base import ToolContext, ToolResult
from agent.tools.command import RunCommandTool
from agent.tools.toolchain import sandbox
from tests.read_only_rerun import rerun_read_only
from tests.repos import git_repo
from tests.system_packages import needs

pytestmark = needs("bubblewrap")
INNER = os.environ.get("COMMAND_SANDBOX_INNER") == "1"
BAIT = "BAIT-sandbox-do-not-read"
PY = sys.executable


@pytest.fixture
def box(tmp_path, monkeypatch) -> dict[str, Path]:
    root = tmp_path / "box"
    repo = git_repo(root / "work" / "repo", {"app.py": "print('hi')\n"}, commit=True)
    home = root / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_ed25519").write_text(f"{BAIT} ssh key\n")
    (home / ".aws").mkdir()
    (home / ".aws" / "credentials").write_text(f"{BAIT} aws\n")
    (home / ".cache" / "uv").mkdir(parents=True)
    (root / "secret.txt").write_text(f"{BAIT} beside the repository\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("ANTHROPIC_API_KEY", f"sk-ant-api03-{BAIT}")
    monkeypatch.setenv("MY_SERVICE_TOKEN", BAIT)
    monkeypatch.setenv("GH_TOKEN", BAIT)
    return {"root": root, "repo": repo, "home": home}


def run(repo: Path, command: str, *, network: bool = False, cancel: Cancellation | None = None,
        events: list | None = None) -> ToolResult:
    """run_command, the user saying yes once (with the network when `network`)."""
    got = [] if events is None else events

    def sink(event):
        got.append(event)
        if isinstance(event, CommandAsked):
            turn.decisions.post(Decision(event.request.id, True, network=network))

    turn = TurnState(1, sink, cancel or Cancellation())
    consent = CommandConsent(repo, interactive=True)
    ctx = ToolContext(repo, cancel=turn.cancel, commands=consent.bound(turn), turn=1)
    return RunCommandTool().run({"command": command, "reason": "a test", "network": network}, ctx)


def output(events: list) -> str:
    return "".join(e.text for e in events if isinstance(e, CommandOutput))


def test_a_command_runs_in_the_repository_its_output_streams_and_its_exit_code_is_reported(box):
    events: list = []
    result = run(box["repo"], "echo made > made.txt; echo out; echo err >&2; exit 3", events=events)
    assert (box["repo"] / "made.txt").read_text() == "made\n"
    assert "Exit code 3" in result.text and "out" in result.text and "err" in result.text
    assert result.summary == "exit code 3" and not result.is_error
    assert "made.txt (added)" in result.text  # what it changed is recorded
    started = [e for e in events if isinstance(e, CommandStarted)]
    assert len(started) == 1 and started[0].sandboxed and not started[0].network
    assert "out\n" in output(events) and "err\n" in output(events)
    assert [e.said.split(" in ")[0] for e in events if isinstance(e, CommandEnded)] == ["exit code 3"]


def test_standard_input_is_empty(box):
    result = run(box["repo"], "cat; echo read-$?")
    assert "read-0" in result.text


def test_devagents_own_python_starts_inside_wherever_it_lives(box, monkeypatch):
    """A repository environment made from devagent's interpreter (its venv's python, a
    script's first line) runs inside even when /tmp or the home would hide that interpreter;
    read-only, and nothing else of the home comes with it."""
    own = box["home"] / "tools" / "devagent-venv"
    (own / "bin").mkdir(parents=True)
    (own / "bin" / "tool").write_text("#!/bin/sh\necho own-python-here\n")
    (own / "bin" / "tool").chmod(0o755)
    monkeypatch.setattr(sys, "prefix", str(own))
    result = run(box["repo"], f"{own}/bin/tool; touch {own}/bin/written; cat ~/.ssh/id_ed25519")
    assert "own-python-here" in result.text
    assert not (own / "bin" / "written").exists() and BAIT not in result.text


def test_nothing_outside_the_repository_can_be_written(box):
    root, repo, home = box["root"], box["repo"], box["home"]
    before = sorted(str(p) for p in root.rglob("*") if repo not in p.parents and p != repo)
    targets = [root / "written.txt", root / "work" / "sibling.txt", home / "written.txt", home / ".ssh" / "authorized_keys",
               Path("/tmp/devagent-sandbox-escape.txt"), repo / ".git" / "hooks" / "pre-commit"]
    command = "; ".join(f"echo pwned > '{t}'" for t in targets) + "; echo pwned >> ../../secret.txt; true"
    result = run(repo, command)
    assert not result.is_error, result.text
    after = sorted(str(p) for p in root.rglob("*") if repo not in p.parents and p != repo)
    assert after == before
    assert all(not t.exists() for t in targets)
    assert (root / "secret.txt").read_text() == f"{BAIT} beside the repository\n"


def test_the_home_keys_and_the_environment_secrets_are_not_there(box):
    home = box["home"]
    probe = (f"cat ~/.ssh/id_ed25519 '{home}/.ssh/id_ed25519' ~/.aws/credentials ../../secret.txt 2>&1; ls -a ~; "
             "for v in ANTHROPIC_API_KEY MY_SERVICE_TOKEN GH_TOKEN; do eval \"x=\\${$v:-}\"; "
             "[ -n \"$x\" ] && echo \"$v PRESENT\" || echo \"$v ABSENT\"; done; "
             f"grep -l '{BAIT[:6]}''{BAIT[6:]}' /proc/*/environ 2>/dev/null | head -3; env")  # the text holds no BAIT
    events: list = []
    result = run(box["repo"], probe, events=events)
    seen = output(events) + result.text
    assert BAIT not in seen
    for name in ("ANTHROPIC_API_KEY", "MY_SERVICE_TOKEN", "GH_TOKEN"):
        assert f"{name} ABSENT" in seen and f"{name} PRESENT" not in seen
    assert ".ssh" not in seen.split("ANTHROPIC_API_KEY")[0].split("secret.txt")[-1]  # `ls -a ~` lists no .ssh
    assert ".cache" in seen  # the toolchain caches of the one list are there


def _listening() -> tuple[socket.socket, int]:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(4)
    server.settimeout(0.2)
    return server, server.getsockname()[1]


def test_no_network_unless_allowed_for_the_command(box):
    server, port = _listening()
    reached: list = []

    def accept():
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                conn, _ = server.accept()
            except TimeoutError:
                continue
            except OSError:
                return  # closed: the test is over
            reached.append(conn.recv(100))
            conn.close()

    threading.Thread(target=accept, daemon=True).start()
    connect = (f"{PY} -c \"import socket; s=socket.create_connection(('127.0.0.1', {port}), timeout=3); "
               f"s.sendall(b'hello'); print('CONN' + 'ECTED')\"")
    closed = run(box["repo"], connect)
    assert "CONNECTED" not in closed.text and "Exit code 1" in closed.text
    assert reached == []
    opened = run(box["repo"], connect, network=True)
    assert "CONNECTED" in opened.text, opened.text
    deadline = time.monotonic() + 5
    while not reached and time.monotonic() < deadline:
        time.sleep(0.05)
    assert reached == [b"hello"]
    server.close()


def _running(marker: str) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if marker.encode() in Path(f"/proc/{entry}/cmdline").read_bytes():
                    found.append(int(entry))
            except OSError:
                pass
    return found


def test_esc_ends_the_command_and_everything_it_started(box):
    marker = f"devagent-esc-{os.getpid()}-{time.monotonic_ns()}"
    stubborn = f"{PY} -c 'import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(600)' {marker}-child"
    daemon = f"setsid {PY} -c 'import os, time; os.fork() and os._exit(0); time.sleep(600)' {marker}-daemon"
    command = f"{stubborn} & {daemon} & sleep 1; echo started; wait"
    cancel = Cancellation()
    events: list = []
    done: list = []
    worker = threading.Thread(target=lambda: done.append(run(box["repo"], command, cancel=cancel, events=events)))
    worker.start()
    deadline = time.monotonic() + 30
    while "started" not in output(events) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(_running(marker)) >= 2  # the child and the daemonized grandchild run
    cancel.cancel()
    worker.join(20)
    assert done and done[0].summary == "cancelled"
    deadline = time.monotonic() + 5
    while _running(marker) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _running(marker) == []


def test_the_time_limit_ends_it_too(box, monkeypatch):
    from agent.tools import command

    monkeypatch.setattr(command, "DEFAULT_TIMEOUT", 1.5)
    marker = f"devagent-limit-{os.getpid()}-{time.monotonic_ns()}"
    result = run(box["repo"], f"setsid {PY} -c 'import time; time.sleep(600)' {marker} & wait")
    assert result.summary == "timed out" and "time limit" in result.text
    deadline = time.monotonic() + 5
    while _running(marker) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _running(marker) == []


def test_without_bubblewrap_a_headless_run_refuses_and_says_why(box, monkeypatch):
    monkeypatch.setattr(sandbox, "BWRAP", "bwrap-not-installed-here")
    turn = TurnState(1, lambda e: None, Cancellation())
    ctx = ToolContext(box["repo"], cancel=turn.cancel, commands=CommandConsent(box["repo"], allowed=("echo made > made.txt",)).bound(turn))
    result = RunCommandTool().run({"command": "echo made > made.txt", "reason": "a test"}, ctx)
    assert result.is_error and "bubblewrap is not installed" in result.text
    assert not (box["repo"] / "made.txt").exists()


@pytest.mark.slow
@pytest.mark.skipif(INNER, reason="already inside the read-only namespace")
def test_the_escapes_under_a_read_only_mount_namespace(tmp_path):
    done = rerun_read_only(Path(__file__), tmp_path, "COMMAND_SANDBOX_INNER", timeout=240, pytest_args=("-k", "not read_only_mount"))
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert " passed" in done.stdout.strip().splitlines()[-1] and "skipped" not in done.stdout.strip().splitlines()[-1]


def test_the_repositorys_own_environment_comes_first_on_path(box):
    """A model asking for `ruff check .` in a repository whose ruff is in its .venv gets that
    ruff, as in a shell where the environment is active (tried on pallets/click: without it,
    `ruff: not found`, and the model had to guess the path)."""
    bin_dir = box["repo"] / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
    (bin_dir / "projtool").write_text("#!/bin/sh\necho the-project-tool \"$VIRTUAL_ENV\"\n")
    (bin_dir / "projtool").chmod(0o755)
    result = run(box["repo"], "projtool")
    assert f"the-project-tool {os.path.realpath(box['repo'])}/.venv" in result.text, result.text
