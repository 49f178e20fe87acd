"""Folders made hostile by hand: odd file names, pipes, bombs, corrupt state, modes.

Each case is something a person (or another program) can leave in a memory folder. The
store must name the file and say what to do, lose nothing, never raise and never hang.
Code that could hang or allocate without end runs in a capped child (tests/memory/capped.py).
test_hostile_readonly.py runs this module again inside a read-only mount namespace.
"""

from __future__ import annotations

import json
import os

from memory.store import MemoryStore

from .helpers import snapshot

LATIN1_NAME = os.fsdecode(b"caf\xe9.md")


def _requestable(text: str) -> bool:
    """Whether `text` can go into a request body (JSON in UTF-8), as the SDK sends it."""
    try:
        json.dumps(text, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def test_a_file_name_that_is_not_utf8_is_named_and_the_prompt_stays_sendable(tmp_path):
    from agent.memory_context import preloaded

    folder = tmp_path / "memories"
    folder.mkdir()
    (folder / LATIN1_NAME).write_text("---\nname: cafe\n---\nan old note\n")
    (folder / "kept.md").write_text("a memory\n")
    store = MemoryStore(folder)

    prompt = preloaded(store, None)
    listing, is_error = store.run({"command": "view", "path": "/memories"})

    assert _requestable(prompt) and _requestable(listing) and _requestable(snapshot(store))
    assert "caf\\xe9.md" in prompt and "not UTF-8" in prompt and "rename" in prompt
    assert "a memory" in prompt and not is_error
    assert [s.path for s in store.skipped()] == ["/memories/caf\\xe9.md"]
    assert (folder / LATIN1_NAME).read_text() == "---\nname: cafe\n---\nan old note\n"  # nothing lost
