"""Spoken questions that may still be taken back.

Push-to-talk ends a recording tentatively after a finished sentence (agent/voice/
push_to_talk.py): the transcript is sent at once and the microphone listens on through a
grace window. If the speaker goes on, that transcript is withdrawn and the whole utterance
follows; if not, it is confirmed. A question can start at once, since withdrawing it only
stops a turn. "Apply" or "no" to a waiting code change cannot be undone that way, so it
is decided only once the recording confirms it: "yes, but rename it first" must not apply.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tui.screens import trust as trust_prompt
from tui.screens.command import spoken_command
from tui.widgets.conversation import code_review

if TYPE_CHECKING:
    from tui.host import SpokenHost


async def submit_tentative(app: SpokenHost, text: str) -> None:
    if app.running and code_review.waiting(app) is not None and code_review.spoken_decision(text) is not None:
        app.tentative_decision = text
        return
    if app.running and trust_prompt.waiting(app) is not None and trust_prompt.spoken_trust(text) is not None:
        app.tentative_decision = text  # "yes, but only the tests" must not trust the repository
        return
    if app.running and app.command_waiting() is not None and spoken_command(text) is not None:
        app.tentative_decision = text  # "yes, but with the network" must not run it as it is
        return
    await app.submit_turn(text)


async def confirm(app: SpokenHost, text: str) -> None:
    if app.tentative_decision == text:
        app.tentative_decision = None
        await app.submit_turn(text)


async def withdraw(app: SpokenHost, text: str) -> None:
    """The question leaves the queue, or its turn stops unspoken and leaves the
    conversation and the history; the whole question comes next."""
    if app.tentative_decision == text:
        app.tentative_decision = None  # decided nothing: the whole utterance comes next
        return
    if app.queued.withdraw(text):
        return
    was = app.turns.withdraw(text)
    if was is None:
        if app.key_problem:
            await app.conversation.withdraw_turn()  # no turn could start: only the question shows
        return
    await app.conversation.withdraw_turn()
    if was == "live":
        # a change it held was never asked for: it goes unapplied with the turn (the
        # agent side sees the cancellation), and its bar with it
        await code_review.review_over(app)
        await app.end_turn(cancelled=True)
