"""The trust read the memory pane marks from, without the pane: memory/ gathers it, tui/
only draws it."""

from __future__ import annotations

import os
import time

from memory.pending import PendingChanges
from memory.trust import load_trust

NOTE = "---\nname: core\ntype: project\ndescription: which project matters\n---\nThe Core project matters.\n"


def test_the_trust_read_marks_aging_and_lists_held_changes(store):
    store.run({"command": "create", "path": "/memories/old.md", "file_text": NOTE})
    store.run({"command": "create", "path": "/memories/new.md", "file_text": NOTE.replace("core", "cli")})
    old = next(m.file for m in store.memories() if m.path == "/memories/old.md")
    then = time.time() - 90 * 86400
    os.utime(old, (then, then))
    PendingChanges(store).hold({"command": "delete", "path": "/memories/new.md"})

    trust = load_trust(store, None, aging_days=30)

    assert set(trust.marks) == {"/memories/old.md", "/memories/new.md"}
    assert trust.marks["/memories/old.md"].age.aging
    assert not trust.marks["/memories/new.md"].age.aging
    assert trust.marks["/memories/old.md"].worst is None  # no repository: no citations checked
    assert [c.summary for c in trust.waiting] == ["delete /memories/new.md"]
    assert trust.conflicts == []
