"""The six commands of the memory tool, on one folder, each dispatched by name.

Each command takes fields already checked by memory/inputs.py, returns the SDK's result
text, and raises CommandError for a refusal (its text is the result the model reads) or
OSError for the store to put in a sentence. The store holds the folder lock around every
command but `view`. Every write goes through the write policy, then an atomic replace,
then (for a store that knows its repository) the evidence keeper, which fingerprints the
memory's citations in the same hold of the lock.
"""

from __future__ import annotations

import os
import stat
from typing import Any

from memory import atomic, paths, results
from memory.errors import CommandError
from memory.files import is_special, loose_text, not_a_file, read_text
from memory.policy import WritePolicy
from memory.private import make_private
from memory.quoting import quoted, shown_name

ROOT = paths.ROOT


class Commands:
    def __init__(self, root: str, policy: WritePolicy, virtual: str = ROOT, evidence: Any = None) -> None:
        self.root = root
        self.policy = policy
        self.virtual = virtual  # the path the folder answers to: /memories or /memories/user
        self.evidence = evidence  # memory.evidence_file.EvidenceKeeper, or None

    def dispatch(self, name: str, args: dict[str, Any]) -> str:
        """Runs the command `name` with the fields inputs.parse returned for it."""
        match name:
            case "view":
                return self.view(args["path"], args.get("view_range"))
            case "create":
                return self.create(args["path"], args["file_text"])
            case "str_replace":
                return self.str_replace(args["path"], args["old_str"], args.get("new_str", ""))
            case "insert":
                return self.insert(args["path"], args["insert_line"], args["insert_text"])
            case "delete":
                return self.delete(args["path"])
            case "rename":
                return self.rename(args["old_path"], args["new_path"])
        raise CommandError(f"Unknown command {quoted(name, 80)!r}.")

    def resolve(self, path: str) -> str:
        return paths.resolve(self.root, path, self.virtual)

    def view(self, path: str, view_range: list[int] | None = None) -> str:
        real = self.resolve(path)
        try:
            leaf = os.lstat(real)
        except (FileNotFoundError, NotADirectoryError):
            raise CommandError(results.not_found(path)) from None
        if stat.S_ISDIR(leaf.st_mode):
            return results.listing(path, leaf.st_size, self._listing_items(real))
        if stat.S_ISREG(leaf.st_mode):
            return results.numbered(path, read_text(real, path), view_range)
        raise CommandError(not_a_file(path))

    def _listing_items(self, real: str) -> list[tuple[int, str]]:
        """(size, relative name) of what is up to two levels below `real`, as the SDK lists
        it (a recursion two calls deep at most)."""
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
                rel = f"{relative}/{shown_name(name)}" if relative else shown_name(name)
                try:
                    if not paths.contained(self.root, os.path.realpath(item)):
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

    def create(self, path: str, file_text: str) -> str:
        real = self.resolve(path)
        if os.path.isdir(real):
            raise CommandError(f"File {quoted(path)} already exists")
        if is_special(real):
            raise CommandError(not_a_file(path))
        self.make_parent(real, path)
        self.write(real, path, file_text, loose_text(real))
        return results.created(path)

    def str_replace(self, path: str, old_str: str, new_str: str = "") -> str:
        real, content = self._existing_file(path)
        results.occurrences(path, content, old_str)
        changed_line_index = content[: content.find(old_str)].count("\n")
        new_content = content.replace(old_str, new_str)
        self.write(real, path, new_content, content)
        return results.replaced(new_content, changed_line_index)

    def insert(self, path: str, insert_line: int, insert_text: str) -> str:
        real, content = self._existing_file(path)
        new_content = results.inserted(content, insert_line, insert_text)
        self.write(real, path, new_content, content)
        return results.edited(path)

    def delete(self, path: str) -> str:
        real = self.resolve(path)
        if real == self.root:
            raise CommandError(f"Cannot delete the {self.virtual} directory itself")
        if os.path.isfile(real) or is_special(real):
            os.unlink(real)
        elif os.path.isdir(real):
            atomic.remove_tree(real)
        else:
            raise CommandError(f"The path {quoted(path)} does not exist")
        if self.evidence is not None:
            self.evidence.deleted(real)
        return results.deleted(path)

    def rename(self, old_path: str, new_path: str) -> str:
        old_real = self.resolve(old_path)
        new_real = self.resolve(new_path)
        if old_real == self.root:
            raise CommandError(f"Cannot rename the {self.virtual} directory itself")
        if os.path.exists(new_real):
            raise CommandError(f"The destination {quoted(new_path)} already exists")
        if not os.path.lexists(old_real):
            raise CommandError(f"The path {quoted(old_path)} does not exist")
        self.policy.check_name(new_path)
        if paths.contained(old_real, new_real):
            raise CommandError(f"Cannot move {quoted(old_path)} into itself ({quoted(new_path)}).")
        self.make_parent(new_real, new_path)
        # Atomic, but not forced to disk: a power cut right after may undo the rename,
        # leaving the old name, never a broken file. The SDK does the same.
        os.rename(old_real, new_real)
        if self.evidence is not None:
            self.evidence.renamed(old_real, new_real)
        return results.renamed(old_path, new_path)

    def save(self, path: str, text: str, expected: str | None) -> None:
        """The editor's write of a whole file; with `expected`, refused if the file
        changed on disk since the editor read it."""
        real = self.resolve(path)
        if real == self.root or os.path.isdir(real):
            raise CommandError(f"{quoted(path)} is a directory, not a memory file.")
        if is_special(real):
            raise CommandError(not_a_file(path))
        current = loose_text(real) if os.path.isfile(real) else None
        if expected is not None and current != expected:
            if current is None:
                raise CommandError(f"Not saved: {quoted(path)} was deleted on disk since you opened it.")
            raise CommandError(
                f"Not saved: {quoted(path)} changed on disk since you opened it. Reload it and make your edit again."
            )
        self.make_parent(real, path)
        self.write(real, path, text, current)

    def _existing_file(self, path: str) -> tuple[str, str]:
        real = self.resolve(path)
        if not os.path.exists(real):
            raise CommandError(results.not_found(path))
        if is_special(real):
            raise CommandError(not_a_file(path))
        if not os.path.isfile(real):
            raise CommandError(f"The path {quoted(path)} is not a file.")
        return real, read_text(real, path)

    def make_parent(self, real: str, path: str) -> None:
        make_private(self.root)
        try:
            atomic.make_dirs(self.root, os.path.dirname(real))
        except NotADirectoryError as error:
            blocker = paths.to_virtual(self.root, error.filename or os.path.dirname(real), self.virtual)
            raise CommandError(f"Cannot write {quoted(path)}: {blocker} is a file, not a directory.") from None

    def write(self, real: str, path: str, text: str, old_text: str | None) -> None:
        """Every write goes through here: the write policy, then an atomic replace."""
        self.policy.check(real, path, text, old_text)
        atomic.write_file(real, text.encode("utf-8"))
        if self.evidence is not None:
            self.evidence.written(real, old_text, text)
