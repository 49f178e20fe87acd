"""Error results quote at most about 200 characters of what the model sent.

An error result goes back with the next request: a 1 MB path quoted whole doubles that
request and every later one in the session.
"""

from __future__ import annotations

import pytest

from memory.errors import MemoryStoreError
from memory.quoting import quoted

HUGE = "x" * 1_000_000
# Within every cap (8 levels, 255 bytes a name, 1,024 characters) and still far too long to quote.
LONG_BUT_VALID = "/memories/" + "/".join(["n" * 250] * 4)
BOUND = 700  # the longest sentence of ours, with its quotes


@pytest.fixture
def filled(store):
    store.run({"command": "create", "path": "/memories/notes.md", "file_text": "a\n" * 1500})
    return store


COMMANDS = [
    {"command": "view", "path": "/memories/" + HUGE},
    {"command": "view", "path": "/memoriesX" + HUGE},
    {"command": "view", "path": HUGE},
    {"command": "view", "path": LONG_BUT_VALID},
    {"command": "view", "path": "/memories/" + "n" * 250 + "\x00"},
    {"command": "create", "path": "/memories/" + HUGE, "file_text": "x"},
    {"command": "create", "path": "/memories/" + "n" * 100 + "/" + "m" * 300, "file_text": "x"},
    {"command": "create", "path": "/memories/notes.md/" + "n" * 250, "file_text": "x"},
    {"command": "str_replace", "path": "/memories/notes.md", "old_str": HUGE, "new_str": "y"},
    {"command": "str_replace", "path": "/memories/notes.md", "old_str": "a", "new_str": "b"},
    {"command": "str_replace", "path": LONG_BUT_VALID, "old_str": "a", "new_str": "b"},
    {"command": "insert", "path": LONG_BUT_VALID, "insert_line": 0, "insert_text": "x"},
    {"command": "insert", "path": "/memories/notes.md", "insert_line": 10**9, "insert_text": HUGE},
    {"command": "delete", "path": LONG_BUT_VALID},
    {"command": "rename", "old_path": LONG_BUT_VALID, "new_path": "/memories/b.md"},
    {"command": "rename", "old_path": "/memories/notes.md", "new_path": "/memories/" + HUGE},
    {"command": HUGE, "path": "/memories"},
    {"command": "view", "path": "/memories", HUGE: 1, HUGE + "y": 2},
]


@pytest.mark.parametrize("command", COMMANDS, ids=range(len(COMMANDS)))
def test_every_error_result_is_short(filled, command):
    text, is_error = filled.run(command)
    assert is_error, text
    assert len(text) <= BOUND, (len(text), text[:300])


def test_the_editor_and_the_reader_quote_short_too(store):
    message, refused = store.save("/memories/" + HUGE, "x")
    assert refused and len(message) <= BOUND
    message, refused = store.save(LONG_BUT_VALID, "sk-ant-api03-" + "Q" * 95)
    assert refused and len(message) <= BOUND, message
    with pytest.raises(MemoryStoreError) as caught:
        store.read("/memories/" + HUGE)
    assert len(str(caught.value)) <= BOUND
    with pytest.raises(MemoryStoreError) as caught:
        store.read(LONG_BUT_VALID)
    assert len(str(caught.value)) <= BOUND


def test_a_quote_keeps_both_ends_and_says_what_was_cut():
    text = "/memories/" + "a" * 1000 + "/end.md"
    shown = quoted(text)
    assert len(shown) <= 200
    assert shown.startswith("/memories/aaa") and shown.endswith("aaa/end.md")
    cut = len(text) - len(shown.split("…")[0]) - len(shown.split("…")[-1])
    assert f"[{cut:,} characters]" in shown
    assert quoted("short") == "short"
