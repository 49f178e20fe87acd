"""The editor's writes stay in the repository when its folders and files are swapped under it.

A repository's own code (a test script, a build step) runs while the agent works, so it
can turn a folder the agent checked into a link out, or put a pipe, a device or a huge
file where a change waits. A real process flips the folder (renameat2 RENAME_EXCHANGE
swaps a real folder and a link to a folder outside, so the name is never missing) while
the editor creates files in it, in auto mode and as held changes applied with Enter; undo
meets a swapped folder too. Nothing may land outside, no `.tmp-*` may be left anywhere,
and a pipe or device must never block nor be read whole.

The module runs again inside a private mount namespace with everything but the sandbox
mounted read-only (the outer test, as test_editor_hostile.py does); its race tests run
only there, so a write that escaped could not land anywhere real.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from agent.cancel import Cancellation
from agent.tools.base import ToolContext
from agent.tools.editor import confined_files
from agent.tools.editor.change_set import ChangeSet, FileChange, Write
from agent.tools.editor.journal import Record, recover, undo_last
from agent.tools.text_editor import TextEditorTool
from tests.memory.capped import run_capped
from tests.read_only_rerun import rerun_read_only

INNER = os.environ.get("EDITOR_SWAPS_INNER") == "1"
ROUNDS = 100
inner_only = pytest.mark.skipif(not INNER, reason="runs inside the read-only mount namespace (the outer test)")

# Swaps repo/sub (a real folder) and repo/.parked (a link to the outside folder) for ever:
# the real folder stays inside the repository, the name `sub` is a link out half the time.
FLIPPER = textwrap.dedent("""
    import ctypes, os, sys
    libc = ctypes.CDLL(None, use_errno=True)
    a, b = os.fsencode(sys.argv[1]), os.fsencode(sys.argv[2])
    print("flipping", flush=True)
    while True:
        libc.renameat2(-100, a, -100, b, 2)  # AT_FDCWD, RENAME_EXCHANGE
""")


def sandbox(base: Path) -> tuple[Path, Path, Path]:
    box = base / "deep" / "in" / "a" / "sandbox"
    repo = box / "work" / "repo"
    (repo / "sub").mkdir(parents=True)
    (repo / "src").mkdir()
    (repo / "src" / "app.py").write_text("print('hi')\n")
    outside = box / "outside"
    outside.mkdir()
    (repo / ".parked").symlink_to(outside, target_is_directory=True)
    return box, repo, outside


class Flipper:
    def __init__(self, repo: Path) -> None:
        self.repo = repo
        self.process = subprocess.Popen([sys.executable, "-c", FLIPPER, str(repo / "sub"), str(repo / ".parked")],
                                        stdout=subprocess.PIPE, text=True)
        assert self.process.stdout is not None and self.process.stdout.readline() == "flipping\n"

    def stop(self) -> None:
        self.process.kill()
        self.process.wait()
        if (self.repo / "sub").is_symlink():  # leave the real folder at its own name
            os.rename(self.repo / "sub", self.repo / ".swap")
            os.rename(self.repo / ".parked", self.repo / "sub")
            os.rename(self.repo / ".swap", self.repo / ".parked")


def strays(box: Path, outside: Path) -> tuple[list[str], list[str]]:
    landed = sorted(p.name for p in outside.rglob("*") if not p.name.startswith(".tmp-"))
    temps = sorted(str(p) for p in box.rglob(".tmp-*"))
    return landed, temps


def report(what: str, landed: list[str], temps: list[str], written: int) -> str:
    line = f"{what}: {len(landed)} of {ROUNDS} landed outside, {len(temps)} .tmp-* left, {written} written inside"
    print(line)
    return line


@inner_only
def test_auto_creates_in_a_flipping_folder_never_land_outside(tmp_path):
    box, repo, outside = sandbox(tmp_path)
    tool = TextEditorTool("auto")
    flipper = Flipper(repo)
    try:
        for n in range(ROUNDS):
            tool.run({"command": "create", "path": f"sub/new{n}.txt", "file_text": f"{n}\n"}, ToolContext(repo))
    finally:
        flipper.stop()
    landed, temps = strays(box, outside)
    line = report("auto", landed, temps, len(list((repo / "sub").glob("new*.txt"))))
    assert landed == [] and temps == [], line


@inner_only
def test_held_creates_applied_while_the_folder_flips_never_land_outside(tmp_path):
    box, repo, outside = sandbox(tmp_path)
    tool = TextEditorTool("review")
    held = []
    for n in range(ROUNDS):
        tool.run({"command": "create", "path": f"sub/held{n}.txt", "file_text": f"{n}\n"}, ToolContext(repo))
        held.append(tool.held)
        tool.held = None
    flipper = Flipper(repo)
    try:
        said = []
        for change_set in held:
            assert change_set is not None
            try:
                said.append(change_set.apply())
            except OSError as err:  # the user would see a failure, not a sentence
                said.append(f"raised {err!r}")
    finally:
        flipper.stop()
    landed, temps = strays(box, outside)
    line = report("enter", landed, temps, len(list((repo / "sub").glob("held*.txt"))))
    assert landed == [] and temps == [], line
    assert all(s.startswith(("Applied", "Not applied")) for s in said), said[:3]


def swap_to_link(repo: Path) -> None:
    os.rename(repo / "sub", repo / ".swap")
    os.rename(repo / ".parked", repo / "sub")


@inner_only
def test_a_held_create_whose_folder_became_a_link_is_not_applied(tmp_path):
    box, repo, outside = sandbox(tmp_path)
    tool = TextEditorTool("review")
    tool.run({"command": "create", "path": "sub/new.txt", "file_text": "x\n"}, ToolContext(repo))
    change_set = tool.held
    assert change_set is not None
    swap_to_link(repo)  # the repository's test script, run in the same reply
    said = change_set.apply()
    assert said.startswith("Not applied") and "sub/new.txt" in said, said
    assert change_set.state != "applied"
    assert strays(box, outside) == ([], [])


@inner_only
def test_undo_through_a_folder_that_became_a_link_touches_nothing_outside(tmp_path):
    box, repo, outside = sandbox(tmp_path)
    tool = TextEditorTool("auto")
    ctx = ToolContext(repo, Cancellation())
    assert not tool.run({"command": "create", "path": "sub/new.txt", "file_text": "x\n"}, ctx).is_error
    assert not tool.run({"command": "create", "path": "src/app.py", "file_text": "print('bye')\n"}, ctx).is_error
    (outside / "new.txt").write_text("x\n")  # the same text, so only the path can tell them apart
    swap_to_link(repo)
    said = tool.undo_turn(ctx.cancel, repo)
    assert said is not None and said.startswith("Not undone") and "sub/new.txt" in said, said
    assert (outside / "new.txt").read_text() == "x\n"
    assert sorted(p.name for p in outside.iterdir()) == ["new.txt"]
    assert (repo / "src" / "app.py").read_text() == "print('bye')\n"  # all or nothing
    assert strays(box, outside)[1] == []


@pytest.fixture(params=["openat2", "walk"])
def way(request, monkeypatch):
    """Both ways down to the folder: one openat2 call, and the walk a folder at a time."""
    monkeypatch.setattr(confined_files, "use_openat2", request.param == "openat2")
    return request.param


@inner_only
def test_devagent_undo_while_the_folder_flips_removes_nothing_outside(tmp_path, way):
    box, repo, outside = sandbox(tmp_path)
    for n in range(ROUNDS):  # what each undo would remove if it went through the link
        (outside / f"undo{n}.txt").write_text(f"{n}\n")
    tool = TextEditorTool("auto")
    flipper = Flipper(repo)
    undone = 0
    try:
        for n in range(ROUNDS):
            made = tool.run({"command": "create", "path": f"sub/undo{n}.txt", "file_text": f"{n}\n"}, ToolContext(repo))
            if not made.is_error:
                undone += undo_last(repo)[0]  # `devagent undo`: the journal read back, then the files
    finally:
        flipper.stop()
    gone = [n for n in range(ROUNDS) if not (outside / f"undo{n}.txt").exists()]
    temps = strays(box, outside)[1]
    line = f"undo ({way}): {len(gone)} of {ROUNDS} removed a file outside, {len(temps)} .tmp-* left, {undone} undone"
    print(line)
    assert gone == [] and temps == [], line


def _cut_short(repo: Path, n: int) -> Write:
    """The record of a create in sub/ whose process died before writing it (its temporary file named)."""
    full = repo.resolve() / "sub" / f"late{n}.py"
    change = ChangeSet(f"cut-short-{n}", 1, [FileChange(f"sub/late{n}.py", full, None, "late\n", None, repo.resolve())],
                       "applied")
    write = Write(f"sub/late{n}.py", full, None, "late\n", None, root=repo.resolve())
    Record(repo, [(change, "a-dead-session")], "applied").begin([write])
    return write


@inner_only
def test_settling_writes_cut_short_while_the_folder_flips_touches_nothing_outside(tmp_path):
    box, repo, outside = sandbox(tmp_path)
    baits = []
    flipper = Flipper(repo)
    try:
        for n in range(ROUNDS):
            write = _cut_short(repo, n)
            bait = outside / write.temp  # a file outside bearing the temporary file's very name
            bait.write_text("not devagent's\n")
            baits.append(bait)
            recover(repo)  # the next start: the temporaries swept, the set finished or rolled back
    finally:
        flipper.stop()
    removed = [b.name for b in baits if not b.exists()]
    landed = sorted(p.name for p in outside.iterdir() if p not in baits)
    line = f"settle: {len(removed)} of {ROUNDS} removed a file outside, {len(landed)} landed outside"
    print(line)
    assert removed == [] and landed == [], line


@inner_only
def test_a_folder_turned_link_is_named_as_such_when_a_change_is_refused(tmp_path):
    _, repo, _ = sandbox(tmp_path)
    tool = TextEditorTool("review")
    tool.run({"command": "create", "path": "sub/new.txt", "file_text": "x\n"}, ToolContext(repo))
    change_set = tool.held
    assert change_set is not None
    swap_to_link(repo)
    said = change_set.apply()
    assert said.startswith("Not applied") and "sub/new.txt" in said, said
    assert "symbolic link" in said and "changed on disk" not in said, said


# --- a pipe, a device or a huge file where a change waits ------------------------------------

SWAPPED = textwrap.dedent("""
    import os, stat, sys, time
    from pathlib import Path
    from agent.cancel import Cancellation
    from agent.tools.base import ToolContext
    from agent.tools.text_editor import TextEditorTool
    repo, kind = Path(os.environ["SWAP_REPO"]), os.environ["SWAP_KIND"]
    app = repo / "src" / "app.py"
    tool = TextEditorTool("review")
    ctx = ToolContext(repo, Cancellation())
    tool.run({"command": "str_replace", "path": "src/app.py", "old_str": "hi", "new_str": "bye"}, ctx)
    held = tool.held
    tool.held = None
    def swap():
        app.unlink()
        if kind == "fifo":
            os.mkfifo(app)
        elif kind == "zero":
            os.mknod(app, 0o644 | stat.S_IFCHR, os.makedev(1, 5))
        else:
            with open(app, "wb") as big:
                big.truncate(3 << 30)
    swap()
    started = time.monotonic()
    said = held.apply()
    print("apply", round(time.monotonic() - started, 1), said.replace(chr(10), " "), flush=True)
    # and the same for undo: apply for real, then swap, then undo (the app's key, and devagent undo)
    app.unlink(); app.write_text("print('hi')\\n")
    tool = TextEditorTool("auto")
    tool.run({"command": "str_replace", "path": "src/app.py", "old_str": "hi", "new_str": "bye"}, ctx)
    swap()
    started = time.monotonic()
    said = tool.undo_turn(ctx.cancel, repo)
    print("undo", round(time.monotonic() - started, 1), said.replace(chr(10), " "), flush=True)
""")


@inner_only
@pytest.mark.parametrize("kind", ["fifo", "zero", "huge"])
def test_a_pipe_device_or_huge_file_swapped_in_is_a_conflict_at_once(tmp_path, kind):
    if kind == "zero" and os.geteuid() != 0:
        pytest.skip("making a device node needs root")
    _, repo, _ = sandbox(tmp_path)
    done = run_capped(SWAPPED, seconds=20, memory=1 << 30, env={"SWAP_REPO": str(repo), "SWAP_KIND": kind})
    assert not done.timed_out, f"hung: {done.stdout} {done.stderr[-800:]}"
    assert done.returncode == 0, done.stdout + done.stderr[-1500:]
    rows = done.stdout.splitlines()
    assert [r.split(" ")[0] for r in rows] == ["apply", "undo"], rows
    for row in rows:
        _, seconds, said = row.split(" ", 2)
        assert float(seconds) < 2 and said.startswith(("Not applied", "Not undone")) and "src/app.py" in said, row
    info = os.lstat(repo / "src" / "app.py")
    assert {"fifo": stat.S_ISFIFO, "zero": stat.S_ISCHR, "huge": stat.S_ISREG}[kind](info.st_mode)  # left as it was


@inner_only
def test_inner_run_really_is_read_only(tmp_path):
    (tmp_path / "probe").write_text("ok")
    with pytest.raises(OSError):
        (Path(__file__).parent / "probe-should-fail").write_text("no")


@pytest.mark.slow
def test_swaps_under_a_read_only_mount_namespace(tmp_path):
    if INNER:
        pytest.skip("already inside")
    done = rerun_read_only(Path(__file__), tmp_path, "EDITOR_SWAPS_INNER", timeout=400, pytest_args=("-s",))
    print(done.stdout[-3000:])
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    summary = done.stdout.strip().splitlines()[-1]
    assert "12 passed, 1 skipped" in summary, done.stdout[-2000:]  # only this outer test skipped
