"""Repository paths named in a memory that no longer exist."""

from __future__ import annotations

from pathlib import Path

import pytest

from memory.staleness import missing_references, references
from memory.store import MemoryStore
from tests.memory.helpers import git


@pytest.fixture
def repo(tmp_path) -> Path:
    repo = tmp_path / "repo"
    for rel, lines in {
        "src/ClaudeReviewBot.Core/Review/ReviewOrchestrator.cs": 150,
        "src/ClaudeReviewBot.Cli/Program.cs": 20,
        "README.md": 3,
        "tools/settings.py": 10,
    }.items():
        path = repo / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(f"line {i}\n" for i in range(lines)))
    git(repo, "init", "-q")
    return repo


NOTE = """---
name: project-rename
description: Renaming Patch to Diff; see src/Old/Gone.cs
type: project
---

- Open: src/ClaudeReviewBot.Core/Review/ReviewOrchestrator.cs:111 still uses file.Patch.
- Also `src/ClaudeReviewBot.Core/Review/ChangedFile.cs` line 12 and src/ClaudeReviewBot.Cli/Program.cs:400.
- Build with dotnet build src/ClaudeReviewBot.Core (not the CLI).
- settings.py holds the options; README.md explains them; Makefile is gone.
- Docs: https://example.com/src/page.md and ~/notes/todo.md and /etc/hosts are not repository paths.
- Ratio 3/4 on 2026/11/06, and/or later; e.g. this, i.e. that; version 1.2.3; CS1591.
- Old folder: `docs/adr/` was removed. See [[user-role]].
"""


def test_references_found_in_a_note(repo):
    found = references(NOTE, repo)
    assert ("src/ClaudeReviewBot.Core/Review/ReviewOrchestrator.cs", 111) in found
    assert ("src/ClaudeReviewBot.Core/Review/ChangedFile.cs", None) in found
    assert ("src/ClaudeReviewBot.Core", None) in found
    assert ("docs/adr", None) in found
    names = {path for path, _ in found}
    for prose in ("and/or", "3/4", "2026/11/06", "e.g", "i.e", "1.2.3", "CS1591", "file.Patch", "/etc/hosts"):
        assert prose not in names
    assert not any("example.com" in name or name.startswith("notes") for name in names)


def test_missing_references(repo):
    assert missing_references(NOTE, repo) == [
        "src/Old/Gone.cs",
        "src/ClaudeReviewBot.Core/Review/ChangedFile.cs",
        "src/ClaudeReviewBot.Cli/Program.cs:400",
        "Makefile",
        "docs/adr",
    ]


def test_store_reports_stale_memories_only(repo, tmp_path):
    store = MemoryStore(tmp_path / "m")
    store.run({"command": "create", "path": "/memories/project_rename.md", "file_text": NOTE})
    store.run({"command": "create", "path": "/memories/fresh.md", "file_text": "README.md and tools/settings.py:3 exist\n"})
    store.run({"command": "create", "path": "/memories/MEMORY.md", "file_text": "- [Gone](src/nowhere.cs)\n"})
    stale = store.stale_references(repo)
    assert stale == {
        "/memories/project_rename.md": [
            "src/Old/Gone.cs",
            "src/ClaudeReviewBot.Core/Review/ChangedFile.cs",
            "src/ClaudeReviewBot.Cli/Program.cs:400",
            "Makefile",
            "docs/adr",
        ]
    }


def test_a_fix_in_the_repository_clears_the_report(repo, tmp_path):
    store = MemoryStore(tmp_path / "m")
    store.run({"command": "create", "path": "/memories/a.md", "file_text": "see src/New/Thing.cs:2\n"})
    assert store.stale_references(repo) == {"/memories/a.md": ["src/New/Thing.cs:2"]}
    (repo / "src" / "New").mkdir()
    (repo / "src" / "New" / "Thing.cs").write_text("a\nb\n")
    assert store.stale_references(repo) == {}


def test_of_the_frontmatter_only_the_description_is_checked(repo):
    text = "---\nname: Makefile\ndescription: about src/Old/Gone.cs\ntype: project\n---\nbody\n"
    assert missing_references(text, repo) == ["src/Old/Gone.cs"]


def test_a_line_range_is_stale_when_its_end_is_past_the_file(repo):
    # tools/settings.py has 10 lines.
    assert missing_references("see tools/settings.py:3-10 and tools/settings.py:2:40", repo) == []
    assert missing_references("see tools/settings.py:3-11", repo) == ["tools/settings.py:11"]
    assert missing_references("see tools/settings.py:12-14", repo) == ["tools/settings.py:12", "tools/settings.py:14"]
