"""Keep the terminal to the app while it runs, and devagent's own log beside it.

PortAudio, ALSA, the speech runtimes and Python's warnings write to file descriptor 2
whenever they like, straight through a full-screen UI. For the app's lifetime fd 2 goes to
a log file; Textual draws on a copy of the terminal's descriptor, so only what it draws
reaches the screen.

What devagent itself reports (API errors, retries, stream faults, unsaved transcripts) goes
through `logging` into devagent.log in the same folder, rotated, each line passed through
the secret filter.
"""

from __future__ import annotations

import io
import logging
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from logging.handlers import RotatingFileHandler
from pathlib import Path
from typing import TextIO

from memory.private import FILE_MODE, make_private

# Both logs are kept to about this size: one old copy of stderr.log, LOG_BACKUPS of devagent.log.
LOG_BYTES = 1_000_000
LOG_BACKUPS = 3


def log_path() -> Path:
    """The log of what libraries wrote while the app ran (honours XDG_STATE_HOME)."""
    from platformdirs import user_log_dir

    return Path(user_log_dir("devagent")) / "stderr.log"


def agent_log_path() -> Path:
    """devagent's own log: errors, retries and faults, with what a bug report needs."""
    return log_path().with_name("devagent.log")


class _PrivateRotatingLog(RotatingFileHandler):
    """Each new log file, the first and every one after a turn-over, is made 0600: the log
    quotes errors and file names, and the handler's own open follows the umask."""

    def _open(self) -> io.TextIOWrapper:
        fd = os.open(self.baseFilename, os.O_WRONLY | os.O_CREAT | os.O_APPEND, FILE_MODE)
        return open(fd, "a", encoding=self.encoding, errors=self.errors)  # noqa: SIM115 - the handler closes it


class _MaskingFormatter(logging.Formatter):
    """Formats as usual, then masks credentials: an API message or a traceback may quote one."""

    def format(self, record: logging.LogRecord) -> str:
        from memory.secrets import mask_secrets

        return mask_secrets(super().format(record))[0]


def start_logging(path: Path | None = None, level: int = logging.INFO) -> Path | None:
    """Sends the "devagent" loggers to `path` (devagent.log by default), rotated; returns the
    path, or None when the folder cannot be written (then nothing is logged). Once a process."""
    path = path or agent_log_path()
    logger = logging.getLogger("devagent")
    for handler in logger.handlers:
        if isinstance(handler, RotatingFileHandler):
            return Path(handler.baseFilename)
    try:
        make_private(path.parent)
        handler = _PrivateRotatingLog(path, maxBytes=LOG_BYTES, backupCount=LOG_BACKUPS, encoding="utf-8")
        os.chmod(path, FILE_MODE)  # a log an older version made
    except OSError:
        return None
    handler.setFormatter(_MaskingFormatter("%(asctime)s %(levelname)s %(name)s [%(threadName)s] %(message)s"))
    logger.addHandler(handler)
    logger.setLevel(level)
    return path


def _rotate(path: Path) -> None:
    """fd 2 cannot be rotated while it is open: an oversized stderr.log is moved aside first."""
    try:
        if path.stat().st_size > LOG_BYTES:
            os.replace(path, path.with_name(path.name + ".1"))
    except OSError:
        pass


@contextmanager
def stderr_to_log(path: Path) -> Iterator[TextIO | None]:
    """fd 2 into `path` until the block ends; `sys.__stderr__` (where Textual draws) stays the terminal.

    Where the log cannot be opened (a read-only home, say) nothing is redirected: the app
    still runs, only less tidily.
    """
    try:
        make_private(path.parent)
        _rotate(path)
        log = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, FILE_MODE)
    except OSError:
        yield sys.__stderr__
        return
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    saved = sys.__stderr__
    terminal = open(os.dup(2), "w", encoding=getattr(saved, "encoding", None) or "utf-8", errors="replace")  # noqa: SIM115 - outlives this block
    os.dup2(log, 2)
    os.close(log)
    # typeshed makes __stderr__ Final; Textual draws on it, so it must be the terminal
    sys.__stderr__ = terminal  # type: ignore[misc]
    try:
        yield terminal
    finally:
        try:
            sys.stderr.flush()
        except (OSError, ValueError):
            pass
        terminal.flush()
        os.dup2(terminal.fileno(), 2)
        sys.__stderr__ = saved  # type: ignore[misc]  # as above
        terminal.close()
