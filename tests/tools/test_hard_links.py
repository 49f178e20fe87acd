"""A hard link's text is not shown; an edit gives the name a file of its own.

A file with more than one name (st_nlink > 1) may share its bytes with a file anywhere on
the disk, a private one outside the repository included, and nothing cheap tells that
apart from a second name inside the repository. So read_file, search and the editor's
view show no such file (search names it among the matches not shown), and an edit
replaces the name with a new file, leaving every other name with the old text, which the
tool result says: create, which replaces the whole text; str_replace and insert, which
build on the hidden text, are refused (they would answer whether a guess is in it, and
copy the rest into a file read_file shows). Everything lives in the test's own temporary
folder.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agent.cancel import Cancellation
from agent.tools.base import ToolContext
from agent.tools.editor.journal import undo_last
from agent.tools.files import ReadFileTool
from agent.tools.search import SearchTool
from agent.tools.text_editor import TextEditorTool
from tests.repos import git_repo

PRIVATE = "PRIVATE-WORDS only the user may read\n"


def _linked(tmp_path: Path, where: str = "outside") -> tuple[Path, Path, Path]:
    """(repo, the repository's name of the file, its other name) with plain.txt beside it."""
    repo = git_repo(tmp_path / "work" / "repo", {"plain.txt": "PRIVATE-WORDS are named here too\n"}, commit=True)
    if where == "outside":
        other = tmp_path / "home" / ".ssh" / "id_private"
    else:
        other = repo / "docs" / "copy.txt"
    other.parent.mkdir(parents=True)
    other.write_text(PRIVATE)
    name = repo / "notes" / "notes.txt"
    name.parent.mkdir()
    os.link(other, name)
    return repo, name, other


@pytest.mark.parametrize("where", ["outside", "inside"])
def test_read_file_search_and_view_show_no_text_of_a_hard_link(tmp_path, where):
    repo, _name, _other = _linked(tmp_path, where)
    ctx = ToolContext(repo)
    read = ReadFileTool().run({"path": "notes/notes.txt"}, ctx)
    assert read.is_error and "hard link" in read.text and "2 names" in read.text and "PRIVATE" not in read.text
    view = TextEditorTool("auto").run({"command": "view", "path": "notes/notes.txt"}, ctx)
    assert view.is_error and "hard link" in view.text and "PRIVATE" not in view.text
    found = SearchTool().run({"pattern": "only the"}, ctx)
    assert "user may read" not in found.text and "notes/notes.txt" in found.text and "hard link" in found.text
    both = SearchTool().run({"pattern": "PRIVATE-WORDS"}, ctx)
    assert "plain.txt:1: PRIVATE-WORDS are named here too" in both.text  # the file of one name is shown
    assert "user may read" not in both.text and "notes/notes.txt" in both.text and "hard link" in both.text


def test_a_name_whose_other_name_is_gone_is_a_file_of_one_name_again(tmp_path):
    repo, _name, other = _linked(tmp_path)
    other.unlink()
    read = ReadFileTool().run({"path": "notes/notes.txt"}, ToolContext(repo))
    assert not read.is_error and "PRIVATE-WORDS" in read.text


@pytest.mark.parametrize("command", ["str_replace", "insert"])
def test_an_edit_that_builds_on_the_hidden_text_is_refused_and_changes_nothing(tmp_path, command):
    # it would tell whether a guess is in the text, and copy the rest into a file of one name
    repo, name, other = _linked(tmp_path)
    inputs = {"str_replace": {"old_str": "PRIVATE-WORDS", "new_str": "x"}, "insert": {"insert_line": 0, "insert_text": "x\n"}}
    result = TextEditorTool("auto").run({"command": command, "path": "notes/notes.txt", **inputs[command]},
                                        ToolContext(repo, cancel=Cancellation()))
    assert result.is_error and "hard link" in result.text and "create" in result.text and "PRIVATE" not in result.text
    assert name.stat().st_ino == other.stat().st_ino and other.stat().st_nlink == 2 and other.read_text() == PRIVATE


def test_create_replaces_the_link_and_leaves_the_other_name_as_it_was(tmp_path):
    repo, name, other = _linked(tmp_path)
    inode = other.stat().st_ino
    ctx = ToolContext(repo, cancel=Cancellation())
    result = TextEditorTool("auto").run({"command": "create", "path": "notes/notes.txt", "file_text": "a new text\n"}, ctx)
    assert not result.is_error, result.text
    assert "was a hard link" in result.text and "the other name of the old file keeps the text it had" in result.text
    assert "PRIVATE" not in result.text
    assert other.read_text() == PRIVATE and other.stat().st_ino == inode and other.stat().st_nlink == 1
    assert name.stat().st_ino != inode and name.stat().st_nlink == 1 and name.read_text() == "a new text\n"
    undone, said = undo_last(repo)
    assert undone, said
    assert name.read_text() == PRIVATE and other.read_text() == PRIVATE and name.stat().st_ino != inode


def test_a_held_edit_of_a_hard_link_says_so_once_applied(tmp_path):
    repo, name, other = _linked(tmp_path)
    tool = TextEditorTool("review")
    ctx = ToolContext(repo, cancel=Cancellation())
    held = tool.run({"command": "create", "path": "notes/notes.txt", "file_text": "public\n"}, ctx)
    assert held.held is not None and "was a hard link" in held.held.said
    assert tool.held is not None
    tool.held.apply(tool.record(tool.held, repo))
    assert other.read_text() == PRIVATE and name.read_text().startswith("public")
