"""The two folders and held changes under generated hostile commands: nothing outside the
repository's folder and the user's is created, read or changed, whichever folder a path
names, and accepting a held change is as confined as running it.

Both folders sit deep inside the bait sandbox of test_hostile_paths.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memory.pending import PendingChanges
from memory.roots import USER_ROOT, MemoryRoots
from memory.store import MemoryStore
from tests.memory.test_hostile_paths import (
    BAIT,
    HOSTILE_SETTINGS,
    build_sandbox,
    commands,
    hostile_paths,
    outside_snapshot,
    texts,
)


def two_roots(base: Path) -> tuple[Path, list[Path], MemoryRoots]:
    sandbox, folder = build_sandbox(base)
    user = folder.parent / "user-memory"
    user.mkdir()
    (user / "out").symlink_to(sandbox / "a", target_is_directory=True)
    (user / "terse.md").write_text("short answers\n")
    memory = MemoryRoots(MemoryStore(folder), MemoryStore(user, root=USER_ROOT))
    return sandbox, [folder, user], memory


user_paths = st.builds(lambda p: USER_ROOT + p[len("/memories"):] if p.startswith("/memories") else p, hostile_paths)
either = st.one_of(hostile_paths, user_paths)
user_commands = st.one_of(
    commands,
    st.builds(lambda p, t: {"command": "create", "path": p, "file_text": t}, user_paths, texts),
    st.builds(lambda p: {"command": "view", "path": p}, user_paths),
    st.builds(lambda p: {"command": "delete", "path": p}, user_paths),
    st.builds(lambda o, n: {"command": "rename", "old_path": o, "new_path": n}, either, either),
)


@pytest.mark.slow
@HOSTILE_SETTINGS
@given(sequence=st.lists(user_commands, min_size=1, max_size=6))
def test_both_folders_keep_generated_commands_inside(tmp_path_factory, sequence):
    sandbox, folders, memory = two_roots(tmp_path_factory.mktemp("roots"))
    before = outside_snapshot(sandbox, *folders)
    planted = False
    for command in sequence:
        planted = planted or any(isinstance(v, str) and BAIT in v for v in command.values())
        text, is_error = memory.run(command)
        assert isinstance(text, str) and isinstance(is_error, bool)
        if not planted:
            assert BAIT not in text, command
    assert outside_snapshot(sandbox, *folders) == before


@pytest.mark.slow
@HOSTILE_SETTINGS
@given(sequence=st.lists(user_commands, min_size=1, max_size=5))
def test_held_then_accepted_changes_stay_inside(tmp_path_factory, sequence):
    sandbox, folders, memory = two_roots(tmp_path_factory.mktemp("held"))
    before = outside_snapshot(sandbox, *folders)
    pending = PendingChanges(memory)
    for command in sequence:
        text, is_error = pending.hold(command)
        assert isinstance(text, str) and isinstance(is_error, bool)
        assert BAIT not in text or any(isinstance(v, str) and BAIT in v for v in command.values())
    for message, _ in pending.decide_all(pending.accept):
        assert isinstance(message, str)
    assert outside_snapshot(sandbox, *folders) == before


def test_known_escapes_through_the_user_folder_are_refused(tmp_path):
    sandbox, folders, memory = two_roots(tmp_path)
    before = outside_snapshot(sandbox, *folders)
    # /memories/userX is a folder of the repository's memory, not the user's: only nothing there to read.
    assert memory.run({"command": "view", "path": f"{USER_ROOT}X/bait.md"}) == (
        f"The path {USER_ROOT}X/bait.md does not exist. Please provide a valid path.", True)
    for path in (f"{USER_ROOT}/../../bait.md", f"{USER_ROOT}/out/bait.md", "/memories/user/../user/../../bait.md"):
        for command in (
            {"command": "view", "path": path},
            {"command": "create", "path": path, "file_text": "overwritten"},
            {"command": "delete", "path": path},
            {"command": "rename", "old_path": "/memories/kept.md", "new_path": path},
        ):
            text, is_error = memory.run(command)
            assert BAIT not in text and is_error, (command, text)
    assert memory.run({"command": "delete", "path": USER_ROOT})[1] is True
    assert outside_snapshot(sandbox, *folders) == before
    assert (folders[0] / "kept.md").read_text() == "a memory\n"
    assert (folders[1] / "terse.md").read_text() == "short answers\n"
