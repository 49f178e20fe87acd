"""The real `devagent` binary in tmux, talking to the Claude double in another process."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.tui.scenario import QUESTION, DoubleProcess, build_world, double_script

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")


class Tmux:
    """One tmux server on a private socket, so nothing touches a user's sessions."""

    def __init__(self, socket: Path) -> None:
        self.socket = socket

    def run(self, *args: str, check: bool = True) -> str:
        result = subprocess.run(["tmux", "-S", str(self.socket), *args], capture_output=True, text=True, timeout=10)
        if check and result.returncode != 0:
            raise AssertionError(f"tmux {args[0]} failed: {result.stderr}")
        return result.stdout

    def screen(self) -> str:
        return self.run("capture-pane", "-p", "-t", "app")

    def wait_for(self, *needles: str, timeout: float = 30) -> str:
        deadline = time.monotonic() + timeout
        while True:
            text = self.screen()
            if all(n in text for n in needles):
                return text
            if time.monotonic() > deadline:
                raise AssertionError(f"never saw {needles!r} on screen; last screen:\n{text}")
            time.sleep(0.1)


def test_devagent_in_tmux_streams_a_reply_and_tool_lines(tmp_path):
    world = build_world(tmp_path / "world")
    binary = Path(sys.executable).with_name("devagent")
    assert binary.exists(), "the devagent console script should be installed in the environment"
    with DoubleProcess(double_script(), tmp_path / "double") as double:
        env = {
            **os.environ,
            **world.env,
            **double.env,
            "TERM": "xterm-256color",
            "HOME": str(tmp_path / "home"),
        }
        for name in ("DEVAGENT_MODEL", "DEVAGENT_EFFORT", "DEVAGENT_MEMORY", "TMUX"):
            env.pop(name, None)
        tmux = Tmux(tmp_path / "tmux.sock")
        # tmux hands the server's environment down; COLUMNS/LINES from a test runner would
        # pin the app to their size, so the command says exactly what it runs with
        keys = ("PATH", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_RUNTIME_DIR", "ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY", "HOME", "TERM")
        command = shlex.join(
            ["env", "-u", "COLUMNS", "-u", "LINES", "-u", "DEVAGENT_MODEL", "-u", "DEVAGENT_EFFORT", "-u", "DEVAGENT_MEMORY",
             *[f"{key}={env[key]}" for key in keys], str(binary), str(world.repo)]
        )
        tmux.run("-f", os.devnull, "new-session", "-d", "-s", "app", "-x", "140", "-y", "42", command)
        try:
            tmux.wait_for("Ask about this repository", "Memory · 4")
            tmux.run("send-keys", "-t", "app", "-l", QUESTION)
            tmux.run("send-keys", "-t", "app", "Enter")
            screen = tmux.wait_for("one error", "CS1061", "as usual", timeout=60)
            assert QUESTION in screen
            # the build ran and failed: a successful call, but not a green check
            tool_lines = [line for line in screen.splitlines() if "× build" in line]
            assert tool_lines and "1 error" in tool_lines[0], screen
            assert "✓ git_status" in screen and "✓ read_file" in screen
            assert "Fix for CS1061" in screen  # the screen pane's title
            # once the turn has ended, the status line carries its tokens and cost
            screen = tmux.wait_for(" out · ", timeout=20)
            assert re.search(r"\d+(\.\d)?k? out · (cached \S+ · )?\$\d", screen), screen
            requests = double.requests()
            assert requests and "Why is the build red?" in str(requests[0]["body"]["messages"])
            tmux.run("send-keys", "-t", "app", "C-q")
            deadline = time.monotonic() + 10
            while "app" in tmux.run("list-sessions", "-F", "#{session_name}", check=False):
                assert time.monotonic() < deadline, "devagent did not quit on Ctrl+Q"
                time.sleep(0.1)
        finally:
            tmux.run("kill-server", check=False)
