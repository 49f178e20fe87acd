"""The hostile-path tests again, with everything but their sandbox mounted read-only.

Inside a private mount namespace (`unshare -m`, needs root), every mount is remounted
read-only except one sandbox folder, and pytest runs test_hostile_paths.py (and
test_hostile_roots.py, the user folder and held changes, and test_hostile_folders.py,
folders made hostile by hand) with its
temporary files in that sandbox. A write that escaped the memory folder would then fail
with EROFS, or land in the sandbox where the inner tests look for it, instead of touching
the real machine.
"""

from __future__ import annotations

import os
import resource
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

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


@pytest.mark.slow
def test_hostile_module_under_a_read_only_mount_namespace(tmp_path):
    if shutil.which("unshare") is None:
        pytest.skip("unshare is not installed, so the read-only namespace cannot be made")
    if os.geteuid() != 0:
        pytest.skip("making a mount namespace read-only needs root")
    box = tmp_path / "box"
    box.mkdir()
    env = dict(
        os.environ,
        BOX=str(box),
        MEMORY_HOSTILE_INNER="1",
        PYTHONDONTWRITEBYTECODE="1",
        XDG_DATA_HOME=str(box / "data"),
        HOME=str(box / "home"),
        TMPDIR=str(box),
    )
    argv = [
        "unshare", "-m", "sh", "-c", MOUNT_SCRIPT, "sh",
        sys.executable, "-m", "pytest", "-q", "-n", "0", "-p", "no:cacheprovider", "-p", "no:randomly",
        f"--basetemp={box / 'pytest'}", "--rootdir", str(ROOT),
        str(ROOT / "tests" / "memory" / "test_hostile_paths.py"),
        str(ROOT / "tests" / "memory" / "test_hostile_roots.py"),
        str(ROOT / "tests" / "memory" / "test_hostile_folders.py"),
    ]
    done = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=240, preexec_fn=_caps)
    if done.returncode == 97 or (done.returncode != 0 and done.stderr.startswith("unshare:")):
        pytest.skip(f"cannot make a read-only mount namespace here: {done.stderr.strip()[:200]}")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    # The probe test ran (nothing skipped), so the namespace really was read-only.
    summary = done.stdout.strip().splitlines()[-1]
    assert "passed" in summary and "skipped" not in summary, done.stdout[-2000:]
    leftovers = [p for p in box.rglob("*") if "pytest" not in p.parts and p.name not in ("data", "home")]
    assert leftovers == [], leftovers
