"""Memory changes the model asked for that wait for the user (memory_writes = review).

In review mode a write command is checked as it would be when applied (paths, caps,
secrets) and then held here instead: one JSON file per change in the hidden `.pending/`
folder beside the memories, so changes survive a restart and the memory tool's `view`
never lists them. A change records the text of the memory file before and after, so the
user sees a diff, and so accepting it can refuse a file that changed since (a conflict,
never an overwrite). Accepting applies it through the store, whose checks run again.

One path has at most one pending change: a second write to it (a `str_replace` on a file
the model just created, say) folds into the first, so accepting never depends on order.

Decisions are kept until the model has been told: a rejection reaches it at the start
of its next turn, in one line (`take_news`). A conflict stays listed for the user:
accepting it again puts it back in review against the file as it is, rejecting drops it.
"""

from __future__ import annotations

import builtins
import difflib
import json
import os
import secrets as _random
from collections.abc import Callable
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memory import atomic, inputs, paths, results
from memory.errors import CommandError, MemoryStoreError
from memory.state_file import BrokenState, load_json

if TYPE_CHECKING:
    from memory.seam import Store

PENDING_DIR = ".pending"
WRITES = ("auto", "review", "off")
WRITE_COMMANDS = ("create", "str_replace", "insert", "delete", "rename")
PENDING, ACCEPTED, REJECTED, CONFLICT = "pending", "accepted", "rejected", "conflict"


def read_only_result(command: str) -> str:
    return (
        f"Not done: memory is read-only for this session by the user's choice (memory writes: off), "
        f"so {command} changes nothing. You can still view memory; tell the user what you would have saved."
    )


@dataclass
class Change:
    id: str
    command: str  # the model's command that made it (the last one, when several folded)
    path: str  # virtual path of the file changed (the old path of a rename)
    before: str | None  # the file's text when the change was made; None when it did not exist
    after: str | None  # its text once applied; None for a delete
    new_path: str | None = None  # where a rename moves it
    created: str = ""
    status: str = PENDING
    told: bool = False
    note: str = ""  # why a decision went the way it did (a conflict's sentence)

    @property
    def summary(self) -> str:
        if self.command == "rename":
            return f"rename {self.path} -> {self.new_path}"
        if self.before is None:
            return f"create {self.path}"
        if self.after is None:
            return f"delete {self.path}"
        return f"edit {self.path}"

    def diff(self) -> str:
        """A unified diff of the file, before and after."""
        old = (self.before or "").splitlines(keepends=True)
        new = (self.after or "").splitlines(keepends=True)
        target = self.new_path or self.path
        lines = difflib.unified_diff(old, new, "/dev/null" if self.before is None else self.path,
                                     "/dev/null" if self.after is None else target)
        text = "".join(line if line.endswith("\n") else line + "\n" for line in lines)
        if not text and self.new_path:
            return f"renamed, text unchanged: {self.path} -> {self.new_path}\n"
        return text


def _now() -> str:
    # To the microsecond: two changes held in one turn keep their order.
    return datetime.now(UTC).isoformat(timespec="microseconds")


class PendingChanges:
    """The changes waiting beside one memory folder.

    `store` is the MemoryStore (or the two-root memory) the changes are for. It must offer
    `locked()`, `current_text(path)`, `check_write(path, text, old_text)` and
    `apply_change(path, before, after, new_path)`.
    """

    def __init__(self, store: Store, folder: Path | None = None) -> None:
        self.store = store
        self.folder = Path(folder if folder is not None else store.directory) / PENDING_DIR
        self._broken: dict[str, str] = {}  # file name -> why it cannot be read, as of the last listing

    # -- reading, no lock: each change file is replaced whole --------------------------------

    def _load(self, name: str) -> Change | None:
        """A change file, or None when it is missing, unreadable or not one of ours; an
        unreadable one is kept where it is and named in `problems()`. A hand-edited one's
        paths still go through the store's checks when it is accepted."""
        try:
            data = load_json(self.folder / name)
            if data is None:
                return None
            fields = Change.__dataclass_fields__
            change = Change(**{k: v for k, v in data.items() if k in fields})
            texts_ok = all(isinstance(v, str) for v in (change.id, change.command, change.path, change.created, change.status, change.note))
            optional_ok = all(v is None or isinstance(v, str) for v in (change.before, change.after, change.new_path))
            if not (texts_ok and optional_ok and isinstance(change.told, bool) and name == f"{change.id}.json"):
                raise BrokenState("not a held change: a field is missing or of the wrong kind")
        except BrokenState as error:
            self._broken[name] = str(error)
            return None
        except (TypeError, AttributeError):
            self._broken[name] = "not a held change: not a JSON object of its fields"
            return None
        self._broken.pop(name, None)
        return change

    def _all(self) -> list[Change]:
        try:
            names = sorted(n for n in os.listdir(self.folder) if n.endswith(".json") and not n.startswith("."))
        except OSError:
            return []
        self._broken = {}
        found = [self._load(n) for n in names]
        return sorted((c for c in found if c is not None), key=lambda c: (c.created, c.id))

    def problems(self) -> builtins.list[str]:
        """One sentence per held-change file that cannot be read, naming it and what to do.
        Such a file is neither applied nor deleted: it may be a change the user wants."""
        self._all()
        return [
            f"The held change file {self.folder / name} cannot be read: {reason}. It is kept as it is "
            f"and not applied; look at it, then delete it (or fix it by hand)."
            for name, reason in sorted(self._broken.items())
        ]

    # After this method, `list` in the class body names it: later annotations say builtins.list.
    def list(self) -> list[Change]:
        """The changes still waiting for the user, oldest first."""
        return [c for c in self._all() if c.status == PENDING]

    def _decidable(self, change_id: str) -> Change | None:
        """A change the user can still decide on: waiting, or refused by a conflict."""
        change = self._load(f"{change_id}.json") if _valid_id(change_id) else None
        return change if change is not None and change.status in (PENDING, CONFLICT) else None

    # -- writing, under the store's lock --------------------------------------------------

    def _save(self, change: Change) -> None:
        atomic.make_dirs(str(self.folder.parent), str(self.folder))
        data = json.dumps(asdict(change), indent=1, ensure_ascii=False) + "\n"
        atomic.write_file(str(self.folder / f"{change.id}.json"), data.encode("utf-8"))

    def _remove(self, change: Change) -> None:
        try:
            os.unlink(self.folder / f"{change.id}.json")
        except FileNotFoundError:
            pass

    def _new_id(self) -> str:
        while True:
            candidate = _random.token_hex(3)
            if not (self.folder / f"{candidate}.json").exists():
                return candidate

    def hold(self, command: Any) -> tuple[str, bool]:
        """Checks a write command and holds it: (result text for the model, is_error)."""
        try:
            name, args = inputs.parse(command)
            if name == "view":
                raise CommandError("view is not a write; run it through the store.")
            for key in ("path", "old_path", "new_path"):
                if key in args:
                    paths.split(args[key])
            with self.store.locked():
                change = self._plan(name, args)
                if change is None:
                    return f"Successfully deleted {args['path']}: it was only a change waiting for review, now dropped.", False
                self._save(change)
            return _held_result(change), False
        except (CommandError, MemoryStoreError) as error:
            return str(error), True
        except OSError as error:
            return f"Could not hold the change for review: {error.strerror or error}.", True

    def _waiting_for(self, path: str) -> Change | None:
        for change in self.list():
            if path in (change.path, change.new_path):
                return change
        return None

    def _base(self, path: str) -> tuple[Change | None, str | None]:
        """The text a command on `path` starts from: what a waiting change makes of it, or disk."""
        waiting = self._waiting_for(path)
        if waiting is not None:
            if waiting.new_path is not None and path == waiting.path:
                return waiting, None  # renamed away by the waiting change
            return waiting, waiting.after
        return None, self.store.current_text(path)

    def _plan(self, name: str, args: dict[str, Any]) -> Change | None:
        if name == "rename":
            return self._plan_rename(args["old_path"], args["new_path"])
        path = args["path"]
        if paths.split(path) == []:
            raise CommandError(f"Cannot {name} the {paths.ROOT} directory itself")
        waiting, base = self._base(path)
        if name == "delete":
            if base is None:
                raise CommandError(f"The path {path} does not exist")
            after = None
        elif name == "create":
            after = args["file_text"]
        elif base is None:
            raise CommandError(results.not_found(path))
        elif name == "str_replace":
            results.occurrences(path, base, args["old_str"])
            after = base.replace(args["old_str"], args.get("new_str", ""))
        else:
            after = results.inserted(base, args["insert_line"], args["insert_text"])
        if after is not None:
            self.store.check_write(path, after, base)
        if waiting is not None:
            if waiting.before is None and after is None:
                self._remove(waiting)  # created and deleted again: nothing is left to review
                return None
            waiting.after, waiting.command, waiting.created = after, name, _now()
            return waiting
        return Change(self._new_id(), name, path, base, after, created=_now())

    def _plan_rename(self, old_path: str, new_path: str) -> Change:
        if paths.split(old_path) == []:
            raise CommandError(f"Cannot rename the {paths.ROOT} directory itself")
        for path in (old_path, new_path):
            if self._waiting_for(path) is not None:
                raise CommandError(
                    f"{path} already has a change waiting for the user's review; rename it once they have decided."
                )
        text = self.store.current_text(old_path)
        if text is None:
            raise CommandError(f"The path {old_path} does not exist")
        if self.store.current_text(new_path) is not None:
            raise CommandError(f"The destination {new_path} already exists")
        self.store.check_write(new_path, text, None)
        return Change(self._new_id(), "rename", old_path, text, text, new_path=new_path, created=_now())

    # -- the user's decisions -------------------------------------------------------------

    def accept(self, change_id: str) -> tuple[str, bool]:
        """Applies a change through the store: (sentence for the user, refused).

        A change that met a conflict is not applied on a second try: it goes back in review,
        against the file as it is now, so the user sees a diff that undoes nothing unseen."""
        try:
            with self.store.locked():
                change = self._decidable(change_id)
                if change is None:
                    return f"There is no pending memory change {change_id}.", True
                if change.status == CONFLICT:
                    return self._rebase(change)
                try:
                    self.store.apply_change(change.path, change.before, change.after, change.new_path)
                except CommandError as error:
                    change.status, change.note = CONFLICT, str(error)
                    self._save(change)
                    return f"Not applied: {error}", True
                change.status = ACCEPTED
                self._save(change)
            return f"Accepted: {change.summary}", False
        except (MemoryStoreError, OSError) as error:
            return f"Could not accept {change_id}: {error}", True

    def reject(self, change_id: str) -> tuple[str, bool]:
        """Drops a change, one waiting or one that met a conflict; the model hears so."""
        try:
            with self.store.locked():
                change = self._decidable(change_id)
                if change is None:
                    return f"There is no pending memory change {change_id}.", True
                change.status, change.told = REJECTED, False
                self._save(change)
            return f"Rejected: {change.summary}", False
        except (MemoryStoreError, OSError) as error:
            return f"Could not reject {change_id}: {error}", True

    def decide_all(self, decide: Callable[[str], tuple[str, bool]]) -> builtins.list[tuple[str, bool]]:
        return [decide(change.id) for change in self.list()]

    def _rebase(self, change: Change) -> tuple[str, bool]:
        """A conflicting change back in review, based on the file as it is now."""
        for path in (change.path, change.new_path):
            newer = self._waiting_for(path) if path is not None else None
            if newer is not None:
                return (f"A newer change to {path} waits for review ({newer.summary}): decide on that one, "
                        f"or reject this one."), True
        change.before, change.status, change.note = self.store.current_text(change.path), PENDING, ""
        change.told = False  # the model heard of the conflict; it hears of the decision too
        self._save(change)
        return f"Back in review, against the file as it is now: {change.summary}", False

    def conflicts(self) -> builtins.list[Change]:
        return [c for c in self._all() if c.status == CONFLICT]

    def take_news(self, *, first_turn: bool = False) -> str | None:
        """One line for the model about decisions it has not heard of, then forgets them. At
        the `first_turn` of a new session the model had no turn to hear them since: they were
        made on changes an earlier session held."""
        with self.store.locked():
            decided = [c for c in self._all() if c.status in (ACCEPTED, REJECTED, CONFLICT) and not c.told]
            if not decided:
                return None
            parts = []
            for status, words in ((REJECTED, "rejected"), (ACCEPTED, "accepted"), (CONFLICT, "could not apply (the file changed since)")):
                names = [c.summary for c in decided if c.status == status]
                if names:
                    parts.append(f"{words} {', '.join(names)}")
            for change in decided:
                if change.status == CONFLICT:
                    change.told = True
                    self._save(change)  # stays listed for the user to accept again or reject
                else:
                    self._remove(change)
        return f"Memory review {news_since(first_turn)}: the user " + "; ".join(parts) + "."


def news_since(first_turn: bool) -> str:
    return "since the last session" if first_turn else "since your last turn"


def _valid_id(change_id: str) -> bool:
    return isinstance(change_id, str) and 0 < len(change_id) <= 16 and all(c in "0123456789abcdef" for c in change_id)


def _held_result(change: Change) -> str:
    return (
        f"Held for review, not in memory yet: {change.summary} waits for the user to accept or reject it "
        f"(pending change {change.id}). Do not send it again; until they accept it, memory does not hold it."
    )
