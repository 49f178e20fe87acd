"""A reply's held code changes, settled with the user before the model hears back.

In review the text editor tool only holds each write of a reply (agent.tools.text_editor),
and the loop keeps a `HeldCall` in the place of each such call's result. Once every tool
of the reply has run, `settle` asks the user through the turn's decisions (agent.decisions:
a `CodeChangeHeld` event shows what a person is shown of the set, under its id), waits for
the `Decision` naming that id, applies the set or keeps the files, and writes the held
calls' tool results, found by their type. A cancelled turn applies nothing. `devagent ask`
answers "keep" as it prints the diff, so a script sees what would have changed and nothing
is written.
"""

from __future__ import annotations

import logging
from typing import Any

from agent.conversation.history import tool_result
from agent.decisions import AskingTurn, Decision
from agent.events import CodeChangeHeld, CodeChangeSettled
from agent.marks import escape_marks
from agent.tools.base import HeldCall, ToolContext
from agent.tools.editor.change_set import ChangeSet
from agent.tools.masking import mask_text

log = logging.getLogger("devagent.code_changes")

ASK = (
    "Not applied: devagent ask applies nothing while code writes are in review; the diff was printed for the "
    "user, who can apply it or run again with --code-writes auto."
)
# Models read a bare "File created successfully." as maybe still waiting for the user, and
# hedged ("if the change waits for you, say apply"): the result says it is written.
APPLIED = "The user applied the change. It is written on disk; nothing waits for the user."
KEPT = "Not applied: the user kept {files} as it is. Ask what they want instead before changing it again."
CANCELLED = "Not applied: the user cancelled the turn, so {files} stays as it is."
# The same outcomes in the user's own words, for the conversation: the sentences above are
# the model's (in the tool result), and say what it should do next.
SHOWN_KEPT = "Not applied: you kept {files} as it was."
SHOWN_ASK = "Not applied: code writes are in review, so devagent ask wrote nothing; --code-writes auto applies."
SHOWN_CANCELLED = "Not applied: the question was cancelled, so {files} stays as it was."
SHOWN_CONFLICT = "Not applied: {files} changed on disk since the change was made from it, so nothing was overwritten."
UNDONE = (
    "The user undid your applied change to {files} (with Ctrl+R or devagent undo): {what} back as before that change. "
    "Do not make it again unless they ask for it, and view a file again before you change it."
)


def masked_diff(change: ChangeSet) -> str:
    """A change set's diff as a person is shown it: credentials masked, as in every tool result."""
    return mask_text(change.diff(), "line")[0]


def editor_of(registry: Any) -> Any:
    from agent.tools.text_editor import EDITOR_NAME

    return registry.get(EDITOR_NAME) if registry is not None else None


NOT_KEPT = "Not applied: the change was not kept for review."


def settle(registry: Any, turn: AskingTurn, ctx: ToolContext,
           results: list[dict[str, Any] | HeldCall]) -> list[dict[str, Any]]:
    """The reply's tool results, each held call's written with how its change set ended."""
    editor = editor_of(registry)
    if editor is not None:
        editor.reply_ended()
    change = editor.held if editor is not None else None
    if change is None:
        return [b if isinstance(b, dict) else tool_result(b.tool_use_id, NOT_KEPT, True) for b in results]
    editor.held = None
    decision: Decision | None = None
    if not turn.cancel.cancelled:  # a turn cancelled meanwhile shows nothing to decide
        held = CodeChangeHeld(turn.id, change.id, change.describe(), masked_diff(change))
        decision = turn.decisions.ask(change.id, lambda: turn.emit(held), lambda: turn.cancel.cancelled)
    said, shown, notes = _outcome(change, decision, editor, ctx)
    log.info("turn %d: change set %s %s", turn.id, change.id, change.state)
    ids = tuple(b.tool_use_id for b in results if isinstance(b, HeldCall))
    turn.emit(CodeChangeSettled(turn.id, change.id, change.state, change.describe(), said, ids, shown))
    out = []
    for block in results:
        if isinstance(block, HeldCall):
            if change.state == "applied":
                text = f"{APPLIED} {block.said}" + (f"\n\n{notes}" if notes else "")
                block = tool_result(block.tool_use_id, escape_marks(text), False)
            else:
                block = tool_result(block.tool_use_id, escape_marks(said), True)
        out.append(block)
    return out


def _outcome(change: ChangeSet, decision: Decision | None, editor: Any, ctx: ToolContext) -> tuple[str, str, str]:
    """Applies or keeps the set as decided (None: the turn was cancelled): what the model
    hears, what the user is shown, and the notes of an applied set."""
    files = ", ".join(f.path for f in change.files)
    if decision is None:
        change.state = "cancelled"
        return CANCELLED.format(files=files), SHOWN_CANCELLED.format(files=files), ""
    if not decision.yes:
        change.state = "kept"
        return decision.why or KEPT.format(files=files), SHOWN_ASK if decision.why == ASK else SHOWN_KEPT.format(files=files), ""
    try:
        said = shown = change.apply(editor.record(change, ctx.base))
    except OSError as err:
        change.state = "conflict"
        said = shown = f"Not applied: {files} could not be written ({err.strerror or err}). Nothing else was changed."
    if change.state == "conflict" and said == change.note:
        shown = SHOWN_CONFLICT.format(files=", ".join(change.conflicts()) or files)
    return said, shown, editor.settled(change, ctx) if change.state == "applied" else ""


def undone_news(registry: Any, repo: Any) -> str | None:
    """What the user undid of this session's applied changes since the model last heard, for
    its next turn; None when nothing. Undo (the app's Ctrl+R, the palette, `devagent undo`
    from another terminal) marks the sets undone in the journal; the model is told once,
    and this session's copy of each set is marked undone with it."""
    editor = editor_of(registry)
    if editor is None:
        return None
    applied = {c.id: c for c in editor.history if c.state == "applied"}
    if not applied:
        return None
    from agent.tools.editor.journal import history

    try:
        undone = [c for c in history(repo, editor.session_id) if c.state == "undone" and c.id in applied]
    except Exception:  # the journal is only read here; what cannot be read is told nothing
        log.warning("the change journal could not be read for undone changes", exc_info=True)
        return None
    lines = []
    for turn in sorted({c.turn for c in undone}):
        sets = [c for c in undone if c.turn == turn]
        paths = list(dict.fromkeys(f.path for c in sets for f in c.files))
        what = "they are" if len(paths) > 1 else "it is"
        lines.append(UNDONE.format(files=", ".join(paths), what=what))
        for change in sets:
            applied[change.id].state = "undone"
    return " ".join(lines) or None
