"""The Friday memory of the cited variant: the one the reference scenario's model wrote,
which cites the call site it means to finish on Monday, with frontmatter and an index line.

Fingerprinted through the store on Friday, it lets Monday's prompt say whether that call
site is still as the memory says (memory/evidence.py).
"""

from __future__ import annotations

CITED_PATH = "/memories/project_rename.md"
CITED_MEMORY = """---
name: Patch to Diff rename
type: project
description: the rename of ChangedFile.Patch to Diff and what is left of it
---
Project memory (ClaudeReviewBot), updated 2026-11-06

- Developer cares most about src/ClaudeReviewBot.Core. The CLI project is just a wrapper; lower priority.
- Branch rename-patch-to-diff: renaming ChangedFile.Patch to Diff.
- Open build error: src/ClaudeReviewBot.Core/Review/ReviewOrchestrator.cs line 111 still uses file.Patch. Developer will finish this himself on Monday (2026-11-09). Don't fix it unless asked.
- Developer says CS1591 is noise and nullable warnings are real.
"""
CITED_INDEX = "- [Patch to Diff rename](project_rename.md) — the rename of ChangedFile.Patch to Diff and what is left of it\n"
