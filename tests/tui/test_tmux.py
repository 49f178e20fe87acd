"""The real `devagent` binary in tmux, talking to the Claude double in another process."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.double.server import error, reply, text
from tests.system_packages import needs
from tests.tui.scenario import QUESTION, DoubleProcess, build_world, double_script

pytestmark = [pytest.mark.e2e, needs("tmux")]


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


@contextmanager
def devagent_in_tmux(tmp_path: Path, world, double, size: tuple[int, int], *args: str):
    """The installed `devagent` on the world's repository in a private tmux server."""
    binary = Path(sys.executable).with_name("devagent")
    assert binary.exists(), "the devagent console script should be installed in the environment"
    env = {**os.environ, **world.env, **double.env, "TERM": "xterm-256color", "HOME": str(tmp_path / "home")}
    tmux = Tmux(tmp_path / "tmux.sock")
    # tmux hands the server's environment down; COLUMNS/LINES from a test runner would
    # pin the app to their size, so the command says exactly what it runs with
    keys = ("PATH", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_RUNTIME_DIR", "ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY", "HOME", "TERM")
    command = shlex.join(
        ["env", "-u", "COLUMNS", "-u", "LINES", "-u", "DEVAGENT_MODEL", "-u", "DEVAGENT_EFFORT", "-u", "DEVAGENT_MEMORY",
         *[f"{key}={env[key]}" for key in keys], str(binary), *args, str(world.repo)]
    )
    tmux.run("-f", os.devnull, "new-session", "-d", "-s", "app", "-x", str(size[0]), "-y", str(size[1]), command)
    try:
        yield tmux
    finally:
        tmux.run("kill-server", check=False)


def quit_app(tmux: Tmux) -> None:
    tmux.run("send-keys", "-t", "app", "C-q")
    deadline = time.monotonic() + 10
    while "app" in tmux.run("list-sessions", "-F", "#{session_name}", check=False):
        assert time.monotonic() < deadline, "devagent did not quit on Ctrl+Q"
        time.sleep(0.1)


def test_devagent_in_tmux_streams_a_reply_and_tool_lines(tmp_path):
    world = build_world(tmp_path / "world")
    with DoubleProcess(double_script(), tmp_path / "double") as double, \
            devagent_in_tmux(tmp_path, world, double, (140, 42), "--no-voice") as tmux:
        # --no-voice reaches the app as an argument (no environment variable in between)
        tmux.wait_for("Ask about this repository", "Memory · 4", "voice: off — turned off (--no-voice)")
        tmux.run("send-keys", "-t", "app", "-l", QUESTION)
        tmux.run("send-keys", "-t", "app", "Enter")
        screen = tmux.wait_for("one error", "CS1061", "as usual", timeout=120)
        assert QUESTION in screen
        # the build ran and failed: a successful call, but not a green check
        tool_lines = [line for line in screen.splitlines() if "× build" in line]
        assert tool_lines and "1 error" in tool_lines[0], screen
        assert "✓ git_status" in screen and "✓ read_file" in screen
        assert "Fix for CS1061" in screen  # the screen pane's title
        # once the turn has ended, the status line carries its tokens and cost
        screen = tmux.wait_for("turn ", timeout=20)
        assert re.search(r"turn (\S+ in · \S+ out · |in \S+ · out \S+ · cached \S+ · |↑\S+ ↓\S+ )\$\d", screen), screen
        requests = double.requests()
        assert requests and "Why is the build red?" in str(requests[0]["body"]["messages"])
        quit_app(tmux)


# --- a first hour of daily use at 80x24 (issue 10: points 1, 2, 4, 5 and 9) ----------------

TRACE = 'Traceback (most recent call last):\n  File "shop/app.py", line 3, in <module>\n    main()\nValueError: boom'
LONG_WORDS = ("alpha", "bravo", "charlie")


def daily_script() -> dict:
    def long_reply(name: str) -> dict:
        paragraphs = [" ".join(f"{name}{p}w{i}" for i in range(50)) for p in range(5)]
        return reply(text("\n\n".join(paragraphs) + f"\n\nEND-{name.upper()}"), chunk=24, delay=0.005)

    rules = [{"contains": name, "reply": long_reply(name)} for name in LONG_WORDS]
    rules.append({"contains": "escape", "reply": reply(text("Watch: \x1b[2J and \x1b]0;pwned\x07 done."))})
    # slow enough to be cancelled mid-stream; and a request the API refuses every time
    rules.append({"contains": "slowly", "reply": reply(text("drip " * 3000), chunk=5, delay=0.02)})
    rules.append({"contains": "broken", "reply": error(400, "messages: the request is malformed (scripted)")})
    return {"replies": [], "default": reply(text("Got it.")), "rules": rules}


def message_texts(message: dict) -> str:
    content = message.get("content", "")
    return content if isinstance(content, str) else " ".join(b.get("text", "") for b in content)


def last_user_texts(double) -> list[str]:
    out = []
    for request in double.requests():
        messages = request["body"].get("messages", [])
        users = [m for m in messages if m.get("role") == "user"]
        if users:
            content = users[-1]["content"]
            out.append(content if isinstance(content, str) else " ".join(b.get("text", "") for b in content))
    return out


def paste(tmux: Tmux, tmp_path: Path, text: str) -> None:
    """A bracketed paste, as a terminal sends one (tmux turns the newlines into CRs)."""
    buffer = tmp_path / "paste.txt"
    buffer.write_text(text)
    tmux.run("load-buffer", str(buffer))
    tmux.run("paste-buffer", "-p", "-t", "app")


def focus_memory_pane(tmux: Tmux) -> None:
    """Tab until the footer shows the memory pane's keys (it follows the focus)."""
    # the focus is on the prompt (where a closed dialog leaves it) once the footer says so
    wait_until(lambda: "^e Edit" not in tmux.screen().splitlines()[-1], "the focus on the prompt", 10)
    for _ in range(8):
        before = tmux.screen().splitlines()[-1]
        tmux.run("send-keys", "-t", "app", "Tab")
        deadline = time.monotonic() + 3
        while time.monotonic() < deadline:
            footer = tmux.screen().splitlines()[-1]
            if "^e Edit" in footer:
                return
            if footer != before:
                break
            time.sleep(0.1)
    raise AssertionError("Tab never reached the memory pane:\n" + tmux.screen())


def wait_until(predicate, what: str, timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.1)


def test_a_first_hour_at_80x24_in_tmux(tmp_path):
    world = build_world(tmp_path / "world")
    memories = Path(world.store().directory)
    files = sorted(p.name for p in memories.glob("*.md") if p.name != "MEMORY.md")
    with DoubleProcess(daily_script(), tmp_path / "double") as double, \
            devagent_in_tmux(tmp_path, world, double, (80, 24), "--no-voice") as tmux:
        tmux.wait_for("Ask about this repository", "Memory · 4")

        # 9: a pasted stack trace arrives whole; Ctrl+J adds a line; Enter sends
        paste(tmux, tmp_path, TRACE)
        tmux.run("send-keys", "-t", "app", "C-j")
        tmux.run("send-keys", "-t", "app", "-l", "what is it")
        tmux.wait_for("ValueError: boom", "what is it")
        tmux.run("send-keys", "-t", "app", "Enter")
        tmux.wait_for("Got it.", timeout=120)
        # (the first turn also carries the date, in a block of its own before)
        assert last_user_texts(double)[-1].endswith(TRACE + "\nwhat is it")
        # a very long paste shows folded with its line count, and is sent in full
        paste(tmux, tmp_path, "\n".join(f"log line {i}" for i in range(200)))
        tmux.wait_for("[pasted 200 lines #1]")
        tmux.run("send-keys", "-t", "app", "Enter")
        wait_until(lambda: len(last_user_texts(double)) == 2, "the long paste to be sent", 60)
        assert "log line 0\n" in last_user_texts(double)[-1] and "log line 199" in last_user_texts(double)[-1]

        # 4: escape sequences in a reply are shown, not obeyed
        title_before = tmux.run("display-message", "-p", "-t", "app", "#{pane_title}")
        tmux.run("send-keys", "-t", "app", "-l", "escape please")
        tmux.run("send-keys", "-t", "app", "Enter")
        screen = tmux.wait_for("␛[2J", "␛]0;pwned␇", "done.", timeout=60)
        assert "escape please" in screen, "the screen was cleared"
        assert tmux.run("display-message", "-p", "-t", "app", "#{pane_title}") == title_before

        # 2: once the conversation is full, the end of each newest reply is on screen
        for name in LONG_WORDS:
            tmux.run("send-keys", "-t", "app", "-l", f"{name} please")
            tmux.run("send-keys", "-t", "app", "Enter")
            tmux.wait_for(f"END-{name.upper()}", timeout=60)
            time.sleep(0.5)
            assert f"END-{name.upper()}" in tmux.screen()
        tmux.run("send-keys", "-t", "app", "PageUp")
        wait_until(lambda: "END-CHARLIE" not in tmux.screen(), "PgUp to scroll the conversation up", 10)
        tmux.run("send-keys", "-t", "app", "C-End")
        tmux.wait_for("END-CHARLIE", timeout=10)

        # 1: a sentence typed on the memory pane lands in the prompt and deletes nothing
        focus_memory_pane(tmux)
        tmux.run("send-keys", "-t", "app", "-l", "does my build fail")
        screen = tmux.wait_for("▊ does my build fail")
        assert "Delete memory" not in screen
        assert sorted(p.name for p in memories.glob("*.md") if p.name != "MEMORY.md") == files
        tmux.run("send-keys", "-t", "app", "C-u")  # clear the prompt
        # y does not confirm a delete; Ctrl+D does, and Ctrl+Z brings the memory back
        focus_memory_pane(tmux)
        tmux.run("send-keys", "-t", "app", "DC")
        tmux.wait_for("Delete memory")
        tmux.run("send-keys", "-t", "app", "y")
        wait_until(lambda: "Delete memory" not in tmux.screen(), "the dialog to close on y")
        assert sorted(p.name for p in memories.glob("*.md") if p.name != "MEMORY.md") == files
        # the y went to the prompt
        wait_until(lambda: re.search(r"▊ y ", tmux.screen()), "the y in the prompt")
        tmux.run("send-keys", "-t", "app", "C-u")
        focus_memory_pane(tmux)
        tmux.run("send-keys", "-t", "app", "DC")
        tmux.wait_for("Delete memory")
        tmux.run("send-keys", "-t", "app", "C-d")
        wait_until(lambda: len(list(memories.glob("*.md"))) < len(files) + 1 and
                   sorted(p.name for p in memories.glob("*.md") if p.name != "MEMORY.md") != files, "the delete")
        focus_memory_pane(tmux)
        tmux.run("send-keys", "-t", "app", "C-z")
        wait_until(lambda: sorted(p.name for p in memories.glob("*.md") if p.name != "MEMORY.md") == files, "the undo")

        # 5: a cancelled question is not asked again with the next one
        ask_in_tmux(tmux, "go slowly")
        tmux.wait_for("drip drip", timeout=60)
        tmux.run("send-keys", "-t", "app", "Escape")
        tmux.wait_for("Cancelled.", timeout=20)
        sent = len(double.requests())
        ask_in_tmux(tmux, "next one after the cancel")
        wait_until(lambda: len(double.requests()) > sent, "the question after the cancel", 60)
        messages = double.requests()[-1]["body"]["messages"]
        assert "after the cancel" in message_texts(messages[-1]) and "slowly" not in message_texts(messages[-1])
        # the model may see that it was asked and cancelled, as an earlier turn of its own
        assert any("slowly" in message_texts(m) for m in messages[:-1])
        tmux.wait_for("Got it.", timeout=60)
        # a request the API refuses is shown, and its text is not sent again
        ask_in_tmux(tmux, "this one is broken")
        tmux.wait_for("malformed", timeout=60)
        sent = len(double.requests())
        ask_in_tmux(tmux, "and after the error")
        wait_until(lambda: len(double.requests()) > sent, "the question after the error", 60)
        assert not any("broken" in message_texts(m) for m in double.requests()[-1]["body"]["messages"])
        # Ctrl+N: a new conversation, without restarting; the turns above are no longer sent
        wait_until(lambda: "working" not in tmux.screen(), "the turn to end", 60)
        tmux.run("send-keys", "-t", "app", "C-n")
        tmux.wait_for("New conversation", timeout=30)
        sent = len(double.requests())
        ask_in_tmux(tmux, "fresh start")
        wait_until(lambda: len(double.requests()) > sent, "the first question of the new conversation", 60)
        texts = [message_texts(m) for m in double.requests()[-1]["body"]["messages"]]
        assert "fresh start" in texts[-1] and not any("escape please" in t or "after the error" in t for t in texts)
        quit_app(tmux)


def ask_in_tmux(tmux: Tmux, question: str) -> None:
    """Type and send; Enter waits until the words are in the prompt (which the first
    letter focuses, from wherever the focus was)."""
    tmux.run("send-keys", "-t", "app", "-l", question)
    tmux.wait_for(f"▊ {question}", timeout=20)
    tmux.run("send-keys", "-t", "app", "Enter")
