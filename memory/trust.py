"""What the memory pane marks about trusting each memory, gathered in one read.

Per memory: the evidence behind it (its citations checked, worst first), whether it is
aging, and the findings of `devagent memory check`; findings about a whole folder; and the
agent's changes held for review, and those that met a file changed since. Loading reads
the repository and runs git: callers run it off the UI thread.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    # memory.check brings the secret scanner, whose patterns take a fifth of a second to
    # compile: the pane's first frame does without it, its first listing loads it. The
    # evidence and aging checks come with the listing too.
    from memory.check import Finding
    from memory.evidence import CitationCheck
    from memory.freshness import Freshness
    from memory.pending import Change
    from memory.seam import Store


@dataclass
class MemoryMarks:
    checks: list[CitationCheck] = field(default_factory=list)  # worst first
    findings: list[Finding] = field(default_factory=list)
    age: Freshness | None = None

    @property
    def worst(self) -> str | None:
        return self.checks[0].state if self.checks else None


@dataclass
class Trust:
    marks: dict[str, MemoryMarks] = field(default_factory=dict)
    folder_findings: list[Finding] = field(default_factory=list)  # about a whole folder (a cap)
    pending: list[Change] = field(default_factory=list)
    conflicts: list[Change] = field(default_factory=list)  # held changes that met a file changed since

    @property
    def waiting(self) -> list[Change]:
        """What waits for the user's decision: held changes, then those that met a conflict."""
        return self.pending + self.conflicts


def load_trust(store: Store, repo: Path | None, *, now: float | None = None, aging_days: int | None = None) -> Trust:
    """Everything the marks need; raises only what the caller turns into a sentence.
    `aging_days`: None for memory.freshness's default."""
    from memory.check import by_memory, check_store
    from memory.freshness import DEFAULT_AGING_DAYS, freshness
    from memory.pending import PendingChanges

    if aging_days is None:
        aging_days = DEFAULT_AGING_DAYS
    now = time.time() if now is None else now
    trust = Trust()
    for root in store.roots():
        cites_code = repo is not None and root.repo is not None
        checks = root.evidence(repo) if cites_code else {}
        findings = check_store(root, repo if cites_code else None, now=now, aging_days=aging_days, evidence=checks)
        grouped = by_memory(findings)
        for info in root.memories():
            try:
                text = Path(info.file).read_bytes().decode("utf-8", errors="replace")
            except OSError:
                text = ""
            trust.marks[info.path] = MemoryMarks(checks.get(info.path, []), grouped.pop(info.path, []),
                                                 freshness(text, info.modified, now, aging_days))
        for leftover in grouped.values():
            trust.folder_findings += leftover
    pending = PendingChanges(store)
    trust.pending = pending.list()
    trust.conflicts = pending.conflicts()
    return trust
