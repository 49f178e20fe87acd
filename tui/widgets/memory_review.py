"""The memory pane's actions on trust: verify, move between folders, accept or reject.

A mixin of MemoryPane, so the pane keeps its list and preview and these keep to what the
user decides. Every change goes through the store (or memory/pending.py, which applies
through the store), never to the folder directly.
"""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Any

from textual import work

from tui.widgets.memory_trust import PENDING_PREFIX

if TYPE_CHECKING:
    from textual.app import App

    from memory.notes import MemoryInfo
    from memory.pending import PendingChanges
    from memory.roots import Memory
    from tui.widgets.memory_pane import Listing


class ReviewActions:
    """Needs `store`, `listing`, `selected_path`, `selected_info()`, `reload()` and `app` from the pane."""

    if TYPE_CHECKING:  # what MemoryPane provides
        store: Memory
        listing: Listing
        follow: str | None

        app: App[Any]

        @property
        def selected_path(self) -> str | None: ...

        def selected_info(self) -> MemoryInfo | None: ...

        def reload(self) -> object: ...

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # accept and reject show in the footer only while a change waits, so the footer has
        # room for the app's keys
        if action in ("accept", "reject"):
            trust = self.listing.trust
            return bool(trust is not None and trust.waiting)
        return True

    def _pending(self) -> PendingChanges:
        from memory.pending import PendingChanges

        return PendingChanges(self.store)

    def selected_change_id(self) -> str | None:
        path = self.selected_path
        return path[len(PENDING_PREFIX) :] if path and path.startswith(PENDING_PREFIX) else None

    def _say(self, message: str, refused: bool) -> None:
        self.app.notify(message, title="Memory", severity="error" if refused else "information")
        self.reload()

    # --- "this is still true" --------------------------------------------------------------

    @work(group="memory-review")
    async def action_verify(self) -> None:
        info = self.selected_info()
        if info is None:
            self.app.notify("No memory selected.", severity="warning")
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

    @work(group="memory-review")
    async def action_move(self) -> None:
        info = self.selected_info()
        move = getattr(self.store, "move_to_other_root", None)
        if info is None or move is None:
            self.app.notify("No memory selected." if info is None else "This memory has only one folder.", severity="warning")
            return
        message, refused = await asyncio.to_thread(move, info.path)
        if not refused:
            from memory.roots import other_root_path

            # the moved memory stays selected, so the same key is its undo
            self.follow = other_root_path(info.path)
            message += " Ctrl+O moves it back."
        self._say(message, refused)

    # --- the agent's held changes -----------------------------------------------------------

    @work(group="memory-review")
    async def action_accept(self) -> None:
        await self._decide("accept")

    @work(group="memory-review")
    async def action_reject(self) -> None:
        await self._decide("reject")

    async def _decide(self, verb: str) -> None:
        change_id = self.selected_change_id()
        if change_id is None:
            self.app.notify("Select a change waiting for review first.", severity="warning")
            return
        pending = self._pending()
        message, refused = await asyncio.to_thread(getattr(pending, verb), change_id)
        self._say(message, refused)

    @work(group="memory-review")
    async def decide_all(self, verb: str) -> None:
        pending = self._pending()
        outcomes = await asyncio.to_thread(pending.decide_all, getattr(pending, verb))
        if not outcomes:
            self._say("No memory changes are waiting for review.", False)
            return
        refused = [message for message, failed in outcomes if failed]
        done = len(outcomes) - len(refused)
        summary = f"{'Accepted' if verb == 'accept' else 'Rejected'} {done} of {len(outcomes)} memory changes."
        self._say(" ".join([summary, *refused]), bool(refused))
