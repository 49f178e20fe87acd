"""Memory follows the code: an applied change that alters what a memory cites says so.

Right after a change set is written, the memories' evidence (memory/evidence.py) is
checked against the new working tree, and every citation into a changed file that is no
longer intact is named in the tool result, so the model can mark a plan done or delete a
note in the same turn (through the memory tool, held for review when memory writes are).
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING

from agent.tools.editor.change_set import ChangeSet

if TYPE_CHECKING:
    from memory.seam import Store

log = logging.getLogger("devagent.code_changes")
MAX_NAMED = 8


def _touches(cite: str, paths: list[str]) -> bool:
    return any(cite.startswith(path) or cite.startswith(Path(path).name) for path in paths)


def cited_note(store: Store, change_set: ChangeSet, repo: Path) -> str | None:
    """A few sentences on the memories whose cited code this change set altered, or None."""
    from memory.evidence import INTACT, UNRECORDED

    try:
        evidence = store.evidence(repo)
    except Exception as err:  # the memory folder is busy or unreadable: the change stands
        log.warning("the evidence check after change set %s failed: %s", change_set.id, err)
        return None
    paths = [f.path for f in change_set.files]
    lines = []
    for memory, checks in sorted(evidence.items()):
        hit = [c for c in checks if _touches(c.cite, paths) and c.state not in (INTACT, UNRECORDED)]
        if hit:
            lines.append(f"- {memory}: " + "; ".join(c.sentence() for c in hit))
    if not lines:
        return None
    more = f"\n- ... and {len(lines) - MAX_NAMED} more" if len(lines) > MAX_NAMED else ""
    return (
        "Memory follows the code: this change altered code that these memories cite, so their evidence now says so:\n"
        + "\n".join(lines[:MAX_NAMED]) + more
        + "\nIf what such a memory records is now done or no longer true, update or delete it with the memory tool."
    )
