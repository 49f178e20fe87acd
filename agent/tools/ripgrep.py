"""The ripgrep binary devagent searches with, and one run of it read as a stream.

The `ripgrep` package on PyPI ships `rg` into the environment's scripts folder; it is found
from the package's own file list first, so a different `rg` earlier on the user's PATH (or
none at all) changes nothing. Each run ignores the user's ripgrep config file and never
follows a symbolic link: a repository is untrusted, and a link may lead anywhere.
"""

from __future__ import annotations

import functools
import os
import shutil
import signal
import subprocess
import sys
import sysconfig
import threading
from collections.abc import Generator, Sequence
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

# Folders that hold what was installed or generated, never what the developer wrote; a
# repository's .gitignore usually names them, but not always (and not outside git).
SKIPPED_FOLDERS = (
    ".git", "node_modules", ".venv", "venv", "site-packages", "__pycache__", ".tox", ".nox",
    ".mypy_cache", ".pytest_cache", ".ruff_cache",
)
MAX_FILE_SIZE = "10M"  # read_file's limit
STDERR_KEPT = 4_000


@functools.cache
def rg_binary() -> str | None:
    """The path of the rg the ripgrep package installed, else one on PATH, else None."""
    exe = "rg.exe" if os.name == "nt" else "rg"
    candidates: list[Path] = []
    try:
        for file in metadata.distribution("ripgrep").files or []:
            if file.name == exe:
                candidates.append(Path(str(file.locate())))
    except metadata.PackageNotFoundError:
        pass
    candidates += [Path(sysconfig.get_path("scripts")) / exe, Path(sys.executable).parent / exe]
    for candidate in candidates:
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate.resolve())
    return shutil.which(exe)


def base_arguments() -> list[str]:
    """What every run shares: no config file, dotfiles searched (.github, .env), the
    skipped folders, ignore files above the repository left out, no links followed."""
    # --no-require-git: a .gitignore says what the developer means even outside a git checkout.
    return ["--no-config", "--hidden", "--no-ignore-parent", "--no-require-git", "--no-follow", "--max-filesize", MAX_FILE_SIZE]


def skip_globs() -> list[str]:
    """Given after the model's globs: in ripgrep a later glob wins, so none of these is undone."""
    return [arg for name in SKIPPED_FOLDERS for arg in ("--glob", f"!{name}")]


@dataclass
class Run:
    """One rg process: its stdout lines as they come, then its exit code and stderr."""

    argv: list[str]
    cwd: Path
    timeout: float
    cancel: Any = None
    returncode: int | None = None
    stderr: str = ""
    timed_out: bool = False
    stopped: bool = False  # stopped by the caller once it had enough
    _proc: subprocess.Popen[bytes] | None = field(default=None, repr=False)

    def lines(self) -> Generator[bytes, None, None]:
        proc = subprocess.Popen(
            self.argv, cwd=str(self.cwd), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, start_new_session=True,
            env={**os.environ, "RIPGREP_CONFIG_PATH": "", "LC_ALL": "C.UTF-8"},
        )
        self._proc = proc
        registered = self.cancel is not None and hasattr(self.cancel, "register_process")
        if registered:
            self.cancel.register_process(proc)
        errors = bytearray()

        def drain() -> None:
            assert proc.stderr is not None
            for chunk in iter(lambda: proc.stderr.read(4096), b""):  # type: ignore[union-attr]
                if len(errors) < STDERR_KEPT:
                    errors.extend(chunk[: STDERR_KEPT - len(errors)])

        reader = threading.Thread(target=drain, daemon=True)
        reader.start()

        def expire() -> None:
            self.timed_out = True
            _kill(proc)

        timer = threading.Timer(self.timeout, expire)
        timer.daemon = True
        timer.start()
        try:
            assert proc.stdout is not None
            yield from proc.stdout
        except GeneratorExit:
            self.stopped = True  # the caller had enough
            raise
        finally:
            timer.cancel()
            if self.stopped or self.timed_out:
                _kill(proc)
            self.returncode = proc.wait()
            reader.join(1.0)
            if registered:
                self.cancel.unregister_process(proc)
            for stream in (proc.stdout, proc.stderr):
                if stream is not None:
                    stream.close()
            self.stderr = errors.decode("utf-8", "replace")

    @property
    def cancelled(self) -> bool:
        return bool(self.cancel is not None and getattr(self.cancel, "cancelled", False))


def _kill(proc: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def rg_error(stderr: str) -> str:
    """ripgrep's own complaint, without its prefix, in a few lines."""
    lines = [line.removeprefix("rg: ").rstrip() for line in stderr.splitlines() if line.strip()]
    return "\n".join(lines[:12])


def command(rg: str, *args: str | Sequence[str]) -> list[str]:
    out = [rg]
    for arg in args:
        out += [arg] if isinstance(arg, str) else list(arg)
    return out
