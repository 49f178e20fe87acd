"""Names that pass for others: bidirectional controls and invisible characters are refused,
and names are stored in NFC so "café" typed two ways is one file in the pane."""

from __future__ import annotations

import os
import unicodedata

import pytest

from tests.memory.helpers import snapshot

NFC = "/memories/caf\u00e9.md"
NFD = "/memories/cafe\u0301.md"
BIDI_NAMES = ["/memories/note\u202egpj.md", "/memories/a\u2066b.md", "/memories/\u200fx.md", "/memories/d\u202a/x.md"]


def names(store) -> list[str]:
    return sorted(n for n in os.listdir(store.directory) if not n.startswith("."))


@pytest.mark.parametrize("path", BIDI_NAMES)
def test_bidirectional_controls_are_refused_everywhere(store, path):
    store.run({"command": "create", "path": "/memories/kept.md", "file_text": "x"})
    for command in (
        {"command": "create", "path": path, "file_text": "x"},
        {"command": "rename", "old_path": "/memories/kept.md", "new_path": path},
        {"command": "view", "path": path},
    ):
        text, is_error = store.run(command)
        assert is_error and "bidirectional control characters" in text, text
        assert "show as another" in text
    message, refused = store.save(path, "x")
    assert refused and "bidirectional control characters" in message
    assert names(store) == ["kept.md"]


def test_invisible_characters_are_refused(store):
    text, is_error = store.run({"command": "create", "path": "/memories/not\u200bes.md", "file_text": "x"})
    assert is_error and "invisible characters (here U+200B)" in text
    assert names(store) == []


def test_names_are_stored_in_nfc_and_either_form_finds_them(store):
    assert store.run({"command": "create", "path": NFD, "file_text": "first"})[1] is False
    assert names(store) == ["caf\u00e9.md"]
    assert store.run({"command": "create", "path": NFC, "file_text": "second"})[1] is False
    assert names(store) == ["caf\u00e9.md"]  # one file, not two that look the same
    for path in (NFC, NFD):
        text, is_error = store.run({"command": "view", "path": path})
        assert not is_error and "second" in text
    assert [m.path for m in store.memories()] == [NFC]
    assert store.run({"command": "rename", "old_path": NFC, "new_path": "/memories/Cafe\u0301-2.md"})[1] is False
    assert names(store) == [unicodedata.normalize("NFC", "Cafe\u0301-2.md")]


def test_a_file_named_by_hand_in_nfd_stays_reachable(store):
    (store.directory / "cafe\u0301.md").write_text("by hand")
    [info] = store.memories()
    assert store.read(info.path) == "by hand"
    text, is_error = store.run({"command": "str_replace", "path": NFD, "old_str": "hand", "new_str": "editor"})
    assert not is_error, text
    assert (store.directory / "cafe\u0301.md").read_text() == "by editor"
    assert names(store) == ["cafe\u0301.md"]


def test_a_file_named_by_hand_with_a_bidi_control_is_listed_as_skipped(store):
    (store.directory / "note\u202egpj.md").write_text("looks like a picture")
    (store.directory / "plain.md").write_text("fine")
    assert [m.path for m in store.memories()] == ["/memories/plain.md"]
    [skipped] = store.skipped()
    assert skipped.path == "/memories/note\\u202egpj.md"  # escaped: shown as it is, not reordered
    assert "bidirectional control" in skipped.reason and "rename it" in skipped.reason
    assert "looks like a picture" not in snapshot(store)


@pytest.mark.parametrize("field", ["name", "description"])
def test_frontmatter_shown_in_the_pane_refuses_them_too(store, field):
    text = "---\nname: build\ndescription: how to build\n---\nBody.\n".replace(f"{field}: ", f"{field}: x\u202e")
    message, is_error = store.run({"command": "create", "path": "/memories/a.md", "file_text": text})
    assert is_error and f"the {field} in /memories/a.md's frontmatter holds U+202E" in message
    assert names(store) == []


@pytest.mark.parametrize("escape", ["\\u202e", "\\u200B", "\\U0000202E", "\\xad"])
def test_a_yaml_escape_that_spells_one_is_refused_too(store, escape):
    # the text holds only ASCII; the parsed description holds the character
    text = f'---\nname: build\ndescription: "how to {escape}build"\n---\nBody.\n'
    assert text.isascii()
    message, is_error = store.run({"command": "create", "path": "/memories/a.md", "file_text": text})
    assert is_error and "the description in /memories/a.md's frontmatter holds U+" in message
    assert names(store) == []


def test_a_frontmatter_already_on_disk_does_not_block_other_edits(store):
    (store.directory / "a.md").write_text("---\nname: x\u202ey\n---\nold body\n")
    text, is_error = store.run({"command": "str_replace", "path": "/memories/a.md", "old_str": "old", "new_str": "new"})
    assert not is_error, text
