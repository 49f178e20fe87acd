"""The applied change sets of a repository, kept so that the last can be undone.

One JSON file per change set, outside the repository (beside the transcripts, under the
data folder), written atomically. The app's undo key and `devagent undo` both take the
newest set that is applied and not yet undone; undoing refuses when a file changed since,
because putting the old text back would lose what changed it.
"""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path
from typing import Any

from agent.code_changes import ChangeSet, FileChange
from memory.atomic import make_dirs, write_file

log = logging.getLogger("devagent.code_changes")


def journal_dir(repo: Path) -> Path:
    from memory.location import data_dir, repository_key

    return data_dir() / "changes" / repository_key(repo)


def _as_json(change_set: ChangeSet, session: str) -> dict[str, Any]:
    return {
        "id": change_set.id, "turn": change_set.turn, "session": session, "when": change_set.when,
        "state": change_set.state,
        "files": [{"path": f.path, "before": f.before, "after": f.after, "mode": f.mode} for f in change_set.files],
    }


def save(repo: Path, change_set: ChangeSet, session: str = "") -> None:
    """Never raises: a journal that cannot be written costs the undo, not the change."""
    folder = journal_dir(repo)
    try:
        make_dirs(str(folder.parent.parent), str(folder))
        data = json.dumps(_as_json(change_set, session), ensure_ascii=False).encode("utf-8", "surrogateescape")
        write_file(str(folder / f"{change_set.id}.json"), data)
    except (OSError, ValueError) as err:
        log.warning("change set %s was not journalled: %s", change_set.id, err)


def _load(path: Path, repo: Path) -> tuple[ChangeSet, str] | None:
    from agent.tools.base import ToolInputError
    from agent.tools.files import resolve_in_repository

    try:
        data = json.loads(path.read_text(encoding="utf-8", errors="surrogateescape"))
        files = []
        for item in data["files"]:
            # the journal is ours, but it lives outside the repository: its paths are
            # confined again, as the model's were
            full = resolve_in_repository(str(item["path"]), repo)
            files.append(FileChange(item["path"], full, item["before"], item["after"], item.get("mode")))
        change_set = ChangeSet(str(data["id"]), int(data["turn"]), files, data["state"], float(data["when"]))
        return change_set, str(data.get("session") or "")
    except (OSError, ValueError, KeyError, TypeError, ToolInputError) as err:
        log.warning("change set %s is unreadable: %s", path.name, err)
        return None


def _with_sessions(repo: Path, session: str | None = None) -> list[tuple[ChangeSet, str]]:
    folder = journal_dir(repo)
    try:
        names = [n for n in os.listdir(folder) if n.endswith(".json")]
    except OSError:
        return []
    found = []
    for name in names:
        loaded = _load(folder / name, repo)
        if loaded is not None and (session is None or loaded[1] == session):
            found.append(loaded)
    return sorted(found, key=lambda pair: (pair[0].when, pair[0].id), reverse=True)


def history(repo: Path, session: str | None = None) -> list[ChangeSet]:
    """The repository's journalled change sets, newest first; only `session`'s when given."""
    return [change_set for change_set, _ in _with_sessions(repo, session)]


def undo_last(repo: Path, session: str | None = None) -> tuple[bool, str]:
    """(whether anything was undone, the sentence for the user).

    The unit is a turn: every applied set of the newest one's turn (a turn of several
    replies held several), made one set whose files go from the last text back to the
    first, so the undo is all or nothing."""
    found = [(c, s) for c, s in _with_sessions(repo, session) if c.state == "applied"]
    if not found:
        return False, "There is no applied change of the agent's to undo."
    newest, owner = found[0]
    sets = [c for c, s in found if s == owner and c.turn == newest.turn]
    combined = ChangeSet(newest.id, newest.turn)
    for change_set in sets:  # newest first: a file's last text is the newest set's
        for change in change_set.files:
            known = combined.file(change.full)
            if known is None:
                combined.files.append(FileChange(change.path, change.full, change.before, change.after, change.mode))
            else:
                known.before = change.before  # an older set: the file's text before the turn
    try:
        said = combined.undo()
    except OSError as err:
        return False, f"Not undone: {err.strerror or err} ({err.filename or combined.describe()}). Nothing more was changed."
    if combined.state != "undone":
        return False, said
    for change_set in sets:
        change_set.state = "undone"
        save(repo, change_set, owner)
    return True, said
