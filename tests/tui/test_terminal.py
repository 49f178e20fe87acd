"""While the app runs, what libraries write to fd 2 goes to a log, not over the UI."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

CHILD = r"""
import ctypes, os, sys, warnings
from pathlib import Path
from tui.terminal import stderr_to_log

log = Path(sys.argv[1])
with stderr_to_log(log):
    os.write(2, b"ALSA lib pcm.c: underrun occurred\n")
    ctypes.CDLL(None).dprintf(2, b"from C\n")
    warnings.warn("a library warning")
    print("python stderr", file=sys.stderr)
    sys.__stderr__.write("drawn by the UI\n")
    sys.__stderr__.flush()
print("after restore", file=sys.stderr)
"""


def test_library_output_goes_to_the_log_and_the_terminal_comes_back(tmp_path):
    log = tmp_path / "state" / "devagent" / "stderr.log"
    result = subprocess.run([sys.executable, "-c", CHILD, str(log)], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stderr == "drawn by the UI\nafter restore\n"
    written = log.read_text()
    for line in ("underrun occurred", "from C", "a library warning", "python stderr"):
        assert line in written, line
    assert "drawn by the UI" not in written


def test_the_log_lives_in_the_users_state_folder(tmp_path, monkeypatch):
    from tui.terminal import log_path

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    assert log_path().is_relative_to(tmp_path)
    assert os.path.basename(log_path()) == "stderr.log"


CRASH = r"""
import sys
from argparse import Namespace
import tui.app
import tui.cli

def explode(self):
    raise RuntimeError("the pane exploded")

tui.app.DevAgentApp.on_ready = explode
sys.exit(tui.cli.run_app(Namespace(path=sys.argv[1], memory=None, model=None, effort=None), no_voice=True))
"""


@pytest.mark.e2e
def test_a_crash_is_summed_up_after_the_terminal_is_back(tmp_path, repo):
    import pty
    import select
    import time

    state = tmp_path / "state"
    env = {**os.environ, "XDG_STATE_HOME": str(state), "DEVAGENT_VOICE": "off", "TERM": "xterm-256color",
           "COLUMNS": "100", "LINES": "30"}
    env.pop("ANTHROPIC_API_KEY", None)
    leader, follower = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-c", CRASH, str(repo)], cwd=ROOT, env=env,
                            stdin=follower, stdout=follower, stderr=follower, start_new_session=True)
    os.close(follower)
    output = b""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        ready, _, _ = select.select([leader], [], [], 0.2)
        if ready:
            try:
                chunk = os.read(leader, 65536)
            except OSError:
                break
            if not chunk:
                break
            output += chunk
        elif proc.poll() is not None:
            break
    os.close(leader)
    assert proc.wait(10) == 1
    text = output.decode("utf-8", "replace")
    # the summary comes after the app has left the alternate screen
    tail = text[text.rfind("\x1b[?1049l"):]
    assert "devagent stopped: RuntimeError: the pane exploded" in tail
    assert "Traceback" not in tail and "╭" not in tail
    log = state / "devagent" / "log" / "stderr.log"
    assert f"The full report is in {log}" in tail
    assert "the pane exploded" in log.read_text() and "explode" in log.read_text()


def test_a_log_that_cannot_be_opened_leaves_stderr_alone(tmp_path):
    code = CHILD.replace("log = Path(sys.argv[1])", "log = Path(sys.argv[1]) / 'stderr.log'")
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the log folder should be")
    result = subprocess.run([sys.executable, "-c", code, str(blocker)], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert "underrun occurred" in result.stderr and "after restore" in result.stderr
