"""Running a piece of store code in its own interpreter, with memory and time caps.

A hostile folder's regression is a hang or a runaway allocation; run in the test's own
process it would take the test run, or the machine, with it. Here it ends the child at
the cap and the test fails with what the child printed.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MEMORY_CAP = 1 << 30  # bytes of address space
TIME_CAP = 30.0  # seconds of wall time; CPU time is capped at the same figure


@dataclass
class Outcome:
    returncode: int | None  # None: killed at the time cap
    stdout: str
    stderr: str

    @property
    def timed_out(self) -> bool:
        return self.returncode is None


def _limits(memory: int, seconds: float) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    cpu = int(seconds) + 1
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu))


def run_capped(
    code: str, *, memory: int = MEMORY_CAP, seconds: float = TIME_CAP, env: dict[str, str] | None = None,
    wrapper: list[str] | None = None,
) -> Outcome:
    """Runs `code` with `python -c` from the project root; `wrapper` goes before it (a
    command that ends by running its arguments, such as `unshare -m sh -c '...; exec "$@"' sh`)."""
    try:
        done = subprocess.run(
            [*(wrapper or []), sys.executable, "-c", code], cwd=ROOT, env={**os.environ, **(env or {})},
            capture_output=True, text=True, timeout=seconds, preexec_fn=lambda: _limits(memory, seconds),
        )
    except subprocess.TimeoutExpired as expired:
        out = expired.stdout.decode() if isinstance(expired.stdout, bytes) else (expired.stdout or "")
        err = expired.stderr.decode() if isinstance(expired.stderr, bytes) else (expired.stderr or "")
        return Outcome(None, out, err)
    return Outcome(done.returncode, done.stdout, done.stderr)


# Python lines that fill the file system at `disk` (a name the script defines) to its last byte.
FILL_DISK = """
fill = os.open(disk / "fill", os.O_WRONLY | os.O_CREAT)
try:
    while os.write(fill, b"x" * 4096):
        pass
except OSError:
    pass
os.close(fill)
"""


def run_on_a_small_disk(code: str, disk: Path, *, seconds: float = TIME_CAP) -> Outcome:
    """`code` run capped, with a 64 KiB tmpfs mounted at `disk` in a mount namespace of its own
    and devagent's data folder on it; the test skips where that cannot be mounted."""
    import shutil

    import pytest

    if shutil.which("unshare") is None or os.geteuid() != 0:
        pytest.skip("mounting a small file system needs unshare and root")
    mount = 'mount -t tmpfs -o size=64k tmpfs "$DISK" || exit 97; exec "$@"'
    done = run_capped(code, env={"DISK": str(disk), "XDG_DATA_HOME": str(disk / "data")}, seconds=seconds,
                      wrapper=["unshare", "-m", "sh", "-c", mount, "sh"])
    if done.returncode == 97:
        pytest.skip("cannot mount a tmpfs here")
    return done
