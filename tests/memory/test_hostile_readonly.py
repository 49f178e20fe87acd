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

from pathlib import Path

import pytest

from tests.read_only_rerun import rerun_read_only

HERE = Path(__file__).resolve().parent


@pytest.mark.slow
def test_hostile_module_under_a_read_only_mount_namespace(tmp_path):
    files = [HERE / "test_hostile_paths.py", HERE / "test_hostile_roots.py", HERE / "test_hostile_folders.py"]
    done = rerun_read_only(files, tmp_path, "MEMORY_HOSTILE_INNER", timeout=240)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    # The probe test ran (nothing skipped), so the namespace really was read-only.
    summary = done.stdout.strip().splitlines()[-1]
    assert "passed" in summary and "skipped" not in summary, done.stdout[-2000:]
    box = tmp_path / "box"
    leftovers = [p for p in box.rglob("*") if "pytest" not in p.parts and p.name not in ("data", "home")]
    assert leftovers == [], leftovers
