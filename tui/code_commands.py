"""The palette's code change entries: undo the last applied change set, and this
session's change sets, each of which shows its diff on the screen pane."""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial
from typing import TYPE_CHECKING

from textual.app import SystemCommand

if TYPE_CHECKING:
    from agent.tools.editor.change_set import ChangeSet
    from tui.host import AppHost

STATES = {"applied": "applied", "undone": "undone", "kept": "kept as it was", "conflict": "a conflict, not applied",
          "cancelled": "not applied", "held": "waiting"}


def session_changes(app: AppHost) -> list[ChangeSet]:
    """This session's applied change sets as the journal has them (an undo there shows), newest first."""
    from agent.loop.held_changes import editor_of
    from agent.tools.editor.journal import history

    session = app.turns.session
    editor = editor_of(getattr(session, "registry", None))
    if editor is None:
        return []
    journalled = {c.id: c for c in history(app.repo, editor.session_id)}
    return [journalled.get(c.id, c) for c in reversed(editor.history)]


def code_commands(app: AppHost) -> Iterator[SystemCommand]:
    yield SystemCommand("Undo code change", "Put back the files of the agent's last applied change (Ctrl+R)",
                        app.action_undo_code_change)
    for change in session_changes(app):
        yield SystemCommand(f"Code change {change.id.rsplit('-', 1)[-1]}: {change.describe()}",
                            f"Turn {change.turn}, {STATES.get(change.state, change.state)}: show its diff",
                            partial(show_change, app, change))


def show_change(app: AppHost, change: ChangeSet) -> None:
    from agent.loop.held_changes import masked_diff

    async def show() -> None:
        await app.screen_pane.show(f"Code change: {change.describe()} ({STATES.get(change.state, change.state)})",
                                   masked_diff(change), "diff")
        app.panes.screen_choice = True

    app.call_later(show)


def undo(app: AppHost) -> None:
    """The app's undo key: off the UI thread, as the files may be large."""
    if app.running:
        app.notify("A turn is running; undo its changes once it has ended.", severity="warning")
        return

    def work() -> None:
        from agent.loop.root_check import undo_last_change

        # through the session's descriptor of the repository folder, when it is open
        undone, said = undo_last_change(app.repo, getattr(app.turns.session, "root", None))
        app.call_from_thread(app.notify, said, title="Undo", severity="information" if undone else "warning")

    app.run_worker(work, thread=True, group="undo", exit_on_error=False)
