"""While the app runs, what libraries write to fd 2 goes to a log, not over the UI."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

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
