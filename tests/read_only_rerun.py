"""Running a test file's tests again inside a mount namespace where all but a box is read-only.

A hostile-input test whose code under test goes wrong must not be able to hurt the machine:
the outer test makes a box deep in its temp folder, and the file's own tests run again in a
namespace where everything else is mounted read-only (tests/memory/test_hostile_readonly.py's
MOUNT_SCRIPT). The inner run knows it is inside by the flag named in its environment.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.memory.test_hostile_readonly import MOUNT_SCRIPT

ROOT = Path(__file__).resolve().parents[1]


def rerun_read_only(test_file: Path, tmp_path: Path, inner_flag: str, *, timeout: float,
                    pytest_args: tuple[str, ...] = ()) -> subprocess.CompletedProcess[str]:
    """The file's tests run again with `inner_flag`=1, the box as BOX, HOME, TMPDIR and data
    folder; skips where a read-only namespace cannot be made."""
    if shutil.which("unshare") is None:
        pytest.skip("unshare is not installed, so the read-only namespace cannot be made")
    if os.geteuid() != 0:
        pytest.skip("making a mount namespace read-only needs root")
    box = tmp_path / "box"
    box.mkdir()
    env = dict(os.environ, BOX=str(box), PYTHONDONTWRITEBYTECODE="1",
               XDG_DATA_HOME=str(box / "data"), HOME=str(box / "home"), TMPDIR=str(box))
    env[inner_flag] = "1"
    # this project's own pytest options name pytest-xdist's -n: its plugins must load
    env.pop("PYTEST_DISABLE_PLUGIN_AUTOLOAD", None)
    argv = [
        "unshare", "-m", "sh", "-c", MOUNT_SCRIPT, "sh",
        sys.executable, "-m", "pytest", "-q", *pytest_args, "-n", "0", "-p", "no:cacheprovider", "-p", "no:randomly",
        f"--basetemp={box / 'pytest'}", "--rootdir", str(ROOT), str(test_file),
    ]
    done = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)
    if done.returncode == 97 or (done.returncode != 0 and done.stderr.startswith("unshare:")):
        pytest.skip(f"cannot make a read-only mount namespace here: {done.stderr.strip()[:200]}")
    return done
