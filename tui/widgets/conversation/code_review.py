"""A held code change in the app: its diff on the screen pane, a bar that takes the decision.

When a reply's change set waits (agent.loop.held_changes), its coloured diff goes to the screen
pane (shown even when the user had hidden it) and a one-line bar above the prompt says
what waits; the bar takes the focus, so Enter applies and Esc keeps the files as they are.
A typed or spoken "apply", "yes" or "no" decides too (`answer`), through the bar as a key
does: the bar posts the decision up (tui.decided) and the app hands it down to the waiting
turn. The voice says in one sentence what changed and how to apply it; the diff itself is
never spoken.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from textual.binding import Binding
from textual.widgets import Static

from tui import format as fmt
from tui.decided import Decided

if TYPE_CHECKING:
    from agent.events import CodeChangeHeld, CodeChangeSettled
    from tui.host import ReviewHost

APPLY_WORDS = {"apply", "apply it", "yes", "yes apply", "yes apply it", "ok apply", "apply the change", "do it"}
KEEP_WORDS = {"no", "keep", "keep it", "no keep it", "dont", "don't", "reject", "reject it", "no thanks"}
_PUNCTUATION = re.compile(r"[^\w' ]+")


def normalised_words(text: str) -> str:
    """Lower case, punctuation gone, one space between words: "Yes, apply it." -> "yes apply it"."""
    return " ".join(_PUNCTUATION.sub(" ", text.lower()).split())


def spoken_decision(text: str) -> bool | None:
    """True for apply, False for keep, None when the words are a question, not a decision."""
    words = normalised_words(text)
    if words in APPLY_WORDS:
        return True
    if words in KEEP_WORDS:
        return False
    return None


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


def _bar(app: ReviewHost) -> CodeReviewBar | None:
    bars = list(app.main_screen.query(CodeReviewBar))
    return bars[0] if bars else None


def waiting(app: ReviewHost) -> CodeReviewBar | None:
    """The bar of the change that waits for the user's decision, if one does."""
    bar = _bar(app)
    return bar if bar is not None and bar.decided is None else None


def decide(app: ReviewHost, apply: bool) -> bool:
    """The user's decision on the change that waits (Esc, typed or spoken words); False when none does."""
    bar = waiting(app)
    return bar is not None and bar.decide(apply)


def answer(app: ReviewHost, text: str) -> bool:
    """A typed or spoken decision while a change waits; False when it is not one."""
    choice = spoken_decision(text)
    return choice is not None and decide(app, choice)


async def show_event(app: ReviewHost, event: object) -> bool:
    """Shows a code change event; False when `event` is not one."""
    from agent.events import CodeChangeHeld, CodeChangeSettled, ToolFinished
    from agent.tools.text_editor import EDITOR_NAME

    if isinstance(event, ToolFinished) and event.name == EDITOR_NAME and event.summary.startswith("changed"):
        app.memory_pane.reload()  # an auto write: the memories' evidence follows at once
        return False
    if isinstance(event, CodeChangeHeld):
        await held(app, event)
        return True
    if isinstance(event, CodeChangeSettled):
        await settled(app, event)
        _relabel(app, event.tool_ids, event.state)
        return True
    return False


# the held change's diff on the screen pane, once it no longer waits
DIFF_TITLES = {"applied": "Applied", "kept": "Kept as it was, not applied", "conflict": "Not applied (a conflict)",
               "cancelled": "Not applied (the question was cancelled)"}
OUTCOMES = {"applied": "applied", "kept": "kept as it was", "conflict": "conflict: not applied",
            "cancelled": "not applied: cancelled"}


async def review_over(app: ReviewHost, state: str = "cancelled") -> None:
    """No change waits any more (settled as `state`, or its turn taken back): the bar goes, the
    diff says how the change ended, and the screen pane is shown or hidden as the user had it."""
    app.turns.code_change_waiting = None
    bar = _bar(app)
    if bar is not None:
        if bar.diff is not None:
            ended = DIFF_TITLES.get(state, DIFF_TITLES["cancelled"])
            app.screen_pane.retitle(bar.diff, f"{ended}: {bar.what}")
        app.panes.screen_choice = bar.screen_before
        await bar.remove()
    app.prompt.focus()


def _relabel(app: ReviewHost, tool_ids: tuple[str, ...], state: str) -> None:
    """The held calls' tool lines say how the change ended, not that it waits."""
    from tui.widgets.conversation.lines import ToolLine

    for line in app.conversation.query(ToolLine):
        if line.tool_id in tool_ids and line.finished is not None:
            # kept is the user's choice, not a failure: the dim mark of a stopped call
            mark = {"applied": "ok", "conflict": "failed"}.get(state, "cancelled")
            line.finish(line.finished[0], state != "applied", OUTCOMES.get(state, state), None, mark)


async def held(app: ReviewHost, event: CodeChangeHeld) -> None:
    diff = await app.screen_pane.show(f"Waiting for you: {event.what}", event.diff, "diff")
    old = _bar(app)
    before = old.screen_before if old is not None else app.panes.screen_choice
    app.panes.screen_choice = True
    if old is not None:
        await old.remove()
    bar = CodeReviewBar(event.id, event.what, before, diff, id="code-review")
    await app.main_screen.mount(bar, before=app.prompt)
    bar.focus()
    app.turns.code_change_waiting = f"you: Enter applies, Esc keeps {event.what}"
    if app.voice is not None:
        app.voice.reply_delta(spoken_sentence(event.what) + "\n\n")


async def settled(app: ReviewHost, event: CodeChangeSettled) -> None:
    await review_over(app, event.state)
    if event.state == "applied":
        app.notify(event.for_user, title="Code change")
        app.memory_pane.reload()  # the memories' evidence follows the code at once
        return
    await app.conversation.add_notice(event.for_user, "info")
