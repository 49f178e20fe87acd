"""Runs a tool's command so that a turn can always get rid of it.

Each command starts in its own session (a new process group), so a timeout or a cancelled
turn kills the whole tree: `dotnet build` and `npm test` start workers that outlive their
parent if only the parent is killed.
"""

from __future__ import annotations

import io
import os
import shutil
import signal
import subprocess
import threading
import time
from collections import deque
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from agent.tools.toolchain.user_environment import user_environment

if TYPE_CHECKING:
    from agent.tools.toolchain.sandbox import Sandbox

# Build logs of big solutions reach megabytes; the parser needs the errors, which MSBuild
# repeats in its summary at the end, so past this limit the middle is dropped.
MAX_OUTPUT_CHARS = 4_000_000
# How long stragglers that inherited the output pipe may keep it open after the command
# itself has exited, before the group is killed so the read can finish.
PIPE_GRACE_SECONDS = 1.0
TERM_GRACE_SECONDS = 2.0
POLL_SECONDS = 0.05


@dataclass
class Outcome:
    returncode: int | None
    output: str
    duration: float
    timed_out: bool = False
    cancelled: bool = False
    output_cut: bool = False

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and not self.timed_out and not self.cancelled


def _is_cancelled(cancel: Any) -> bool:
    return bool(cancel is not None and getattr(cancel, "cancelled", False))


def _kill_group(proc: subprocess.Popen[bytes], sig: int) -> None:
    try:
        os.killpg(proc.pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _stop(proc: subprocess.Popen[bytes]) -> None:
    # SIGKILL the group even when the leader obeyed SIGTERM: its children may not have.
    for sig in (signal.SIGTERM, signal.SIGKILL):
        _kill_group(proc, sig)
        try:
            proc.wait(TERM_GRACE_SECONDS)
        except subprocess.TimeoutExpired:
            pass


class _Reader(threading.Thread):
    """Drains the pipe so a chatty build never blocks on a full buffer.

    Keeps the first and the last half of the limit; chunks, not lines, because a build
    printing a million short lines would otherwise spend its time in this loop.
    """

    def __init__(self, stream: io.BufferedReader, on_output: Callable[[bytes], None] | None = None) -> None:
        super().__init__(daemon=True)
        self.stream = stream
        self.on_output = on_output  # each chunk as it comes (the screen pane's live view)
        self.head = bytearray()
        self.tail: deque[bytes] = deque()
        self.tail_size = 0
        self.cut = False

    def run(self) -> None:
        half = MAX_OUTPUT_CHARS // 2
        try:
            while True:
                chunk = self.stream.read1(65536)
                if not chunk:
                    break
                if self.on_output is not None:
                    self._tell(chunk)
                if len(self.head) < half:
                    room = half - len(self.head)
                    self.head += chunk[:room]
                    chunk = chunk[room:]
                    if not chunk:
                        continue
                self.tail.append(chunk)
                self.tail_size += len(chunk)
                while len(self.tail) > 1 and self.tail_size - len(self.tail[0]) >= half:
                    self.tail_size -= len(self.tail.popleft())
                    self.cut = True
        except (OSError, ValueError):
            pass

    def _tell(self, chunk: bytes) -> None:
        try:
            self.on_output(chunk)  # type: ignore[misc]
        except Exception:
            self.on_output = None  # a viewer that failed sees no more; the output is still kept

    def text(self) -> str:
        tail = b"".join(self.tail)
        if not self.cut:
            return (bytes(self.head) + tail).decode("utf-8", errors="replace")
        # Cut at line ends, so neither side starts or ends with half a line.
        head = bytes(self.head)
        head = head[: head.rfind(b"\n") + 1] or head
        tail = tail[tail.find(b"\n") + 1 :] if b"\n" in tail else tail
        marker = b"\n[... output cut here: too long to keep ...]\n"
        return (head + marker + tail).decode("utf-8", errors="replace")


def run_command(
    argv: Sequence[str],
    cwd: Path,
    *,
    timeout: float,
    cancel: Any = None,
    env: Mapping[str, str] | None = None,
    drop: Collection[str] = (),
    sandbox: Sandbox | None = None,
    on_output: Callable[[bytes], None] | None = None,
) -> Outcome:
    """Runs argv with stdout and stderr merged. FileNotFoundError if the program is missing.

    The program is looked up on the PATH the command gets, not devagent's own. `env` is
    added to the user's environment, after the variables named in `drop` are taken out.
    With a `sandbox`, the command runs inside it (agent.tools.toolchain.sandbox), with only
    the variables it lets through of the user's and `env` over them. `on_output` hears each
    chunk of output as it comes, from the reading thread.
    """
    start = time.monotonic()
    if _is_cancelled(cancel):
        return Outcome(None, "", 0.0, cancelled=True)
    passed: tuple[int, ...] = ()
    full_env = user_environment()  # the user's, not devagent's own virtualenv
    for name in drop:
        full_env.pop(name, None)
    if sandbox is not None:
        from agent.tools.toolchain import sandbox as sandboxes

        full_env = sandboxes.environment(full_env, env)
        if "/" not in argv[0] and shutil.which(argv[0], path=full_env.get("PATH")) is None:
            raise FileNotFoundError(argv[0])
        where, repo_fd = sandboxes.inside(cwd, sandbox.repo)
        argv = sandbox.argv(argv, where, full_env, repo_fd=repo_fd)
        passed = (repo_fd,) if repo_fd is not None else ()
    elif env:
        full_env.update(env)
    proc = subprocess.Popen(
        list(argv),
        cwd=str(cwd),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env=full_env,
        start_new_session=True,
        pass_fds=passed,
    )
    registered = cancel is not None and hasattr(cancel, "register_process")
    if registered:
        cancel.register_process(proc)
    # stdout=PIPE with the default buffering is a BufferedReader, whose read1 the reader uses
    reader = _Reader(cast(io.BufferedReader, proc.stdout), on_output)
    reader.start()
    timed_out = cancelled = False
    try:
        timed_out, cancelled = _wait(proc, reader, start + timeout, cancel)
    finally:
        _let_go(proc, reader, cancel if registered else None)
    # Cancellation may come from cancel() killing the group while we waited.
    if not cancelled and _is_cancelled(cancel) and proc.returncode != 0:
        cancelled = True
    return Outcome(
        returncode=proc.returncode,
        output=reader.text(),
        duration=time.monotonic() - start,
        timed_out=timed_out,
        cancelled=cancelled,
        output_cut=reader.cut,
    )


def _wait(proc: subprocess.Popen[bytes], reader: _Reader, deadline: float, cancel: Any) -> tuple[bool, bool]:
    """Waits for the command, a cancel or the deadline, then for the pipe: (timed out, cancelled)."""
    timed_out = cancelled = False
    while True:
        try:
            proc.wait(POLL_SECONDS)
            break
        except subprocess.TimeoutExpired:
            pass
        if _is_cancelled(cancel):
            cancelled = True
            _stop(proc)
            break
        if time.monotonic() >= deadline:
            timed_out = True
            _stop(proc)
            break
    reader.join(PIPE_GRACE_SECONDS)
    if reader.is_alive():
        _kill_group(proc, signal.SIGKILL)
        reader.join(PIPE_GRACE_SECONDS)
    return timed_out, cancelled


def _let_go(proc: subprocess.Popen[bytes], reader: _Reader, registered_with: Any) -> None:
    if registered_with is not None and hasattr(registered_with, "unregister_process"):
        registered_with.unregister_process(proc)
    if proc.poll() is None:  # only when something above raised
        _stop(proc)
    # A straggler that left our process group (setsid) may still hold the pipe, and the
    # reader is blocked in read holding the stream's lock: closing would block too. The
    # daemon thread ends when that process lets go.
    if not reader.is_alive():
        try:
            reader.stream.close()
        except OSError:
            pass
