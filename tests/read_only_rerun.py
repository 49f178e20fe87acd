"""Running a test file's tests again inside a mount namespace where all but a box is read-only.

A hostile-input test whose code under test goes wrong must not be able to hurt the machine:
the outer test makes a box deep in its temp folder, and the file's own tests run again in a
namespace where everything else is mounted read-only (MOUNT_SCRIPT). The inner run knows it
is inside by the flag named in its environment.
"""

from __future__ import annotations

import os
import resource
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

MOUNT_SCRIPT = (
    "mount --make-rprivate / && mount --bind \"$BOX\" \"$BOX\" || { echo 'namespace: mount failed' >&2; exit 97; }; "
    "for m in $(awk '{print $2}' /proc/self/mounts | sort -u); do "
    "case \"$m\" in \"$BOX\"|/proc|/proc/*|/sys|/sys/*|/dev|/dev/*) continue;; esac; "
    "mount -o remount,bind,ro \"$m\" 2>/dev/null || true; done; "
    "if touch /.devagent-probe 2>/dev/null; then rm -f /.devagent-probe; echo 'namespace: root still writable' >&2; exit 97; fi; "
    'exec "$@"'
)


def _caps() -> None:
    """A regression that hangs or allocates without end stops at these, not at the machine's."""
    resource.setrlimit(resource.RLIMIT_AS, (6 << 30, 6 << 30))
    resource.setrlimit(resource.RLIMIT_CPU, (300, 300))


def rerun_read_only(test_files: Path | Sequence[Path], tmp_path: Path, inner_flag: str, *, timeout: float,
                    pytest_args: tuple[str, ...] = (), inner_value: str = "1", box: Path | None = None,
                    env_extra: dict[str, str] | None = None, prefix: Sequence[str] = (),
                    ) -> subprocess.CompletedProcess[str]:
    """The files' tests run again with `inner_flag`=`inner_value`, the box (made in
    `tmp_path` unless given) as BOX, HOME, TMPDIR and data folder, under `prefix` (a command
    that runs the rest) inside the namespace; skips where a read-only namespace cannot be made."""
    if shutil.which("unshare") is None:
        pytest.skip("unshare is not installed, so the read-only namespace cannot be made")
    if os.geteuid() != 0:
        pytest.skip("making a mount namespace read-only needs root")
    if box is None:
        box = tmp_path / "box"
        box.mkdir()
    env = dict(os.environ, BOX=str(box), PYTHONDONTWRITEBYTECODE="1",
               XDG_DATA_HOME=str(box / "data"), HOME=str(box / "home"), TMPDIR=str(box))
    env[inner_flag] = inner_value
    env.update(env_extra or {})
    # this project's own pytest options name pytest-xdist's -n: its plugins must load
    env.pop("PYTEST_DISABLE_PLUGIN_AUTOLOAD", None)
    argv = [
        "unshare", "-m", "sh", "-c", MOUNT_SCRIPT, "sh", *prefix,
        sys.executable, "-m", "pytest", "-q", *pytest_args, "-n", "0", "-p", "no:cacheprovider", "-p", "no:randomly",
        f"--basetemp={box / 'pytest'}", "--rootdir", str(ROOT),
        *(str(f) for f in ([test_files] if isinstance(test_files, Path) else test_files)),
    ]
    done = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout,
                          preexec_fn=_caps)
    if done.returncode == 97 or (done.returncode != 0 and done.stderr.startswith("unshare:")):
        pytest.skip(f"cannot make a read-only mount namespace here: {done.stderr.strip()[:200]}")
    return done
