"""The "Tidy memory" turn: the findings of `memory check`, handed to the model as a request.

In review mode the fixes it proposes arrive as held changes, like any other memory write.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from agent import prompts
from memory.secrets import mask_secrets

if TYPE_CHECKING:
    from memory.check import Finding
    from memory.seam import Store


def findings_for(store: Store, repo: Path | None, aging_days: int) -> list[Finding]:
    """The findings of every folder the session sees (the repository's and the user's)."""
    from memory.check import check_store

    found: list[Finding] = []
    for root in store.roots():
        found += check_store(root, repo if root.repo is not None else None, aging_days=aging_days)
    return found


def tidy_request(findings: list[Finding]) -> str | None:
    """The user turn that asks for the fixes; None when there is nothing to tidy."""
    if not findings:
        return None
    lines = [f"- {f.path} ({f.kind}): {f.detail}" for f in findings]
    text = prompts.tidy_request() + "\n\n" + "\n".join(lines)
    return mask_secrets(text)[0]
