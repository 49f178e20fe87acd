"""A reply's held code changes, settled with the user before the model hears back.

In review the text editor tool only holds each write of a reply (agent.tools.editor);
once every tool of the reply has run, `settle` shows the whole change set (a
`CodeChangeHeld` event carries it, and whoever shows it calls `decide` on it), waits for
the decision, applies the set or keeps the files, and puts the outcome into the held
calls' tool results. A cancelled turn applies nothing. `devagent ask` decides "keep" as it
prints the diff, so a script sees what would have changed and nothing is written.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from agent.code_changes import ChangeSet
from agent.tools.base import ToolContext

log = logging.getLogger("devagent.code_changes")

ASK = (
    "Not applied: devagent ask applies nothing while code writes are in review; the diff was printed for the "
    "user, who can apply it or run again with --code-writes auto."
)
KEPT = "Not applied: the user kept {files} as it is. Ask what they want instead before changing it again."
CANCELLED = "Not applied: the user cancelled the turn, so {files} stays as it is."


@dataclass(frozen=True)
class CodeChangeHeld:
    """A change set waits for the user: `change.decide(True)` applies it, False keeps the files."""

    turn: int
    change: ChangeSet


@dataclass(frozen=True)
class CodeChangeApplied:
    """A change set was written (auto writes say so through their tool's screen diff)."""

    turn: int
    change: ChangeSet


@dataclass(frozen=True)
class CodeChangeSettled:
    """How a held change set ended: applied, kept, a conflict, or the turn was cancelled."""

    turn: int
    change: ChangeSet
    said: str
    tool_ids: tuple[str, ...] = ()  # the held calls, whose tool lines now say how it ended


def editor_of(registry: Any) -> Any:
    from agent.tools.editor import EDITOR_NAME

    return registry.get(EDITOR_NAME) if registry is not None else None


def settle(registry: Any, turn: Any, ctx: ToolContext, results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The reply's tool results, with the held calls' outcome in place of their placeholder."""
    editor = editor_of(registry)
    if editor is None or editor.held is None:
        return results
    change, calls = editor.held, editor.held_calls
    editor.held, editor.held_calls = None, []
    decision: bool | None = None
    if not turn.cancel.cancelled:  # a turn cancelled meanwhile shows nothing to decide
        turn.emit(CodeChangeHeld(turn.id, change))
        decision = change.wait(lambda: turn.cancel.cancelled)
    files = ", ".join(f.path for f in change.files)
    notes = ""
    if decision is None:
        change.state, said = "cancelled", CANCELLED.format(files=files)
    elif not decision:
        change.state, said = "kept", change.why or KEPT.format(files=files)
    else:
        try:
            said = change.apply(editor.record(change, ctx.repo))
        except OSError as err:
            change.state = "conflict"
            said = f"Not applied: {files} could not be written ({err.strerror or err}). Nothing else was changed."
        if change.state == "applied":
            notes = editor.settled(change, ctx)
    log.info("turn %d: change set %s %s", turn.id, change.id, change.state)
    texts = dict(calls)
    ids = tuple(str(b.get("tool_use_id")) for b in results if b.get("content") in texts)
    turn.emit(CodeChangeSettled(turn.id, change, said, ids))
    out = []
    for block in results:
        content = block.get("content")
        if isinstance(content, str) and content in texts:
            block = dict(block)
            if change.state == "applied":
                block["content"] = f"The user applied the change. {texts[content]}" + (f"\n\n{notes}" if notes else "")
            else:
                block["content"] = said
                block["is_error"] = True
        out.append(block)
    return out
