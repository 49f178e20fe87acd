"""The memory pane's actions on trust: verify, move between folders, accept or reject.

A plain object the pane holds (`MemoryPane.review`): the pane keeps its list and preview,
this keeps to what the user decides, and it needs of the pane only what `ReviewedPane`
names. Every change goes through the store (or memory/pending.py, which applies
through the store), never to the folder directly.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any, Protocol

from textual.message import Message

from tui.widgets.memory.trust_view import PENDING_PREFIX

if TYPE_CHECKING:
    from pathlib import Path

    from textual.app import App
    from textual.notifications import SeverityLevel
    from textual.worker import Worker

    from memory.notes import MemoryInfo
    from memory.pending import PendingChanges
    from memory.seam import EditableStore
    from tui.widgets.memory.listing import Listing


class ReviewedPane(Protocol):
    """What the review needs of the memory pane."""

    store: EditableStore
    repo: Path | None
    aging_days: int
    listing: Listing
    follow: str | None  # a memory to select once the listing has it

    @property
    def app(self) -> App[Any]: ...

    @property
    def selected_path(self) -> str | None: ...

    def selected_info(self) -> MemoryInfo | None: ...

    def reload(self) -> object: ...

    def run_worker(self, work: Any, *args: Any, **kwargs: Any) -> Any: ...

    def post_message(self, message: Message) -> bool: ...

    def notify(self, message: str, *, title: str = "", severity: SeverityLevel = "information",
               timeout: float | None = None, markup: bool = True) -> None: ...


class AskAgent(Message):
    """A question for the agent that the memory pane wrote (Tidy memory): the app sends it."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text


class ReviewActions:
    """Verify, move, accept and reject for one pane, each as a worker of the pane's; and
    tidy, which asks the agent for the fixes of what `memory check` finds."""

    def __init__(self, pane: ReviewedPane) -> None:
        self.pane = pane

    def tidy(self) -> Worker[None]:
        """Asks the app (an AskAgent message) for the turn that proposes the fixes of what
        `memory check` finds; the user is told when there is nothing to ask."""
        return self.pane.run_worker(self._tidy(), group="tidy", exclusive=True)

    async def _tidy(self) -> None:
        from agent.recall.tidy import findings_for, tidy_request

        try:
            findings = await asyncio.to_thread(findings_for, self.store, self.pane.repo, self.pane.aging_days)
        except Exception as exc:  # a folder that cannot be read: say so, ask nothing
            self.pane.notify(f"Could not check the memory: {exc}", title="Memory", severity="error")
            return
        request = tidy_request(findings)
        if request is None:
            self.pane.notify("Memory check found nothing to tidy.", title="Memory")
            return
        self.pane.post_message(AskAgent(request))

    @property
    def store(self) -> EditableStore:
        return self.pane.store

    def _run(self, work: Coroutine[Any, Any, None]) -> None:
        # the pane's worker, so it ends with the pane
        self.pane.run_worker(work, group="memory-review")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # accept and reject show in the footer only while a change waits, so the footer has
        # room for the app's keys
        if action in ("accept", "reject"):
            trust = self.pane.listing.trust
            return bool(trust is not None and trust.waiting)
        return True

    def _pending(self) -> PendingChanges:
        from memory.pending import PendingChanges

        return PendingChanges(self.store)

    def selected_change_id(self) -> str | None:
        path = self.pane.selected_path
        return path[len(PENDING_PREFIX) :] if path and path.startswith(PENDING_PREFIX) else None

    def _say(self, message: str, refused: bool) -> None:
        self.pane.notify(message, title="Memory", severity="error" if refused else "information")
        self.pane.reload()

    # --- "this is still true" --------------------------------------------------------------

    def verify(self) -> None:
        self._run(self._verify_selected())

    async def _verify_selected(self) -> None:
        info = self.pane.selected_info()
        if info is None:
            self.pane.notify("No memory selected.", severity="warning")
            return
        message, refused = await asyncio.to_thread(self._verify, info.path)
        self._say(message, refused)

    def _verify(self, path: str) -> tuple[str, bool]:
        from memory.freshness import today, with_verified

        try:
            text = self.store.read(path)
        except Exception as exc:
            return f"Cannot read {path}: {exc}", True
        day = today(time.time())
        message, refused = self.store.save(path, with_verified(text, day), expected=text)
        if refused:
            return message, True
        return f"Verified {path} today ({day.isoformat()}): its evidence is fingerprinted again.", False

    # --- between the repository's folder and the user's --------------------------------------

    def move(self) -> None:
        self._run(self._move_selected())

    async def _move_selected(self) -> None:
        info = self.pane.selected_info()
        move = getattr(self.store, "move_to_other_root", None)
        if info is None or move is None:
            self.pane.notify("No memory selected." if info is None else "This memory has only one folder.", severity="warning")
            return
        message, refused = await asyncio.to_thread(move, info.path)
        if not refused:
            from memory.roots import other_root_path

            # the moved memory stays selected, so the same key is its undo
            self.pane.follow = other_root_path(info.path)
            message += " Ctrl+O moves it back."
        self._say(message, refused)

    # --- the agent's held changes -----------------------------------------------------------

    def decide(self, verb: str) -> None:
        """Accept or reject the selected held change."""
        self._run(self._decide(verb))

    async def _decide(self, verb: str) -> None:
        change_id = self.selected_change_id()
        if change_id is None:
            self.pane.notify("Select a change waiting for review first.", severity="warning")
            return
        pending = self._pending()
        message, refused = await asyncio.to_thread(getattr(pending, verb), change_id)
        self._say(message, refused)

    def decide_all(self, verb: str) -> None:
        self._run(self._decide_all(verb))

    async def _decide_all(self, verb: str) -> None:
        pending = self._pending()
        outcomes = await asyncio.to_thread(pending.decide_all, getattr(pending, verb))
        if not outcomes:
            self._say("No memory changes are waiting for review.", False)
            return
        refused = [message for message, failed in outcomes if failed]
        done = len(outcomes) - len(refused)
        summary = f"{'Accepted' if verb == 'accept' else 'Rejected'} {done} of {len(outcomes)} memory changes."
        self._say(" ".join([summary, *refused]), bool(refused))
