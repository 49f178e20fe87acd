"""A held code change in the app: its diff on the screen pane, a bar that takes the decision.

When a reply's change set waits (agent.loop.held_changes), its coloured diff goes to the screen
pane (shown even when the user had hidden it) and a one-line bar above the prompt says
what waits; the bar takes the focus, so Enter applies and Esc keeps the files as they are.
A typed or spoken "apply", "yes" or "no" decides too (the main screen hands it to the
bar), through the bar as a key does: the bar posts the decision up (tui.decided) and the
app hands it down to the waiting turn. The voice says in one sentence what changed and how
to apply it; the diff itself is never spoken. The main screen (tui.screens.main) mounts
the bar and takes it away; the bar only shows what it is given and posts the decision.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.binding import Binding
from textual.widgets import Static

from tui import format as fmt
from tui.decided import Decided

if TYPE_CHECKING:
    from agent.tools.editor.change_set import ChangeSet

APPLY_WORDS = {"apply", "apply it", "yes", "yes apply", "yes apply it", "ok apply", "apply the change", "do it"}
KEEP_WORDS = {"no", "keep", "keep it", "no keep it", "dont", "don't", "reject", "reject it", "no thanks"}
_PUNCTUATION = re.compile(r"[^\w' ]+")


def normalised_words(text: str) -> str:
    """Lower case, punctuation gone, one space between words: "Yes, apply it." -> "yes apply it"."""
    return " ".join(_PUNCTUATION.sub(" ", text.lower()).split())


def spoken_choice(text: str, yes: set[str], no: set[str]) -> bool | None:
    """True when the words are one of `yes`, False for one of `no`, else None (a question)."""
    words = normalised_words(text)
    if words in yes:
        return True
    if words in no:
        return False
    return None


def spoken_decision(text: str) -> bool | None:
    """True for apply, False for keep, None when the words are a question, not a decision."""
    return spoken_choice(text, APPLY_WORDS, KEEP_WORDS)


def spoken_sentence(what: str) -> str:
    """What the voice says of a held change: what, and how to apply it. Never the diff."""
    return f"I changed {what.replace('−', 'minus ').replace('+', 'plus ')}; say apply or press Enter to apply it, Escape keeps the file."


class CodeReviewBar(Static, can_focus=True):
    """One line: what waits and the two keys. Focused while a change waits."""

    BINDINGS = [
        Binding("enter", "apply", "Apply", show=True),
        Binding("escape", "keep", "Keep as is", show=True),
    ]

    DEFAULT_CSS = """
    CodeReviewBar {
        height: auto;
        max-height: 3;
        padding: 0 1;
        background: $warning 20%;
        color: $text;
    }
    CodeReviewBar:focus {
        background: $warning 35%;
        text-style: bold;
    }
    """

    def __init__(self, change_id: str, what: str, screen_before: bool | None = None, diff: Any = None, **kwargs: Any) -> None:
        self.change_id = change_id  # the change set's, which the decision names
        self.decided: bool | None = None  # the user's decision, once given
        self.what = what  # the change in one line, as the agent said it
        self.diff = diff  # its diff on the screen pane, renamed once the change is decided
        # the screen pane's choice before the change showed: given back once it is decided,
        # so a narrow terminal returns to the conversation
        self.screen_before = screen_before
        super().__init__(fmt.sanitize(self.wording()), markup=False, **kwargs)

    def wording(self) -> str:
        return f"Change waiting: {self.what} · Enter apply · Esc keep as is"

    def decide(self, apply: bool) -> bool:
        """Posts the user's decision up to the app, once; False when it was given already."""
        if self.decided is not None:
            return False
        self.decided = apply
        self.post_message(Decided(self.change_id, apply))
        self.update(f"{'Applying' if apply else 'Keeping the files as they are'}: {fmt.sanitize(self.what)}…")
        return True

    def action_apply(self) -> None:
        self.decide(True)

    def action_keep(self) -> None:
        self.decide(False)


# the held change's diff on the screen pane, once it no longer waits
DIFF_TITLES = {"applied": "Applied", "kept": "Kept as it was, not applied", "conflict": "Not applied (a conflict)",
               "cancelled": "Not applied (the question was cancelled)"}
OUTCOMES = {"applied": "applied", "kept": "kept as it was", "conflict": "conflict: not applied",
            "cancelled": "not applied: cancelled"}


# a code change set's state, as its palette entry says it
STATES = {"applied": "applied", "undone": "undone", "kept": "kept as it was", "conflict": "a conflict, not applied",
          "cancelled": "not applied", "held": "waiting"}


def session_changes(repo: Path, session: Any) -> list[ChangeSet]:
    """This session's applied change sets as the journal has them (an undo there shows), newest first."""
    from agent.loop.held_changes import editor_of
    from agent.tools.editor.journal import history

    editor = editor_of(getattr(session, "registry", None))
    if editor is None:
        return []
    journalled = {c.id: c for c in history(repo, editor.session_id)}
    return [journalled.get(c.id, c) for c in reversed(editor.history)]


def change_entry(change: ChangeSet) -> tuple[str, str]:
    """A change set's palette entry: (title, help); choosing it shows its diff."""
    return (f"Code change {change.id.rsplit('-', 1)[-1]}: {change.describe()}",
            f"Turn {change.turn}, {STATES.get(change.state, change.state)}: show its diff")


def change_title(change: ChangeSet) -> str:
    """The screen pane's title of a change set's diff."""
    return f"Code change: {change.describe()} ({STATES.get(change.state, change.state)})"
