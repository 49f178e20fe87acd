"""The applied change sets of a repository, kept so that the last can be undone, and the
record of each write in flight, kept so that a crash never leaves half of one.

One JSON file per change set, outside the repository (beside the transcripts, under the
data folder), written atomically. The app's undo key and `devagent undo` both take the
newest set that is applied and not yet undone; undoing refuses when a file changed since,
because putting the old text back would lose what changed it, and when the newest record
cannot be read, because then the newest set it finds may not be the last turn.

An apply or an undo first writes a `.writing` record: every file's text before and after,
the temporary file it will use, and the change sets as they stand once it is done. The
record goes when the writes are done. One still there whose writer is gone (its file locks
free) was cut short: `recover`, at every start, finishes it when each file is at its text
before or after (so `undo` then puts every file back), or else puts back the files it wrote,
and removes the temporary files it named.
"""

from __future__ import annotations

import json
import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent.tools.editor.change_set import ChangeSet, ChangeState, FileChange, Write, on_disk, put, start
from agent.tools.editor.confined_files import remove_file
from agent.tools.editor.file_locks import FilesBusy, held
from agent.tools.names import given_name
from memory.atomic import fsync_dir, is_temp_name, temp_name, write_file
from memory.private import make_private

log = logging.getLogger("devagent.code_changes")
WRITING = ".writing"


def journal_dir(repo: Path) -> Path:
    from memory.location import data_dir, repository_key

    return data_dir() / "changes" / repository_key(repo)


def _folder(repo: Path) -> Path:
    folder = journal_dir(repo)
    make_private(folder)
    return folder


def _as_json(change_set: ChangeSet, session: str, state: ChangeState | None = None) -> dict[str, Any]:
    return {
        "id": change_set.id, "turn": change_set.turn, "session": session, "when": change_set.when,
        "state": state or change_set.state,
        "files": [{"path": f.path, "before": f.before, "after": f.after, "mode": f.mode} for f in change_set.files],
    }


def _encoded(data: Any) -> bytes:
    return json.dumps(data, ensure_ascii=False).encode("utf-8", "surrogateescape")


def _decoded(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8", errors="surrogateescape"))


def save(repo: Path, change_set: ChangeSet, session: str = "") -> None:
    """Never raises: a journal that cannot be written costs the undo, not the change."""
    try:
        write_file(str(_folder(repo) / f"{change_set.id}.json"), _encoded(_as_json(change_set, session)))
    except (OSError, ValueError) as err:
        log.warning("change set %s was not journalled: %s", change_set.id, err)


class Record:
    """The journal of one apply or undo (agent.tools.editor.change_set.WriteAhead): `entries` are the
    change sets as the journal holds them once it is done, in `state`, each with its session."""

    def __init__(self, repo: Path, entries: list[tuple[ChangeSet, str]], state: ChangeState) -> None:
        self.repo = repo
        self.entries = entries
        self.state = state
        self.path: Path | None = None

    def begin(self, writes: list[Write]) -> None:
        folder = _folder(self.repo)
        self.path = folder / f"{temp_name().lstrip('.')}{WRITING}"
        data = {
            "writes": [{"path": w.path, "base": w.base, "new": w.new, "mode": w.mode, "temp": w.temp} for w in writes],
            "entries": [_as_json(c, session, self.state) for c, session in self.entries],
        }
        write_file(str(self.path), _encoded(data))

    def done(self) -> None:
        for change_set, session in self.entries:
            change_set.state = self.state
            save(self.repo, change_set, session)
        self.drop()

    def drop(self) -> None:
        if self.path is not None:
            try:
                os.unlink(self.path)
                fsync_dir(str(self.path.parent))
            except OSError as err:
                log.warning("the write record %s stays: %s", self.path, err)


def _from_json(data: Any, repo: Path) -> tuple[ChangeSet, str]:
    from agent.tools.paths import repository_root, resolve_in_repository

    files = []
    for item in data["files"]:
        # the journal is ours, but it lives outside the repository: its paths (kept as
        # shown, agent.tools.names) are confined again, as the model's were
        full = resolve_in_repository(given_name(str(item["path"])), repo)
        files.append(FileChange(item["path"], full, item["before"], item["after"], item.get("mode"), repository_root(repo)))
    change_set = ChangeSet(str(data["id"]), int(data["turn"]), files, data["state"], float(data["when"]))
    return change_set, str(data.get("session") or "")


_BROKEN = (OSError, ValueError, KeyError, TypeError, AttributeError)


@dataclass
class Entry:
    path: Path
    mtime: float
    loaded: tuple[ChangeSet, str] | None  # None: it cannot be read
    problem: str = ""


def _scan(repo: Path) -> list[Entry]:
    from agent.tools.base import ToolInputError

    folder = journal_dir(repo)
    try:
        names = [n for n in os.listdir(folder) if n.endswith(".json")]
    except OSError:
        return []
    found = []
    for name in names:
        path = folder / name
        try:
            mtime = path.stat().st_mtime
        except OSError:
            continue  # removed meanwhile
        try:
            found.append(Entry(path, mtime, _from_json(_decoded(path), repo)))
        except (*_BROKEN, ToolInputError) as err:
            log.warning("change set %s is unreadable: %s", name, err)
            found.append(Entry(path, mtime, None, str(err)[:120] or type(err).__name__))
    return found


def _with_sessions(repo: Path, session: str | None = None) -> list[tuple[ChangeSet, str]]:
    found = [e.loaded for e in _scan(repo) if e.loaded is not None and (session is None or e.loaded[1] == session)]
    return sorted(found, key=lambda pair: (pair[0].when, pair[0].id), reverse=True)


def history(repo: Path, session: str | None = None) -> list[ChangeSet]:
    """The repository's journalled change sets, newest first; only `session`'s when given."""
    return [change_set for change_set, _ in _with_sessions(repo, session)]


# --- a write cut short ---------------------------------------------------------------------


def _writes(data: Any, repo: Path) -> list[Write]:
    from agent.tools.paths import repository_root, resolve_in_repository

    writes = []
    for item in data["writes"]:
        temp = str(item["temp"])
        if not is_temp_name(temp):
            raise ValueError(f"{temp!r} is not the name of a temporary file of devagent's")
        full = resolve_in_repository(given_name(str(item["path"])), repo)
        writes.append(Write(str(item["path"]), full, item["base"], item["new"], item["mode"], temp, repository_root(repo)))
    return writes


def _text_now(full: Path, root: Path | None = None) -> str | None | bool:
    try:
        return on_disk(full, root)
    except OSError:
        return False  # neither a text nor no file: never taken for either


@dataclass
class Recovered:
    said: str
    settled: bool  # False: the record stays (its writer is still at work, or it cannot be read)


def _recover_one(repo: Path, path: Path) -> Recovered | None:
    from agent.tools.base import ToolInputError

    try:
        data = _decoded(path)
        writes = _writes(data, repo)
        entries = [_from_json(item, repo) for item in data["entries"]]
    except FileNotFoundError:
        return None  # its writer finished meanwhile
    except (*_BROKEN, ToolInputError) as err:
        return Recovered(f"The record of a change devagent was writing, {path}, cannot be read ({str(err)[:120]}); "
                         "it was left as it is, and nothing was changed. Check the files it names, then delete it.", False)
    try:
        with held([(w.path, w.full) for w in writes], wait=0):
            if not path.exists():
                return None
            for write in writes:  # first, as settling writes through the same names again
                _remove_temp(write)
            said = _settle(repo, writes, entries)
            os.unlink(path)
            fsync_dir(str(path.parent))
            return Recovered(said, True)
    except FilesBusy:
        return Recovered("", False)  # its writer is still at work
    except OSError as err:
        return Recovered(f"A change devagent was writing when it stopped could not be settled ({err.strerror or err}: "
                         f"{err.filename}); its record {path} stays for the next start.", False)


def _settle(repo: Path, writes: list[Write], entries: list[tuple[ChangeSet, str]]) -> str:
    now = [_text_now(w.full, w.root) for w in writes]
    undoing = any(c.state == "undone" for c, _ in entries)
    what = "undoing" if undoing else "applying"
    names = ", ".join(w.path for w in writes)
    if all(text == w.base or text == w.new for text, w in zip(now, writes, strict=True)):
        for text, write in zip(now, writes, strict=True):
            if text != write.new:
                put(write, write.new)
        for change_set, session in entries:
            save(repo, change_set, session)
        if undoing:
            return f"devagent stopped while undoing a change to {names}; the undo was finished."
        return (f"devagent stopped while applying a change to {names}; it was finished, and `devagent undo` "
                "(Ctrl+R in the app) puts every file back.")
    changed = [w.path for text, w in zip(now, writes, strict=True) if text != w.base and text != w.new]
    for text, write in zip(now, writes, strict=True):
        if text == write.new and write.new != write.base:
            put(write, write.base)
    return (f"devagent stopped while {what} a change to {names}; {', '.join(changed)} changed since, so it was "
            "rolled back instead: the other files are as they were before it, and those were left as they are.")


def _remove_temp(write: Write) -> None:
    temp = write.full.parent / write.temp
    try:
        # reached as the write reached it, from the root down: a folder swapped for a link
        # since is not followed, so no file outside that bears the name is removed
        remove_file(start(write.full, write.root), temp, only_regular=True)
    except FileNotFoundError:
        pass
    except OSError as err:
        log.warning("a temporary file %s stays: %s", temp, err)


def recover(repo: Path) -> list[str]:
    """Settles every write cut short in `repo` (see the module's note); what to tell the user."""
    folder = journal_dir(repo)
    try:
        names = sorted(n for n in os.listdir(folder) if n.endswith(WRITING))
    except OSError:
        return []
    said = []
    for name in names:
        outcome = _recover_one(repo, folder / name)
        if outcome is not None and outcome.said:
            said.append(outcome.said)
    return said


def _unsettled(repo: Path) -> list[str]:
    try:
        return [n for n in os.listdir(journal_dir(repo)) if n.endswith(WRITING)]
    except OSError:
        return []


# --- undo ----------------------------------------------------------------------------------


def undo_last(repo: Path, session: str | None = None) -> tuple[bool, str]:
    """(whether anything was undone, the sentence for the user).

    The unit is a turn: every applied set of the newest one's turn (a turn of several
    replies held several), made one set whose files go from the last text back to the
    first, so the undo is all or nothing."""
    notes = recover(repo)
    lead = "".join(note + " " for note in notes)
    if _unsettled(repo):
        return False, lead + ("Not undone: a change is being written right now (or its record cannot be read); "
                              "nothing was changed. Try again once it is done.")
    entries = _scan(repo)
    found = sorted(((e.loaded, e.mtime) for e in entries
                    if e.loaded is not None and e.loaded[0].state == "applied" and (session is None or e.loaded[1] == session)),
                   key=lambda pair: (pair[0][0].when, pair[0][0].id), reverse=True)
    newest_written = max((mtime for _, mtime in found[:1]), default=float("-inf"))
    broken = sorted((e for e in entries if e.loaded is None and e.mtime >= newest_written), key=lambda e: -e.mtime)
    if broken:
        return False, lead + (
            f"Not undone: the newest change record, {broken[0].path}, cannot be read ({broken[0].problem}), so the "
            "last turn's change is not known; nothing was changed. Repair or move that file aside, then undo again."
        )
    if not found:
        return False, lead + "There is no applied change of the agent's to undo."
    newest, owner = found[0][0]
    sets = [c for (c, s), _ in found if s == owner and c.turn == newest.turn]
    combined = ChangeSet(newest.id, newest.turn)
    for change_set in sets:  # newest first: a file's last text is the newest set's
        for change in change_set.files:
            known = combined.file(change.full)
            if known is None:
                combined.files.append(FileChange(change.path, change.full, change.before, change.after, change.mode,
                                                  change.root))
            else:
                known.before = change.before  # an older set: the file's text before the turn
    try:
        said = combined.undo(Record(repo, [(c, owner) for c in sets], "undone"))
    except OSError as err:
        return False, lead + f"Not undone: {err.strerror or err} ({err.filename or combined.describe()}). Nothing more was changed."
    if combined.state != "undone":
        return False, lead + said
    return True, lead + said
