"""Claude Code's auto memory about a repository, offered once: each file read, never
written, at its source, copied with its source noted and held for the user's review."""

from __future__ import annotations

import os

from agent.instructions.claude_memory import bring_in, offer, slugs, sources, with_source
from memory.pending import PendingChanges
from memory.roots import open_memory
from tests.repos import git_repo

NOTE = ("---\nname: feedback-push-aggressively\ndescription: push without asking\nmetadata:\n  type: feedback\n---\n"
        "Commit and push after each change.\n")


def _auto_memory(home, repo, files):
    folder = home / ".claude" / "projects" / slugs(repo)[0] / "memory"
    folder.mkdir(parents=True)
    for name, text in files.items():
        (folder / name).write_text(text)
    return folder


def test_the_notes_are_held_for_review_with_their_source_and_the_sources_stay_as_they_are(tmp_path):
    home = tmp_path / "home"
    repo = git_repo(tmp_path / "raw-ai", {"a.txt": "a\n"}, commit=True)
    secret = tmp_path / "secret.md"
    secret.write_text("not a note of this repository\n")
    folder = _auto_memory(home, repo, {"MEMORY.md": "- [Push aggressively](feedback_push.md)\n",
                                       "feedback_push.md": NOTE})
    os.symlink(secret, folder / "linked.md")
    before = {p.name: p.read_bytes() for p in folder.iterdir() if not p.is_symlink()}
    found = offer(repo, home)
    assert [s.target for s in found] == ["/memories/claude-code/claude-code-index.md", "/memories/claude-code/feedback_push.md"]
    store = open_memory(repo)
    pending = PendingChanges(store)
    outcomes = bring_in(repo, pending, found)
    assert all(said.startswith("Held for review") for _, said in outcomes)
    held = {c.path: c for c in pending.list()}
    assert set(held) == {s.target for s in found}
    copy = held["/memories/claude-code/feedback_push.md"].after
    assert copy.startswith("---\nname: feedback-push-aggressively") and f"Claude Code's auto memory, {folder / 'feedback_push.md'}" in copy
    assert store.current_text("/memories/claude-code/feedback_push.md") is None  # nothing in memory before review
    assert {p.name: p.read_bytes() for p in folder.iterdir() if not p.is_symlink()} == before
    assert offer(repo, home) == []  # once


def test_no_folder_no_offer(tmp_path):
    repo = git_repo(tmp_path / "shop", {"a.txt": "a\n"})
    assert sources(repo, tmp_path / "home") == [] and offer(repo, tmp_path / "home") == []


def test_the_source_line_goes_after_the_frontmatter_or_first():
    from pathlib import Path

    from agent.instructions.claude_memory import Source

    plain = with_source(Source(Path("/x/n.md"), "/memories/claude-code/n.md", "Just text.\n"))
    assert plain.startswith("(Brought in from Claude Code's auto memory, /x/n.md") and plain.endswith("Just text.\n")
