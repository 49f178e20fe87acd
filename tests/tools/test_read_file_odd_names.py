"""read_file on what the filesystem makes awkward: loops, long names, bytes that are not
UTF-8, and text files in the legacy single-byte encodings."""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

from agent.tools.files import ReadFileTool
from tests.tools.repos import ctx_for


def read(repo, **input):
    return ReadFileTool().run(input, ctx_for(repo))


def listing_of(folder: Path) -> set[bytes]:
    """Every name under folder, as bytes, so names that are not UTF-8 compare too."""
    found = set()
    for here, dirs, files in os.walk(os.fsencode(folder)):
        found |= {os.path.join(here, n) for n in dirs + files}
    return found


@pytest.fixture
def repo(make_repo):
    return make_repo("repo", under="a/b/c/sandbox")


def assert_sentence(result, *words):
    assert result.is_error
    assert "unexpectedly" not in result.text
    assert "Traceback" not in result.text and "Errno" not in result.text
    result.text.encode("utf-8")  # strict: nothing that a transcript write would choke on
    for word in words:
        assert word in result.text, (word, result.text)


def test_symlink_loops_get_a_sentence(repo):
    (repo / "self").symlink_to("self")
    (repo / "ping").symlink_to("pong")
    (repo / "pong").symlink_to("ping")
    before = listing_of(repo.parent)
    for path in ("self", "ping", "self/inner.txt", "pong/inner"):
        assert_sentence(read(repo, path=path), path, "loop")
    assert listing_of(repo.parent) == before


def test_a_name_over_255_bytes_gets_a_sentence(repo):
    # 128 characters but 256 bytes: the limit is in bytes, not characters.
    name = "é" * 128 + ".txt"
    result = read(repo, path=f"src/{name}")
    assert_sentence(result, "bytes", "no such file")
    assert len(result.text) < 600


def test_a_path_past_the_system_limit_gets_a_sentence(repo):
    path = "/".join(["d" * 200] * 25)  # 5,000 bytes, every part a legal name
    result = read(repo, path=path)
    assert_sentence(result, "limit", "no such file")
    assert len(result.text) < 600  # the path is quoted, not echoed whole


def test_a_path_through_a_file_gets_a_sentence(repo):
    (repo / "app.py").write_text("x = 1\n")
    assert_sentence(read(repo, path="app.py/inner"), "app.py/inner", "not a folder")


def test_names_that_are_not_utf8_are_listed_as_text_and_can_be_opened(repo):
    raw = os.fsencode(repo)
    os.mkdir(raw + b"/docs")
    with open(raw + b"/docs/caf\xe9.txt", "wb") as handle:
        handle.write(b"menu\n")
    listing = read(repo, path="docs")
    listing.text.encode("utf-8")
    assert "caf\\xe9.txt" in listing.text
    # The name as the listing showed it opens the file.
    opened = read(repo, path="docs/caf\\xe9.txt")
    assert not opened.is_error and opened.text.endswith("1\tmenu")
    opened.text.encode("utf-8")
    # The same name as Python's own escape of the byte works too.
    assert not read(repo, path="docs/caf\udce9.txt").is_error


def test_a_character_no_file_name_can_hold_gets_a_sentence(repo):
    assert_sentence(read(repo, path="docs/\ud800.txt"), "lone surrogate")


def test_escaped_bytes_cannot_spell_a_way_out(repo):
    # Only bytes 0x80-0xff are unescaped: \x2e\x2e stays text with backslashes, a name
    # of its own that no file has; "\u002e\u002e" is "..", refused as a part.
    (repo.parent / "secret.txt").write_text("outside\n")
    result = read(repo, path="\\x2e\\x2e/secret.txt")
    assert result.is_error and "there is no" in result.text
    result = read(repo, path='"\\u002e\\u002e/secret.txt"')
    assert result.is_error and "'..' segments are not allowed" in result.text


def test_latin1_text_is_read_as_text_with_a_note(repo):
    (repo / "notes.txt").write_bytes("Crème brûlée, façade, naïve, Straße\n".encode("latin-1") * 3)
    result = read(repo, path="notes.txt")
    assert not result.is_error
    assert "1\tCrème brûlée, façade, naïve, Straße" in result.text
    assert "read as Latin-1" in result.text


def test_windows_1252_text_is_read_as_text_with_a_note(repo):
    (repo / "Readme.txt").write_bytes("It\u2019s \u201cdone\u201d \u2014 \u20ac12\r\n".encode("cp1252") * 3)
    result = read(repo, path="Readme.txt")
    assert not result.is_error
    assert "1\tIt\u2019s \u201cdone\u201d \u2014 \u20ac12" in result.text
    assert "read as Windows-1252" in result.text


def test_utf8_with_a_stray_byte_stays_utf8(repo):
    (repo / "mixed.md").write_bytes("Größe und Maße\n".encode() * 5 + b"one stray \xe9 byte\n")
    result = read(repo, path="mixed.md")
    assert not result.is_error
    assert "Größe und Maße" in result.text and "shown as \ufffd" in result.text


def test_binary_without_nul_bytes_is_still_binary(repo):
    noise = random.Random(7).randbytes(4096).replace(b"\0", b"\1")
    (repo / "blob.bin").write_bytes(noise)
    result = read(repo, path="blob.bin")
    assert result.is_error and result.summary == "binary"
