"""The storage behind Claude's memory tool (memory_20250818).

The model sends commands (view, create, str_replace, insert, delete, rename) on a virtual
`/memories` directory; this runs them on one real folder per repository. Every path and
every text it receives comes from the model and is treated as untrusted input. Results,
success and error, are the SDK's own strings (see memory/results.py) except where the
SDK is wrong: `/memoriesX` is refused, a non-UTF-8 file is an error result, `str_replace`
without `new_str` removes the text, and `create` overwrites an existing file.

MemoryStore puts together the parts, each in its own module: the commands
(memory/commands.py), the write policy (memory/policy.py), the folder lock
(memory/lock.py), the read-only catalog (memory/catalog.py) and, for a store that knows
its repository, the evidence kept beside the memories (memory/evidence.py). A store
answers to /memories, or to /memories/user for the user-wide folder (memory/roots.py).

How each method reports a problem to a Python caller:

- `run`, `save` and `delete` return `(text, is_error)` and never raise: their text goes
  back to the model or to the editor as it is.
- `read` and `reindex` raise a `MemoryStoreError` subclass (errors.py) with a sentence a
  user can act on; so do `current_text`, `check_write` and `apply_change` (CommandError),
  which memory/pending.py calls inside `locked()`.
- The listings (`memories`, `skipped`, `preload`, `index_text`, `index_problems`,
  `total_chars`, `evidence`) and the constructor do not raise for a folder problem: what
  cannot be read is left out, and a missing folder reads as empty.

The anthropic SDK, filelock and yaml are imported only when first needed: the app imports
this module while it paints its first screen.
"""

from __future__ import annotations

import logging
import os
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memory import atomic, folder_trust, inputs, paths
from memory.catalog import Catalog
from memory.commands import Commands
from memory.errors import (
    CommandError,
    MemoryNotFound,
    MemoryNotText,
    MemoryNotWritable,
    MemoryPathError,
    MemoryStoreError,
)
from memory.evidence_file import EvidenceKeeper
from memory.files import NotText, read_text
from memory.lock import FolderLock, is_no_write, read_only
from memory.notes import INDEX_NAME, MemoryInfo
from memory.policy import WritePolicy
from memory.preload import LeftOut, Preload
from memory.private import make_private
from memory.quoting import quoted
from memory.walk import Skipped

if TYPE_CHECKING:
    from memory.evidence import CitationCheck

_log = logging.getLogger(__name__)


def _data_folder_above(directory: Path) -> Path | None:
    """devagent's data folder when `directory` lies in it: each level from there down is
    checked too. None for a folder elsewhere (a test's, a configured one)."""
    from memory.location import data_dir

    top = data_dir()
    absolute = Path(os.path.abspath(directory))
    return top if top in absolute.parents else None
_PATH_FIELDS = ("path", "old_path", "new_path")


class MemoryStore:
    ROOT = paths.ROOT

    def __init__(
        self,
        directory: Path,
        *,
        max_file_chars: int = 4000,
        max_total_chars: int = 6000,
        lock_timeout: float = 2.0,
        repo: Path | None = None,
        root: str = paths.ROOT,
    ) -> None:
        self.directory = Path(directory)
        self.lock_timeout = lock_timeout
        # The virtual path this folder answers to: /memories, or /memories/user.
        self.ROOT = root
        # The working tree whose code the memories cite: set, every write fingerprints
        # the citations (memory/evidence.py).
        self.repo = Path(repo) if repo is not None else None
        self._top = _data_folder_above(self.directory)
        try:
            if folder_trust.problem(self.directory, self._top) is None:
                make_private(self.directory)
        except OSError:
            pass  # an unwritable data dir must not stop the app; each command reports it
        # Resolved once: every containment check compares against this exact string.
        self._root = os.path.realpath(self.directory)
        self.policy = WritePolicy(self._root, max_file_chars, max_total_chars)
        self.catalog = Catalog(self._root, root)
        keeper = EvidenceKeeper(self._root, self.repo) if self.repo is not None else None
        self.commands = Commands(self._root, self.policy, root, keeper)
        self._lock = FolderLock(self._root, lock_timeout, self._sweep)
        # Sentences about the folder that did not stop anything (a failed sweep): the CLI
        # prints them as notes, the log keeps them.
        self.warnings: list[str] = []
        self._sweep_orphans()

    def refusal(self) -> str | None:
        """Why the folder is neither read nor written (another user's, writable by all, or
        unreadable; memory/folder_trust.py), or None. Looked at on each use: a few stats."""
        try:
            return folder_trust.problem(self.directory, self._top)
        except OSError as error:
            return f"The memory folder {self.directory} cannot be checked: {error.strerror or error}."

    @classmethod
    def for_repository(cls, repo: Path, **kw: Any) -> MemoryStore:
        from memory.location import memory_dir_for

        return cls(memory_dir_for(Path(repo)), repo=Path(repo), **kw)

    def roots(self) -> list[MemoryStore]:
        """Its folders, as memory.roots.MemoryRoots gives both of its own: this one."""
        return [self]

    @property
    def max_file_chars(self) -> int:
        return self.policy.max_file_chars

    @property
    def max_total_chars(self) -> int:
        return self.policy.max_total_chars

    # -- opening ---------------------------------------------------------------------------

    def _sweep_orphans(self) -> None:
        """Takes the lock once, without waiting, so that its first hold sweeps."""
        try:
            with self._lock.held(timeout=0):
                pass
        except (MemoryStoreError, OSError):
            pass  # a live session is writing (or the folder is unusable); the first command sweeps

    def _sweep(self) -> None:
        """Removes half-written temp files; a problem here is a warning, never a failed open."""
        try:
            atomic.remove_orphans(self._root)
        except Exception as error:  # noqa: BLE001 - whatever the folder holds, the store opens
            warning = f"Could not sweep half-written files from {self.directory}: {type(error).__name__}: {error}"
            self.warnings.append(warning)
            _log.warning(warning)

    # -- the model's commands --------------------------------------------------------------

    def run(self, command: dict[str, Any]) -> tuple[str, bool]:
        """Runs one memory command: (result text, is_error). Never raises."""
        refused = self.refusal()
        if refused:
            return refused, True
        try:
            name, args = inputs.parse(command)
            for key in _PATH_FIELDS:
                if key in args:
                    paths.split(args[key], self.ROOT)  # refused by its parts before waiting for the lock
            if name == "view":
                # Reads need no lock (writes replace files whole), so an unusable lock file
                # or a read-only folder still lets the model read its memory.
                self._make_folder()
                return self.commands.dispatch(name, args), False
            with self._lock.held():
                return self._with_notices(self.commands.dispatch(name, args)), False
        except (CommandError, MemoryStoreError) as error:
            return self._with_notices(str(error)), True
        except OSError as error:
            return self._with_notices(self._os_error(command, error)), True
        except Exception as error:  # a bug must not end the session: the model gets the text
            return f"The memory command failed: {type(error).__name__}: {quoted(str(error))}", True

    def _with_notices(self, text: str) -> str:
        """The result with what went wrong beside the command itself (memory/evidence_file.py)."""
        keeper = self.commands.evidence
        notices = keeper.take_notices() if keeper is not None else []
        for notice in notices:
            _log.warning(notice)
        return "\n\n".join([text, *notices]) if notices else text

    def _os_error(self, command: Any, error: OSError) -> str:
        name = command.get("command") if isinstance(command, dict) else "run"
        if name != "view" and is_no_write(error):
            return read_only(self._root, error)
        where = ""
        if isinstance(command, dict):
            where = str(command.get("path") or command.get("old_path") or "")
        reason = error.strerror or str(error)
        return f"Could not {name} {quoted(where)}: {reason}.".replace("  ", " ")

    def _make_folder(self) -> None:
        """The folder may have been deleted to make the agent forget: start an empty store."""
        try:
            make_private(self._root)
        except OSError:
            if not os.path.isdir(self._root):
                raise

    # -- the editor, the pane and the CLI --------------------------------------------------

    def read(self, path: str) -> str:
        """The text of a memory file; MemoryStoreError subclasses on problems."""
        refused = self.refusal()
        if refused:
            raise MemoryNotWritable(refused)
        try:
            real = self.commands.resolve(path)
        except CommandError as error:
            raise MemoryPathError(str(error)) from None
        if not os.path.isfile(real):
            raise MemoryNotFound(f"There is no memory file at {quoted(path)}.")
        try:
            return read_text(real, path)
        except NotText as error:
            raise MemoryNotText(str(error)) from None
        except CommandError as error:
            raise MemoryStoreError(str(error)) from None
        except OSError as error:
            raise MemoryStoreError(f"Could not read {quoted(path)}: {error.strerror or error}.") from None

    def save(self, path: str, text: str, *, expected: str | None = None) -> tuple[str, bool]:
        """Creates or overwrites a file from the editor, through the same checks as the
        model's writes. With `expected`, refuses if the file changed on disk meanwhile."""
        refused = self.refusal()
        if refused:
            return refused, True
        try:
            if not isinstance(path, str) or not isinstance(text, str):
                raise CommandError("The path and the text must be strings.")
            paths.split(path, self.ROOT)
            with self._lock.held():
                self.commands.save(path, text, expected)
            return self._with_notices(f"Saved {path}"), False
        except (CommandError, MemoryStoreError) as error:
            return str(error), True
        except OSError as error:
            if is_no_write(error):
                return read_only(self._root, error), True
            return f"Could not save {quoted(path)}: {error.strerror or error}.", True
        except Exception as error:
            return f"Could not save {quoted(path)}: {type(error).__name__}: {quoted(str(error))}", True

    def delete(self, path: str) -> tuple[str, bool]:
        return self.run({"command": "delete", "path": path})

    def forget(self, path: str) -> tuple[str, bool, list[str]]:
        """The user's delete (the pane): the file, and the MEMORY.md lines that are its entry,
        since a line's description is the memory in short and would go on being sent.
        (message, refused, the index lines taken out, for `index_lines_back`)."""
        message, refused = self.delete(path)
        if refused:
            return message, refused, []
        try:
            with self._lock.held():
                old_text = self.catalog.index_text()
                kept, dropped = self.catalog.without_entry(old_text, self.catalog.relative(path))
                if dropped:
                    atomic.write_file(os.path.join(self._root, INDEX_NAME), kept.encode("utf-8"))
        except (OSError, MemoryStoreError) as error:
            _log.warning("%s: its line in %s/%s was not taken out: %s", path, self.ROOT, INDEX_NAME, error)
            return message, refused, []
        return message, refused, dropped

    def index_lines_back(self, path: str, lines: list[str]) -> None:
        """Undoing the `forget` of `path`: its index lines at the end of MEMORY.md, unless
        already there."""
        if not lines:
            return
        try:
            with self._lock.held():
                old_text = self.catalog.index_text()
                present = set(old_text.splitlines())
                new = [line for line in lines if line not in present]
                if new:
                    text = old_text + ("" if not old_text or old_text.endswith("\n") else "\n") + "\n".join(new) + "\n"
                    atomic.write_file(os.path.join(self._root, INDEX_NAME), text.encode("utf-8"))
        except (OSError, MemoryStoreError) as error:
            _log.warning("the index lines of a restored memory were not put back: %s", error)

    def reindex(self) -> None:
        """Repairs MEMORY.md from the files (see Catalog.reindexed). Raises MemoryStoreError:
        MemoryBusy when another session holds the lock, MemoryNotWritable when it cannot be had."""
        refused = self.refusal()
        if refused:
            raise MemoryNotWritable(refused)
        try:
            with self._lock.held():
                old_text = self.catalog.index_text()
                new_text = self.catalog.reindexed(old_text)
                if new_text != old_text:
                    atomic.write_file(os.path.join(self._root, INDEX_NAME), new_text.encode("utf-8"))
        except OSError as error:
            if is_no_write(error):
                raise MemoryNotWritable(read_only(self._root, error)) from None
            raise MemoryStoreError(f"Could not rewrite {self.ROOT}/{INDEX_NAME}: {error.strerror or error}.") from None

    # -- what the folder holds (memory/catalog.py) -----------------------------------------

    # A refused folder lists as nothing but itself, skipped with the reason: its notes
    # must not reach the prompt, and it must not read as empty either.

    def memories(self) -> list[MemoryInfo]:
        """Every .md memory file except the index, sorted by path."""
        return [] if self.refusal() else self.catalog.memories()

    def skipped(self) -> list[Skipped]:
        """What the folder holds that is not read as a memory, each with the reason."""
        refused = self.refusal()
        return [Skipped(self.ROOT + "/", refused)] if refused else self.catalog.skipped()

    def preload(self) -> Preload:
        """What preloading puts in a prompt (within the caps), and what it leaves out."""
        refused = self.refusal()
        if refused:
            return Preload(left_out=[LeftOut(self.ROOT + "/", "skipped", None, refused)])
        return self.catalog.preload(self.max_file_chars, self.max_total_chars)

    def total_chars(self) -> int:
        """Characters in every memory file, MEMORY.md included."""
        return 0 if self.refusal() else self.policy.total_chars()

    def index_text(self) -> str:
        return "" if self.refusal() else self.catalog.index_text()

    def index_problems(self) -> list[str]:
        refused = self.refusal()
        return [refused] if refused else self.catalog.index_problems()

    def evidence(self, repo: Path | None = None) -> dict[str, list[CitationCheck]]:
        """Virtual path -> the checks of its citations (memory/evidence.py), worst first,
        against `repo`'s working tree (the store's own repository by default)."""
        repo = Path(repo) if repo is not None else self.repo
        return self.catalog.evidence(repo) if repo is not None and not self.refusal() else {}

    # -- review: a change checked, then applied, as one step (memory/pending.py) -----------

    def locked(self) -> AbstractContextManager[None]:
        """The folder lock, for a caller that reads, decides and writes as one step. A
        command run inside it takes it again without waiting (the lock is reentrant)."""
        refused = self.refusal()
        if refused:
            raise MemoryNotWritable(refused)
        return self._lock.held()

    def current_text(self, path: str) -> str | None:
        """The text at `path`, None when there is no file; CommandError for a folder."""
        real = self.commands.resolve(path)
        if os.path.isdir(real):
            raise CommandError(f"{quoted(path)} is a folder; while memory writes are reviewed, change its files one at a time.")
        if not os.path.lexists(real):
            return None
        return read_text(real, path)

    def check_write(self, path: str, text: str, old_text: str | None) -> None:
        """CommandError when writing `text` at `path` would be refused."""
        self.policy.check(self.commands.resolve(path), path, text, old_text)

    def apply_change(self, path: str, before: str | None, after: str | None, new_path: str | None = None) -> None:
        """Applies a held change through the commands, checked again: CommandError when
        `path` no longer holds `before` (a conflict, never overwritten) or the write is refused."""
        with self._lock.held():
            current = self.current_text(path)
            if current != before:
                if before is None:
                    raise CommandError(f"{quoted(path)} was created since this change was proposed; review the file first.")
                if current is None:
                    raise CommandError(f"{quoted(path)} was deleted since this change was proposed.")
                raise CommandError(f"{quoted(path)} changed since this change was proposed; its new text was kept.")
            if new_path is not None:
                if self.current_text(new_path) is not None:
                    raise CommandError(f"{quoted(new_path)} exists now; the rename would replace it.")
                if after == before:
                    self.commands.rename(path, new_path)
                else:
                    self.commands.create(new_path, after or "")
                    self.commands.delete(path)
            elif after is None:
                self.commands.delete(path)
            else:
                self.commands.save(path, after, None)
            self._with_notices("")  # no result to carry them: the log and `memory check` do
