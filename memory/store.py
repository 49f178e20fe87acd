"""The storage behind Claude's memory tool (memory_20250818).

The model sends commands (view, create, str_replace, insert, delete, rename) on a virtual
`/memories` directory; this runs them on one real folder per repository. Every path and
every text it receives comes from the model and is treated as untrusted input. Results,
success and error, are the SDK's own strings (see memory/results.py) except where the
SDK is wrong: `/memoriesX` is refused, a non-UTF-8 file is an error result, `str_replace`
without `new_str` removes the text, and `create` overwrites an existing file.

The anthropic SDK, filelock and yaml are imported only when first needed: the app imports
this module while it paints its first screen.
"""

from __future__ import annotations

import errno
import logging
import os
import stat
import time
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

from memory import atomic, inputs, paths, results
from memory.errors import (
    CommandError,
    MemoryNotFound,
    MemoryNotWritable,
    MemoryNotText,
    MemoryPathError,
    MemoryStoreError,
)
from memory.lock import FolderLock, is_no_write, read_only
from memory.notes import INDEX_NAME, MemoryInfo, age_text, describe, frontmatter, index_entries, index_line
from memory.preload import Preload, left_out_note, preload
from memory.quoting import quoted
from memory.secrets import find_secrets, mask_secrets
from memory.walk import Skipped, walk

_O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_O_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_O_BINARY = getattr(os, "O_BINARY", 0)

_log = logging.getLogger(__name__)


def _merge_hint() -> str:
    return "Merge or delete entries that are no longer true, then try again."


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
        # The virtual path this folder answers to: /memories, or /memories/user for the
        # user-wide folder (memory/roots.py).
        self.ROOT = root
        # The working tree whose code the memories cite: set, every write fingerprints
        # the citations (memory/evidence.py).
        self.repo = Path(repo) if repo is not None else None
        self.max_file_chars = max_file_chars
        self.max_total_chars = max_total_chars
        self.lock_timeout = lock_timeout
        try:
            os.makedirs(self.directory, mode=atomic.DIR_MODE, exist_ok=True)
        except OSError:
            pass  # an unwritable data dir must not stop the app; each command reports it
        # Resolved once: every containment check compares against this exact string.
        self._root = os.path.realpath(self.directory)
        self._lock = FolderLock(self._root, lock_timeout, self._sweep)
        # real path -> (mtime_ns, size, inode, characters): the total cap reads every file
        # on each write, and most of them have not changed since the last one.
        self._sizes: dict[str, tuple[int, int, int, int]] = {}
        # Sentences about the folder that did not stop anything (a failed sweep): the CLI
        # prints them as notes, the log keeps them.
        self.warnings: list[str] = []
        self._sweep_orphans(wait=0)

    @classmethod
    def for_repository(cls, repo: Path, **kw: Any) -> MemoryStore:
        from memory.location import memory_dir_for

        return cls(memory_dir_for(Path(repo)), repo=Path(repo), **kw)

    # -- locking ---------------------------------------------------------------------------

    def _locked(self, timeout: float | None = None) -> AbstractContextManager[None]:
        """The cross-process lock, held for a whole command's read-modify-write."""
        return self._lock.held(timeout)

    def _sweep_orphans(self, wait: float) -> None:
        try:
            with self._locked(timeout=wait):
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

    # -- the six commands ------------------------------------------------------------------

    def run(self, command: dict) -> tuple[str, bool]:
        """Runs one memory command: (result text, is_error). Never raises."""
        try:
            name, args = inputs.parse(command)
            for key in ("path", "old_path", "new_path"):
                if key in args:
                    paths.split(args[key], self.ROOT)  # refused by its parts before waiting for the lock
            if name == "view":
                # Reads need no lock (writes replace files whole), so an unusable lock file
                # or a read-only folder still lets the model read its memory.
                self._make_folder()
                return self._view(**args), False
            with self._locked():
                return getattr(self, f"_{name}")(**args), False
        except CommandError as error:
            return str(error), True
        except MemoryStoreError as error:
            return str(error), True
        except OSError as error:
            return self._os_error(command, error), True
        except Exception as error:  # a bug must not end the session: the model gets the text
            return f"The memory command failed: {type(error).__name__}: {quoted(str(error))}", True

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
            os.makedirs(self._root, mode=atomic.DIR_MODE, exist_ok=True)
        except OSError:
            if not os.path.isdir(self._root):
                raise

    def _resolve(self, path: str) -> str:
        return paths.resolve(self._root, path, self.ROOT)

    def _view(self, path: str, view_range: list[int] | None = None) -> str:
        real = self._resolve(path)
        try:
            leaf = os.lstat(real)
        except (FileNotFoundError, NotADirectoryError):
            raise CommandError(results.not_found(path)) from None
        if stat.S_ISDIR(leaf.st_mode):
            return results.listing(path, leaf.st_size, self._listing_items(real))
        if stat.S_ISREG(leaf.st_mode):
            return results.numbered(path, self._read_text(real, path), view_range)
        raise CommandError(f"Unsupported file type for {quoted(path)}")

    def _listing_items(self, real: str) -> list[tuple[int, str]]:
        items: list[tuple[int, str]] = []

        def collect(directory: str, relative: str, depth: int) -> None:
            try:
                names = sorted(os.listdir(directory))
            except OSError:
                return
            for name in names:
                if name.startswith("."):
                    continue
                item = os.path.join(directory, name)
                rel = f"{relative}/{name}" if relative else name
                try:
                    if not paths.contained(self._root, os.path.realpath(item)):
                        continue
                    info = os.stat(item)
                except (OSError, ValueError):
                    continue
                if stat.S_ISDIR(info.st_mode):
                    items.append((info.st_size, f"{rel}/"))
                    if depth < 2:
                        collect(item, rel, depth + 1)
                elif stat.S_ISREG(info.st_mode):
                    items.append((info.st_size, rel))

        collect(real, "", 1)
        return items

    def _create(self, path: str, file_text: str) -> str:
        real = self._resolve(path)
        if os.path.isdir(real):
            raise CommandError(f"File {quoted(path)} already exists")
        self._make_parent(real, path)
        self._write(real, path, file_text, self._old_text(real))
        return results.created(path)

    def _str_replace(self, path: str, old_str: str, new_str: str = "") -> str:
        real, content = self._existing_file(path)
        results.occurrences(path, content, old_str)
        changed_line_index = content[: content.find(old_str)].count("\n")
        new_content = content.replace(old_str, new_str)
        self._write(real, path, new_content, content)
        return results.replaced(new_content, changed_line_index)

    def _insert(self, path: str, insert_line: int, insert_text: str) -> str:
        real, content = self._existing_file(path)
        new_content = results.inserted(content, insert_line, insert_text)
        self._write(real, path, new_content, content)
        return results.edited(path)

    def _delete(self, path: str) -> str:
        real = self._resolve(path)
        if real == self._root:
            raise CommandError(f"Cannot delete the {self.ROOT} directory itself")
        if os.path.isfile(real):
            os.unlink(real)
        elif os.path.isdir(real):
            atomic.remove_tree(real)
        else:
            raise CommandError(f"The path {quoted(path)} does not exist")
        self._evidence_changed(lambda records: records.forget(self._relative(real)))
        return results.deleted(path)

    def _rename(self, old_path: str, new_path: str) -> str:
        old_real = self._resolve(old_path)
        new_real = self._resolve(new_path)
        if old_real == self._root:
            raise CommandError(f"Cannot rename the {self.ROOT} directory itself")
        if os.path.exists(new_real):
            raise CommandError(f"The destination {quoted(new_path)} already exists")
        if not os.path.lexists(old_real):
            raise CommandError(f"The path {quoted(old_path)} does not exist")
        self._refuse_secret_path(new_path)
        if paths.contained(old_real, new_real):
            raise CommandError(f"Cannot move {quoted(old_path)} into itself ({quoted(new_path)}).")
        self._make_parent(new_real, new_path)
        # Atomic, but not forced to disk: a power cut right after may undo the rename,
        # leaving the old name, never a broken file. The SDK does the same.
        os.rename(old_real, new_real)
        self._evidence_changed(lambda records: records.move(self._relative(old_real), self._relative(new_real)))
        return results.renamed(old_path, new_path)

    # -- reading and writing files ---------------------------------------------------------

    def _existing_file(self, path: str) -> tuple[str, str]:
        real = self._resolve(path)
        if not os.path.exists(real):
            raise CommandError(results.not_found(path))
        if not os.path.isfile(real):
            raise CommandError(f"The path {quoted(path)} is not a file.")
        return real, self._read_text(real, path)

    @staticmethod
    def _read_bytes(real: str, path: str) -> bytes:
        try:
            fd = os.open(real, os.O_RDONLY | _O_NOFOLLOW | _O_NONBLOCK | _O_BINARY)
        except FileNotFoundError:
            raise CommandError(
                f"The file {quoted(path)} no longer exists (may have been deleted or renamed concurrently)."
            ) from None
        except OSError as error:
            if error.errno in (errno.ELOOP, errno.EMLINK):  # O_NOFOLLOW met a symlink
                raise CommandError(f"path {quoted(path)!r} is a symlink") from None
            raise
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise CommandError(f"path {quoted(path)!r} is not a regular file")
            chunks = []
            while True:
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    break
                chunks.append(chunk)
            return b"".join(chunks)
        finally:
            os.close(fd)

    def _read_text(self, real: str, path: str) -> str:
        data = self._read_bytes(real, path)
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            raise CommandError(
                f"The file {quoted(path)} is not UTF-8 text, so it cannot be viewed or edited. "
                f"Delete it, or replace it with create."
            ) from None

    def _old_text(self, real: str) -> str | None:
        try:
            with open(real, "rb") as handle:
                return handle.read().decode("utf-8", errors="replace")
        except OSError:
            return None

    def _make_parent(self, real: str, path: str) -> None:
        os.makedirs(self._root, mode=atomic.DIR_MODE, exist_ok=True)
        try:
            atomic.make_dirs(self._root, os.path.dirname(real))
        except NotADirectoryError as error:
            blocker = paths.to_virtual(self._root, error.filename or os.path.dirname(real), self.ROOT)
            raise CommandError(f"Cannot write {quoted(path)}: {blocker} is a file, not a directory.") from None

    @staticmethod
    def _refuse_lookalike_name(path: str, text: str, old_text: str | None) -> None:
        """The pane shows a memory by its frontmatter name and description: neither may
        hold characters that make it show as something else (unless it already did)."""
        meta = frontmatter(text) if text.startswith("---") else {}
        old = frontmatter(old_text) if meta and old_text and old_text.startswith("---") else {}
        for key in ("name", "description"):
            value = meta.get(key)
            if value == old.get(key):
                continue
            found = next((c for c in str(value) if c in paths.BIDI_CONTROLS or c in paths.INVISIBLE), None)
            if value is not None and found:
                raise CommandError(
                    f"Not written: the {key} in {quoted(path)}'s frontmatter holds U+{ord(found):04X}, "
                    f"a bidirectional control or invisible character that makes it show as something "
                    f"else. Leave it out."
                )

    def _refuse_secret_path(self, path: str) -> None:
        found = find_secrets(path)
        if found:
            masked, _ = mask_secrets(path)
            raise CommandError(
                f"Not written: the path {quoted(masked)} contains something shaped like a credential "
                f"({found[0].kind}). Secrets never go into memory."
            )

    def _write(self, real: str, path: str, text: str, old_text: str | None) -> None:
        """Every write goes through here: secret filter, caps, an atomic replace, evidence."""
        self._check_write(real, path, text, old_text)
        atomic.write_file(real, text.encode("utf-8"))
        if self.repo is not None and os.path.basename(real) != INDEX_NAME:
            repo = self.repo
            self._evidence_changed(lambda records: records.record(self._relative(real), old_text, text, repo))

    def _check_write(self, real: str, path: str, text: str, old_text: str | None) -> None:
        """Refuses a write the store would not make: a secret, a cap."""
        self._refuse_secret_path(path)
        self._refuse_lookalike_name(path, text, old_text)
        found = find_secrets(text)
        old_values = {old_text[s.start : s.end] for s in find_secrets(old_text)} if found and old_text else set()
        for secret in found:
            # A secret already on disk (put there outside the tool) must not block every edit.
            if text[secret.start : secret.end] not in old_values:
                raise CommandError(
                    f"Not written: {quoted(path)} would contain something shaped like a credential "
                    f"({secret.kind}). Secrets never go into memory: leave the value out, or "
                    f"note where it is kept instead."
                )
        new_size = len(text)
        old_size = len(old_text) if old_text is not None else 0
        if new_size > self.max_file_chars and new_size > old_size:
            raise CommandError(
                f"Not written: {quoted(path)} would be {new_size:,} characters, over the "
                f"{self.max_file_chars:,}-character limit for one memory file. {_merge_hint()}"
            )
        total_before = self._total_chars()
        total_after = total_before - (self._chars_of(real) if old_text is not None else 0) + new_size
        if total_after > self.max_total_chars and total_after > total_before:
            raise CommandError(
                f"Not written: memory would total {total_after:,} characters, over the "
                f"{self.max_total_chars:,}-character limit for all memory files. {_merge_hint()}"
            )

    # -- evidence ----------------------------------------------------------------------------

    def _relative(self, real: str) -> str:
        return os.path.relpath(real, self._root).replace(os.sep, "/")

    def _evidence_changed(self, change: Any) -> None:
        """Updates .evidence.json under the lock the memory write holds. A failure here
        leaves the memory written and its citations unrecorded, never a failed write."""
        from memory.evidence import EvidenceFile

        try:
            records = EvidenceFile.load(Path(self._root))
            if change(records):
                records.save()
        except Exception:  # noqa: BLE001 - evidence is advice; the write already happened
            pass

    def evidence(self, repo: Path | None = None) -> dict[str, list]:
        """Virtual path -> the checks of its citations (memory/evidence.py), worst first,
        against `repo`'s working tree (the store's own repository by default)."""
        from memory.evidence import EvidenceFile, Tree, check_text

        repo = Path(repo) if repo is not None else self.repo
        if repo is None:
            return {}
        records = EvidenceFile.load(Path(self._root))
        tree = Tree(repo)
        checks: dict[str, list] = {}
        for info in self.memories():
            try:
                text = info.file.read_bytes().decode("utf-8", errors="replace")
            except OSError:
                continue
            checks[info.path] = check_text(text, repo, records.get(self._relative(str(info.file))), tree)
        return checks

    # -- review: checking and applying a change without the memory tool ----------------------

    def locked(self) -> AbstractContextManager[None]:
        """The store's lock, for a caller that reads, decides and writes as one step
        (memory/pending.py). Commands run inside it take it again without waiting."""
        return self._locked()

    def current_text(self, path: str) -> str | None:
        """The text of the memory file at `path`, None when there is none; CommandError for
        a folder or a file that is not UTF-8."""
        real = self._resolve(path)
        if os.path.isdir(real):
            raise CommandError(f"{quoted(path)} is a folder; while memory writes are reviewed, change its files one at a time.")
        if not os.path.lexists(real):
            return None
        return self._read_text(real, path)

    def check_write(self, path: str, text: str, old_text: str | None) -> None:
        """Raises CommandError when writing `text` at `path` would be refused."""
        self._check_write(self._resolve(path), path, text, old_text)

    def apply_change(self, path: str, before: str | None, after: str | None, new_path: str | None = None) -> None:
        """Applies a held change, checked again: CommandError when `path` no longer holds
        `before` (a conflict: never overwritten) or the write is refused."""
        with self._locked():
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
                    self._rename(path, new_path)
                else:
                    self._create(new_path, after or "")
                    self._delete(path)
            elif after is None:
                self._delete(path)
            else:
                real = self._resolve(path)
                self._make_parent(real, path)
                self._write(real, path, after, current)

    # -- sizes -----------------------------------------------------------------------------

    def _files(self) -> list[str]:
        """Every regular, visible file in the folder (symlinks are neither followed nor counted)."""
        return walk(self._root).files

    def skipped(self) -> list[Skipped]:
        """What the folder holds that is not read as a memory, each with the reason."""
        return walk(self._root).skipped

    def _chars_of(self, real: str) -> int:
        try:
            info = os.stat(real, follow_symlinks=False)
        except OSError:
            return 0
        key = (info.st_mtime_ns, info.st_size, info.st_ino)
        cached = self._sizes.get(real)
        if cached is not None and cached[:3] == key:
            return cached[3]
        try:
            with open(real, "rb") as handle:
                chars = len(handle.read().decode("utf-8", errors="replace"))
        except OSError:
            return 0
        self._sizes[real] = (*key, chars)
        return chars

    def _total_chars(self) -> int:
        return sum(self._chars_of(f) for f in self._files())

    def total_chars(self) -> int:
        """Characters in every memory file, MEMORY.md included: what preloading costs."""
        return self._total_chars()

    # -- the notes, for the agent and the side pane ----------------------------------------

    def memories(self) -> list[MemoryInfo]:
        """Every .md memory file except the index, sorted by path. Reads need no lock:
        writes replace files whole, so a reader sees the old text or the new."""
        found: list[MemoryInfo] = []
        index = os.path.join(self._root, INDEX_NAME)
        for real in self._files():
            if not real.endswith(".md") or real == index:
                continue
            try:
                with open(real, "rb") as handle:
                    text = handle.read().decode("utf-8", errors="replace")
                modified = os.stat(real).st_mtime
            except OSError:
                continue  # deleted while listing
            stem = os.path.splitext(os.path.basename(real))[0]
            name, kind, description = describe(text, stem)
            found.append(
                MemoryInfo(
                    path=paths.to_virtual(self._root, real, self.ROOT),
                    file=Path(real),
                    name=name,
                    type=kind,
                    description=description,
                    size=len(text),
                    modified=modified,
                )
            )
        found.sort(key=lambda info: info.path)
        return found

    def preload(self) -> Preload:
        """What preloading puts in a prompt (within the caps), and what it leaves out."""
        return preload(self._root, walk(self._root), self.max_file_chars, self.max_total_chars, self.ROOT)

    def snapshot(self, now: float | None = None) -> str:
        """Every file within the caps, for preloading into a prompt, each with its age so
        that an old claim reads as old; then what was left out. Empty when there is no memory."""
        now = time.time() if now is None else now
        loaded = self.preload()
        parts: list[str] = []
        for item in loaded.files:
            # A memory must not be able to close its own element and speak as the prompt.
            body = item.text.rstrip().replace("</memory>", "<\\/memory>")
            where = item.path
            for raw, escaped in (("&", "&amp;"), ('"', "&quot;"), ("<", "&lt;"), (">", "&gt;")):
                where = where.replace(raw, escaped)
            parts.append(f'<memory path="{where}" age="{age_text(now - item.modified)}">\n{body}\n</memory>\n')
        if loaded.left_out:
            parts.append(left_out_note(loaded.left_out))
        return "".join(parts)

    def index_text(self) -> str:
        try:
            with open(os.path.join(self._root, INDEX_NAME), "rb") as handle:
                return handle.read().decode("utf-8", errors="replace")
        except OSError:
            return ""

    def index_problems(self) -> list[str]:
        index_path = f"{self.ROOT}/{INDEX_NAME}"
        entries = index_entries(self.index_text())
        targets = {entry.target for entry in entries}
        problems: list[str] = []
        for info in self.memories():
            relative = info.path[len(self.ROOT) + 1 :]
            if relative not in targets:
                problems.append(f"{info.path} has no line in {index_path}, so a session reading the index will not find it.")
        seen: set[str] = set()
        for entry in entries:
            if entry.target in seen:
                continue
            seen.add(entry.target)
            try:
                real = paths.resolve(self._root, f"{self.ROOT}/{entry.target}", self.ROOT)
            except CommandError:
                problems.append(f"{index_path} line {entry.line + 1} links to {entry.target}, which is not a memory path.")
                continue
            if not os.path.isfile(real):
                problems.append(f"{index_path} links to {entry.target}, which does not exist.")
        return problems

    def reindex(self) -> None:
        """Repairs MEMORY.md from the files: lines whose file is gone are dropped, every
        memory without a line gets one built from its frontmatter, other lines stay as written.
        Raises MemoryStoreError (MemoryBusy when another session holds the lock)."""
        try:
            self._reindex()
        except OSError as error:
            if is_no_write(error):
                raise MemoryNotWritable(read_only(self._root, error)) from None
            raise MemoryStoreError(f"Could not rewrite {self.ROOT}/{INDEX_NAME}: {error.strerror or error}.") from None

    def _reindex(self) -> None:
        with self._locked():
            index_real = os.path.join(self._root, INDEX_NAME)
            old_text = self.index_text()
            memories = {info.path[len(self.ROOT) + 1 :]: info for info in self.memories()}
            entries = {entry.line: entry for entry in index_entries(old_text)}
            kept: list[str] = []
            listed: set[str] = set()
            for number, line in enumerate(old_text.splitlines()):
                entry = entries.get(number)
                if entry is not None:
                    if entry.target not in memories or entry.target in listed:
                        continue
                    listed.add(entry.target)
                kept.append(line)
            for relative, info in memories.items():
                if relative not in listed:
                    kept.append(index_line(info.name, relative, info.description))
            new_text = "\n".join(kept).strip("\n")
            new_text = new_text + "\n" if new_text else ""
            if new_text != old_text:
                atomic.write_file(index_real, new_text.encode("utf-8"))

    # -- direct access for the side pane and the CLI ---------------------------------------

    def read(self, path: str) -> str:
        """The text of a memory file; MemoryStoreError subclasses on problems."""
        try:
            real = self._resolve(path)
        except CommandError as error:
            raise MemoryPathError(str(error)) from None
        if not os.path.isfile(real):
            raise MemoryNotFound(f"There is no memory file at {quoted(path)}.")
        try:
            return self._read_text(real, path)
        except CommandError as error:
            if "UTF-8" in str(error):
                raise MemoryNotText(str(error)) from None
            raise MemoryStoreError(str(error)) from None
        except OSError as error:
            raise MemoryStoreError(f"Could not read {quoted(path)}: {error.strerror or error}.") from None

    def save(self, path: str, text: str, *, expected: str | None = None) -> tuple[str, bool]:
        """Creates or overwrites a file from the editor, through the same checks as the
        model's writes. With `expected`, refuses if the file changed on disk meanwhile."""
        try:
            if not isinstance(path, str) or not isinstance(text, str):
                raise CommandError("The path and the text must be strings.")
            paths.split(path, self.ROOT)
            with self._locked():
                real = self._resolve(path)
                if real == self._root or os.path.isdir(real):
                    raise CommandError(f"{quoted(path)} is a directory, not a memory file.")
                current = self._old_text(real) if os.path.isfile(real) else None
                if expected is not None and current != expected:
                    if current is None:
                        raise CommandError(f"Not saved: {quoted(path)} was deleted on disk since you opened it.")
                    raise CommandError(
                        f"Not saved: {quoted(path)} changed on disk since you opened it. Reload it and make your edit again."
                    )
                self._make_parent(real, path)
                self._write(real, path, text, current)
            return f"Saved {path}", False
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
