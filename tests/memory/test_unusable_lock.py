"""A lock file that is a folder, a link or unreadable, and a read-only memory folder.

Reads (`view`, the listing, preloading, the pane's load) go on; every write gets a result
naming the lock file or the folder and what to do, and changes nothing.

Running as root, chmod stops nobody, so the unreadable lock is tested in a child that
has dropped the capabilities that let root past file modes (setpriv), and the read-only
folder in a private mount namespace where it is a read-only bind mount (unshare -m),
with everything else but the sandbox read-only too, as in test_hostile_readonly.py.
"""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from memory.errors import MemoryNotWritable
from memory.lock import LOCK_NAME
from memory.store import MemoryStore
from tests.memory.helpers import snapshot
from tests.memory.test_hostile_paths import outside_snapshot
from tests.read_only_rerun import rerun_read_only

ROOT = Path(__file__).resolve().parents[2]
INNER = os.environ.get("MEMORY_UNUSABLE_INNER", "")
NOTE = "---\nname: build\ndescription: how to build\ntype: project\n---\nBuild with make.\n"
INDEX = "- [build](kept.md) — how to build\n"

WRITES = [
    {"command": "create", "path": "/memories/new.md", "file_text": "new"},
    {"command": "create", "path": "/memories/kept.md", "file_text": "overwritten"},
    {"command": "str_replace", "path": "/memories/kept.md", "old_str": "make", "new_str": "cmake"},
    {"command": "insert", "path": "/memories/kept.md", "insert_line": 0, "insert_text": "first"},
    {"command": "delete", "path": "/memories/kept.md"},
    {"command": "rename", "old_path": "/memories/kept.md", "new_path": "/memories/moved.md"},
]


def make_folder(base: Path) -> tuple[Path, Path]:
    """(sandbox, memory folder nested in it) with one memory and its index line."""
    sandbox = base / "sandbox"
    folder = sandbox / "a" / "b" / "memories"
    folder.mkdir(parents=True)
    (folder / "kept.md").write_text(NOTE)
    (folder / "MEMORY.md").write_text(INDEX)
    (sandbox / "bait.txt").write_text("bait, not a lock\n")
    return sandbox, folder


def folder_bytes(folder: Path) -> dict[str, bytes]:
    """The memory files, byte for byte (the lock file's bytes mean nothing)."""
    return {p.name: p.read_bytes() for p in folder.iterdir() if p.name != LOCK_NAME and p.is_file()}


def check_reads_go_on_and_writes_say_what_to_do(folder: Path, fragments: list[str]) -> None:
    from agent.recall.memory_modes import preloaded_memory
    from tui.widgets.memory.listing import load_listing

    before = folder_bytes(folder)
    store = MemoryStore(folder)
    text, is_error = store.run({"command": "view", "path": "/memories"})
    assert not is_error and "/memories/kept.md" in text, text
    text, is_error = store.run({"command": "view", "path": "/memories/kept.md"})
    assert not is_error and "Build with make." in text, text
    assert [m.path for m in store.memories()] == ["/memories/kept.md"]
    assert store.read("/memories/kept.md") == NOTE and store.index_text() == INDEX
    assert "Build with make." in snapshot(store)
    assert "Build with make." in preloaded_memory(store, folder)
    listing = load_listing(store)
    assert listing.problem is None and [m.name for m in listing.memories] == ["build"]

    for command in WRITES:
        text, is_error = store.run(command)
        assert is_error, (command, text)
        for fragment in [*fragments, "reading memory still works"]:
            assert fragment in text, (command, text)
    message, refused = store.save("/memories/kept.md", "from the editor")
    assert refused and all(f in message for f in fragments), message
    with pytest.raises(MemoryNotWritable) as caught:
        store.reindex()
    assert all(f in str(caught.value) for f in fragments)
    assert folder_bytes(folder) == before


def test_a_lock_that_is_a_folder(tmp_path):
    sandbox, folder = make_folder(tmp_path)
    (folder / LOCK_NAME).mkdir()
    outside = outside_snapshot(sandbox, folder)
    lock = os.path.realpath(folder / LOCK_NAME)
    check_reads_go_on_and_writes_say_what_to_do(folder, [lock, "is a folder, not a file", "Remove that folder"])
    assert outside_snapshot(sandbox, folder) == outside


@pytest.mark.parametrize("target", ["bait.txt", "nowhere.txt"], ids=["to-a-file", "dangling"])
def test_a_lock_that_is_a_link(tmp_path, target):
    sandbox, folder = make_folder(tmp_path)
    (folder / LOCK_NAME).symlink_to(sandbox / target)
    outside = outside_snapshot(sandbox, folder)
    lock = os.path.realpath(folder) + os.sep + LOCK_NAME
    check_reads_go_on_and_writes_say_what_to_do(folder, [lock, "is a symbolic link", "Delete the link"])
    assert outside_snapshot(sandbox, folder) == outside
    assert not (sandbox / "nowhere.txt").exists()


def run_inner(case: str, box: Path, folder: Path, prefix: list[str]) -> subprocess.CompletedProcess:
    return rerun_read_only(Path(__file__), box.parent, "MEMORY_UNUSABLE_INNER", timeout=240, inner_value=case, box=box,
                           env_extra={"RO": str(folder), "MEMORY_UNUSABLE_FOLDER": str(folder)}, prefix=prefix,
                           pytest_args=("-k", f"inner_{case.replace('-', '_')}"))


def namespace_or_skip() -> None:
    if shutil.which("unshare") is None or shutil.which("setpriv") is None:
        pytest.skip("unshare and setpriv are needed to take root's powers away")
    if os.geteuid() != 0:
        pytest.skip("making a mount namespace read-only needs root")


READ_ONLY_BIND = 'mount --bind "$RO" "$RO" && mount -o remount,bind,ro "$RO" || exit 97; exec "$@"'
WITHOUT_FILE_MODE_OVERRIDE = ["setpriv", "--bounding-set=-dac_override,-dac_read_search,-fowner"]


@pytest.mark.slow
@pytest.mark.parametrize("case", ["read-only", "unreadable"])
def test_in_a_read_only_mount_namespace(tmp_path, case):
    namespace_or_skip()
    box = tmp_path / "box"
    box.mkdir()
    sandbox, folder = make_folder(box)
    (folder / LOCK_NAME).write_bytes(b"")
    if case == "unreadable":
        (folder / LOCK_NAME).chmod(0)
        prefix = WITHOUT_FILE_MODE_OVERRIDE
    else:
        prefix = ["sh", "-c", READ_ONLY_BIND, "sh"]
    before = folder_bytes(folder)
    outside = outside_snapshot(sandbox, folder)
    done = run_inner(case, box, folder, prefix)
    if done.returncode == 97 or (done.returncode != 0 and done.stderr.startswith(("unshare:", "setpriv:"))):
        pytest.skip(f"cannot take root's powers away here: {done.stderr.strip()[:200]}")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "1 passed" in done.stdout, done.stdout[-2000:]
    assert folder_bytes(folder) == before
    assert outside_snapshot(sandbox, folder) == outside
    leftovers = [p for p in box.rglob("*") if "pytest" not in p.parts and sandbox not in p.parents and p != sandbox]
    assert leftovers == [], leftovers


@pytest.mark.skipif(INNER != "read-only", reason="runs inside test_in_a_read_only_mount_namespace")
def test_inner_read_only():
    folder = Path(os.environ["MEMORY_UNUSABLE_FOLDER"])
    with pytest.raises(OSError) as caught:
        (folder / "probe").write_text("x")
    assert caught.value.errno == errno.EROFS
    check_reads_go_on_and_writes_say_what_to_do(
        folder, [f"memory folder {os.path.realpath(folder)} is read-only", "Make it writable"]
    )


@pytest.mark.skipif(INNER != "unreadable", reason="runs inside test_in_a_read_only_mount_namespace")
def test_inner_unreadable():
    folder = Path(os.environ["MEMORY_UNUSABLE_FOLDER"])
    lock = os.path.realpath(folder / LOCK_NAME)
    with pytest.raises(PermissionError):
        os.open(lock, os.O_RDWR)
    check_reads_go_on_and_writes_say_what_to_do(folder, [lock, "cannot be opened", f"chmod 600 {lock}"])
