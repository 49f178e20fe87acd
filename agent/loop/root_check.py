"""The repository folder the session opened, and the stop when its path names another.

The session opens the repository's folder once (agent.tools.editor.confined_files.RepositoryRoot)
and every tool reads, writes and runs below that descriptor. The repository's own code (a
build, a test, once trusted) can still move the folder away and put a link or another
folder in its place, between two turns or between two tool calls. Before each call to the
model and each tool call the path is compared with the descriptor (device and inode); when
they differ, the model gets a text error for each call, the user is told in a sentence,
and the turn ends. Nothing is read from, written to or run in what took the folder's place.
"""

from __future__ import annotations

import logging
from pathlib import Path

from agent.loop.faults import TurnFailed
from agent.tools.editor.confined_files import RepositoryRoot

log = logging.getLogger("devagent")


def open_root(repo: Path) -> RepositoryRoot | None:
    """The session's descriptor of `repo`; None when it cannot be opened (the tools then
    report the missing folder themselves, by its path)."""
    try:
        return RepositoryRoot(repo)
    except OSError as err:
        log.warning("the repository folder %s could not be opened: %s", repo, err)
        return None


def moved_for_user(repo: Path) -> str:
    return (f"The repository folder {repo} is no longer the folder this session opened: it was moved, removed or "
            "replaced (by a link or another folder) while devagent was running. devagent stopped and reads, writes "
            "and runs nothing there; open devagent again in the folder you mean.")


def moved_for_model(repo: Path) -> str:
    return (f"Error: not run. The repository folder {repo} was moved or replaced since the session began, so no tool "
            "reads, writes or runs anything there. The user has been told; the turn ends here.")


def stop_if_moved(root: RepositoryRoot | None, repo: Path) -> None:
    """Ends the turn (TurnFailed, which the user sees) when `repo` no longer names `root`."""
    if root is not None and root.moved():
        raise TurnFailed(moved_for_user(repo))


def undo_last_change(repo: Path, root: RepositoryRoot | None) -> tuple[bool, str]:
    """The journal's undo (agent.tools.editor.journal.undo_last), through the session's
    descriptor when it has one, and refused when the path names another folder now."""
    from agent.tools.editor.journal import undo_last

    if root is not None and root.moved():
        return False, "Not undone: " + moved_for_user(repo)
    return undo_last(root.at if root is not None else repo)
