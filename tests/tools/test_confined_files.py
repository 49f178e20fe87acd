"""The confined read and write primitives, on both ways down: openat2 and the O_NOFOLLOW walk."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from agent.tools.editor import confined_files as cf


@pytest.fixture(params=["openat2", "walk"])
def way(request, monkeypatch):
    monkeypatch.setattr(cf, "use_openat2", request.param == "openat2")
    return request.param


@pytest.fixture
def layout(tmp_path):
    root = tmp_path / "repo"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_bytes(b"print(1)\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("BAIT\n")
    return root, outside


def strays(root: Path) -> list[str]:
    return [str(p) for p in root.rglob(".tmp-*")]


def test_read_and_replace_a_file_and_make_missing_folders(layout, way):
    root, _ = layout
    assert cf.read_file(root, root / "src" / "app.py", 100) == b"print(1)\n"
    assert cf.read_file(root, root / "src" / "none.py", 100) is None
    assert cf.read_file(root, root / "nope" / "deeper" / "x.py", 100) is None
    cf.replace_file(root, root / "new" / "deep" / "x.py", b"x = 1\n", 0o640)
    assert (root / "new" / "deep" / "x.py").read_bytes() == b"x = 1\n"
    assert stat.S_IMODE((root / "new" / "deep" / "x.py").stat().st_mode) == 0o640
    assert strays(root) == []


@pytest.mark.parametrize("where", ["folder", "deep folder", "file"])
def test_a_link_on_the_way_is_refused_for_reads_writes_and_removals(layout, way, where):
    root, outside = layout
    if where == "file":
        (root / "src" / "link.py").symlink_to(outside / "secret.txt")
        target = root / "src" / "link.py"
    else:
        (root / "out").symlink_to(outside, target_is_directory=True)
        target = root / "out" / ("secret.txt" if where == "folder" else "new/x.txt")
    with pytest.raises(cf.LinkRefused) if where != "file" else pytest.raises(OSError):
        cf.read_file(root, target, 100)
    if where != "file":
        with pytest.raises(cf.LinkRefused):
            cf.replace_file(root, target, b"escaped", 0o644)
        with pytest.raises(cf.LinkRefused):
            cf.remove_file(root, target)
    else:  # the link itself is replaced, never what it points at
        cf.replace_file(root, target, b"inside", 0o644)
        assert not target.is_symlink() and target.read_bytes() == b"inside"
    assert sorted(p.name for p in outside.rglob("*")) == ["secret.txt"]
    assert (outside / "secret.txt").read_text() == "BAIT\n"
    assert strays(root) == []


def test_a_pipe_a_device_and_a_large_file_are_never_read(layout, way):
    root, _ = layout
    os.mkfifo(root / "pipe")
    with pytest.raises(cf.NotRegular):
        cf.read_file(root, root / "pipe", 100)  # would block for ever without O_NONBLOCK and fstat
    (root / "big").write_bytes(b"x" * 101)
    with pytest.raises(cf.TooLarge):
        cf.read_file(root, root / "big", 100)
    if os.geteuid() == 0:
        os.mknod(root / "zero", 0o600 | stat.S_IFCHR, os.makedev(1, 5))
        with pytest.raises(cf.NotRegular):
            cf.read_file(root, root / "zero", 100)


def test_replacing_keeps_the_mode_xattrs_and_owner_the_file_has_now(layout, way):
    root, _ = layout
    app = root / "src" / "app.py"
    app.chmod(0o751)
    try:
        os.setxattr(app, "user.devagent-test", b"kept")
    except OSError:
        pytest.skip("this file system takes no user extended attributes")
    if os.geteuid() == 0:
        os.chown(app, 1234, 5678)
    cf.replace_file(root, app, b"print(2)\n", 0o644)
    info = app.stat()
    assert app.read_bytes() == b"print(2)\n"
    assert stat.S_IMODE(info.st_mode) == 0o751
    assert os.getxattr(app, "user.devagent-test") == b"kept"
    if os.geteuid() == 0:
        assert (info.st_uid, info.st_gid) == (1234, 5678)


def test_names_that_are_not_plain_are_refused(layout):
    root, _ = layout
    with pytest.raises(ValueError):
        cf.parts_of(root, root)
    with pytest.raises(ValueError):
        cf.parts_of(root, root / ".." / "x")
