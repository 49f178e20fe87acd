"""Keep the terminal to the app while it runs.

PortAudio, ALSA, the speech runtimes and Python's warnings write to file descriptor 2
whenever they like, straight through a full-screen UI. For the app's lifetime fd 2 goes to
a log file; Textual draws on a copy of the terminal's descriptor, so only what it draws
reaches the screen.
"""

from __future__ import annotations

import os
import sys
from contextlib import contextmanager
from pathlib import Path


def log_path() -> Path:
    """The log of what libraries wrote while the app ran (honours XDG_STATE_HOME)."""
    from platformdirs import user_log_dir

    return Path(user_log_dir("devagent")) / "stderr.log"


@contextmanager
def stderr_to_log(path: Path):
    """fd 2 into `path` until the block ends; `sys.__stderr__` (where Textual draws) stays the terminal.

    Where the log cannot be opened (a read-only home, say) nothing is redirected: the app
    still runs, only less tidily.
    """
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        log = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    except OSError:
        yield sys.__stderr__
        return
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    saved = sys.__stderr__
    terminal = open(os.dup(2), "w", encoding=getattr(saved, "encoding", None) or "utf-8", errors="replace")  # noqa: SIM115 - outlives this block
    os.dup2(log, 2)
    os.close(log)
    sys.__stderr__ = terminal
    try:
        yield terminal
    finally:
        try:
            sys.stderr.flush()
        except (OSError, ValueError):
            pass
        terminal.flush()
        os.dup2(terminal.fileno(), 2)
        sys.__stderr__ = saved
        terminal.close()
