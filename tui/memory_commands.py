"""The command palette's memory commands beyond the pane's keys: all held changes at
once, and "Tidy memory", one agent turn that proposes fixes for what `memory check` found."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import TYPE_CHECKING

from textual.app import SystemCommand

if TYPE_CHECKING:
    from tui.host import AppHost


def memory_commands(app: AppHost) -> Iterator[SystemCommand]:
    pane = app.memory_pane
    yield SystemCommand("Still true", "Mark the selected memory verified today (v in the pane)", pane.action_verify)
    yield SystemCommand("Move memory", "Between this repository and you, in every repository (m)", pane.action_move)
    yield SystemCommand("Accept all memory changes", "Apply every change the agent made that waits for you",
                        lambda: pane.decide_all("accept"))
    yield SystemCommand("Reject all memory changes", "Drop every change that waits for you; the agent hears so",
                        lambda: pane.decide_all("reject"))
    yield SystemCommand("Tidy memory", "One agent turn that proposes fixes for what memory check finds",
                        lambda: app.run_worker(tidy_memory(app), group="tidy", exclusive=True))


async def tidy_memory(app: AppHost) -> None:
    from agent.recall.tidy import findings_for, tidy_request

    if app.running:
        app.notify("A turn is still running; Esc cancels it.", severity="warning")
        return
    aging_days = getattr(app.config, "memory_aging_days", 30)
    try:
        findings = await asyncio.to_thread(findings_for, app.store, app.repo, aging_days)
    except Exception as exc:  # a folder that cannot be read: say so, start nothing
        app.notify(f"Could not check the memory: {exc}", title="Memory", severity="error")
        return
    request = tidy_request(findings)
    if request is None:
        app.notify("Memory check found nothing to tidy.", title="Memory")
        return
    await app.submit_turn(request)
