"""The user's answer to a question the running turn waits on, on its way up to the app.

A held change's bar, the trust dialog and the command bar post `Decided` (for a key, and for the typed or
spoken words, which go through the same widget); the app hands it down to the waiting turn
as an agent.decisions.Decision, through the session's mailbox (tui.turns.driver). Neither widget
holds anything of the agent's but the question's id.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypedDict

from textual.message import Message

if TYPE_CHECKING:  # a type only, not built at run time: the first frame imports this module

    class CommandAnswer(TypedDict):
        edited: str | None
        always: bool
        network: bool


class Decided(Message):
    def __init__(self, about: str, yes: bool, *, edited: str | None = None, always: bool = False,
                 network: bool = False) -> None:
        super().__init__()
        self.about = about  # the question's id: a change set's, a trust request's, a command's
        self.yes = yes
        # a command's yes (tui.screens.command): the text as the user edited it, whether to
        # run it without asking from now on, whether it has the network
        self.edited = edited
        self.always = always
        self.network = network

    @property
    def details(self) -> CommandAnswer:
        """What a command's answer carries beyond yes or no, as the turn driver takes it."""
        return {"edited": self.edited, "always": self.always, "network": self.network}
