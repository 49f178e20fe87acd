"""Generated paths and texts never create, read or delete anything outside the folder.

The store sits deep inside a sandbox full of bait: files above it, a sibling folder whose
name shares its prefix (the TypeScript SDK's GHSA-5474-4w2j-mq4c), and symlinks planted
inside it that lead out. After every generated command the sandbox outside the folder
must be byte for byte what it was, and no result may carry bait text.

test_hostile_readonly.py runs this module again with everything but the sandbox mounted
read-only, so a write that escaped would fail loudly instead of landing somewhere real.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memory.errors import MemoryStoreError
from memory.store import MemoryStore

BAIT = "BAIT-7f3c-do-not-read"
INNER = os.environ.get("MEMORY_HOSTILE_INNER") == "1"


def build_sandbox(base: Path) -> tuple[Path, Path]:
    """(sandbox, store folder); the store folder is eight levels down."""
    sandbox = base / "sandbox"
    folder = sandbox.joinpath("a", "b", "c", "d", "e", "f", "g", "memories")
    folder.mkdir(parents=True)
    for level in (sandbox, sandbox / "a", sandbox / "a" / "b" / "c", folder.parent):
        (level / "bait.md").write_text(f"{BAIT} at {level.name}\n")
    evil = folder.parent / "memories-evil"
    evil.mkdir()
    (evil / "bait.md").write_text(f"{BAIT} in the sibling\n")
    (folder.parent / "memoriesX").mkdir()
    (folder.parent / "memoriesX" / "bait.md").write_text(f"{BAIT} in memoriesX\n")
    (folder / "out").symlink_to(sandbox / "a", target_is_directory=True)
    (folder / "up.md").symlink_to(folder.parent / "bait.md")
    (folder / "loop").symlink_to(folder / "loop")
    (folder / "kept.md").write_text("a memory\n")
    return sandbox, folder


def outside_snapshot(sandbox: Path, *folders: Path) -> dict[str, bytes | str]:
    """Everything in the sandbox except the store folders' own contents (each folder itself
    is still there, as a folder)."""
    seen: dict[str, bytes | str] = {}
    for directory, dirnames, filenames in os.walk(sandbox):
        here = Path(directory)
        if any(here == folder or folder in here.parents for folder in folders):
            dirnames[:] = []
            continue
        for name in dirnames + filenames:
            path = here / name
            rel = str(path.relative_to(sandbox))
            if path.is_symlink():
                seen[rel] = "link->" + os.readlink(path)
            elif path.is_file():
                seen[rel] = path.read_bytes()
            else:
                seen[rel] = "dir"
    return seen


SEGMENTS = [
    "..", ".", "", "...", "....", "..%2f", "%2e%2e", "%2E%2E%2F", "..\\..", "..;", "~", "$HOME",
    "bait.md", "memories", "memories-evil", "memoriesX", "out", "up.md", "loop", "kept.md", "a",
    "etc", "passwd", "C:", "c:\\windows", "\x00", "a\x00b", "\n", "名前", "x" * 300, " ", "-",
    ".hidden", ".lock", ".tmp-1-ab", "*", "?", "[x]", "'", '"', "new.md", "dir",
]
PREFIXES = ["/memories", "/memories/", "/memoriesX", "/memories-evil", "/memories/..", "", "/", "memories", "//memories", "/memories/out", "\\memories"]

segments = st.one_of(st.sampled_from(SEGMENTS), st.text(max_size=12))
hostile_paths = st.builds(
    lambda prefix, parts, tail: prefix + ("/" if parts and not prefix.endswith("/") else "") + "/".join(parts) + tail,
    st.sampled_from(PREFIXES),
    st.lists(segments, max_size=5),
    st.sampled_from(["", "/", "/.", "/..", ".md"]),
) | st.sampled_from(
    [
        "/memories/../bait.md",
        "/memories/../../../../../../../../bait.md",
        "/memories/../memories-evil/bait.md",
        "/memoriesX/bait.md",
        "/memories-evil/bait.md",
        "/memories/out/bait.md",
        "/memories/out/b/c/bait.md",
        "/memories/up.md",
        "/memories/loop",
        "/memories/loop/x.md",
        "/etc/passwd",
        "/memories/%2e%2e/bait.md",
    ]
)
texts = st.one_of(st.text(max_size=40), st.sampled_from(["", BAIT, "x\n" * 3]))

commands = st.one_of(
    st.builds(lambda p, r: {"command": "view", "path": p, "view_range": r}, hostile_paths,
              st.one_of(st.none(), st.lists(st.integers(-3, 5), min_size=2, max_size=2))),
    st.builds(lambda p, t: {"command": "create", "path": p, "file_text": t}, hostile_paths, texts),
    st.builds(lambda p, o, n: {"command": "str_replace", "path": p, "old_str": o, "new_str": n},
              hostile_paths, st.sampled_from(["a", "BAIT", "memory", "\n"]), texts),
    st.builds(lambda p, i, t: {"command": "insert", "path": p, "insert_line": i, "insert_text": t},
              hostile_paths, st.integers(-1, 3), texts),
    st.builds(lambda p: {"command": "delete", "path": p}, hostile_paths),
    st.builds(lambda o, n: {"command": "rename", "old_path": o, "new_path": n}, hostile_paths, hostile_paths),
    # Whatever else the model might send: wrong types, extra fields, no command.
    st.dictionaries(st.sampled_from(["command", "path", "old_path", "new_path", "file_text", "view_range", "insert_line"]),
                    st.one_of(st.none(), st.integers(), st.floats(allow_nan=True), st.text(max_size=8),
                              st.lists(st.integers(), max_size=3), hostile_paths), max_size=4),
)

HOSTILE_SETTINGS = settings(
    max_examples=150 if not INNER else 80,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    database=None if INNER else settings.default.database,
)


@pytest.mark.slow
@HOSTILE_SETTINGS
@given(sequence=st.lists(commands, min_size=1, max_size=6))
def test_generated_commands_stay_inside_the_folder(tmp_path_factory, sequence):
    sandbox, folder = build_sandbox(tmp_path_factory.mktemp("hostile"))
    before = outside_snapshot(sandbox, folder)
    store = MemoryStore(folder)
    planted = False  # once a command itself carries bait text, reading it back is fine
    for command in sequence:
        planted = planted or any(isinstance(v, str) and BAIT in v for v in command.values())
        text, is_error = store.run(command)
        assert isinstance(text, str) and isinstance(is_error, bool)
        if not planted:
            assert BAIT not in text, command
    assert outside_snapshot(sandbox, folder) == before
    # Nothing the store wrote inside the folder is a link that leads out.
    for directory, _, filenames in os.walk(folder):
        for name in filenames:
            path = Path(directory) / name
            if not path.is_symlink():
                assert str(path.resolve()).startswith(str(folder.resolve()) + os.sep)


@pytest.mark.slow
@HOSTILE_SETTINGS
@given(path=hostile_paths, text=texts)
def test_editor_calls_stay_inside_the_folder(tmp_path_factory, path, text):
    sandbox, folder = build_sandbox(tmp_path_factory.mktemp("editor"))
    before = outside_snapshot(sandbox, folder)
    store = MemoryStore(folder)
    message, _ = store.save(path, text)
    assert BAIT not in message or BAIT in text
    store.delete(path)
    try:
        content = store.read(path)
    except MemoryStoreError:
        content = ""
    assert BAIT not in content or BAIT in text
    assert outside_snapshot(sandbox, folder) == before


def test_known_escapes_are_refused(tmp_path):
    sandbox, folder = build_sandbox(tmp_path)
    before = outside_snapshot(sandbox, folder)
    store = MemoryStore(folder)
    for path in (
        "/memories/../bait.md",
        "/memories/../memories-evil/bait.md",
        "/memoriesX/bait.md",
        "/memories/out/bait.md",
        "/memories/up.md",
    ):
        for command in (
            {"command": "view", "path": path},
            {"command": "create", "path": path, "file_text": "overwritten"},
            {"command": "str_replace", "path": path, "old_str": "BAIT", "new_str": "x"},
            {"command": "insert", "path": path, "insert_line": 0, "insert_text": "x"},
            {"command": "delete", "path": path},
            {"command": "rename", "old_path": path, "new_path": "/memories/stolen.md"},
            {"command": "rename", "old_path": "/memories/kept.md", "new_path": path},
        ):
            text, is_error = store.run(command)
            assert is_error, (command, text)
            assert BAIT not in text
    assert outside_snapshot(sandbox, folder) == before
    assert (folder / "kept.md").read_text() == "a memory\n"


@pytest.mark.skipif(not INNER, reason="only meaningful inside the read-only mount namespace")
def test_inner_run_really_is_read_only(tmp_path):
    """Proves the namespace: the sandbox is writable, the project tree is not."""
    (tmp_path / "probe").write_text("ok")
    with pytest.raises(OSError):
        (Path(__file__).parent / "probe-should-fail").write_text("no")
