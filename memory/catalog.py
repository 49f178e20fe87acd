"""What the memory folder holds, read without the lock: the listing, the index, evidence.

Reads need no lock: writes replace files whole, so a reader sees the old text or the new.
Nothing here writes; `reindexed` returns the repaired index for the store to write. None
of it raises for a folder problem: an unreadable file is left out, a missing folder
reads as empty.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from memory import paths
from memory.errors import CommandError
from memory.files import loose_text, strict_text
from memory.notes import INDEX_NAME, MemoryInfo, describe, index_entries, index_line, index_names, indexed
from memory.preload import Preload, preload
from memory.walk import Skipped, Walk, walk

if TYPE_CHECKING:
    from memory.evidence import CitationCheck


class Catalog:
    def __init__(self, root: str, virtual: str = paths.ROOT) -> None:
        self.root = root
        self.virtual = virtual  # the path the folder answers to: /memories or /memories/user

    def walk(self) -> Walk:
        """The folder's memory files, and what else it holds with the reason it is not read.

        Only a .md file is a memory: the pane, `memory list` and `memory check` show the .md
        files, so preloading takes those alone, and a notes.txt left there is named as
        skipped rather than sent unseen in every prompt."""
        found = walk(self.root, self.virtual)
        kept: list[str] = []
        for real in found.files:
            if real.endswith(".md"):
                kept.append(real)
            else:
                virtual = paths.to_virtual(self.root, real, self.virtual)
                found.skipped.append(Skipped(virtual, _not_a_memory(real)))
        found.skipped.sort(key=lambda item: item.path)
        return Walk(kept, found.skipped)

    def skipped(self) -> list[Skipped]:
        """What the folder holds that is not read as a memory, each with the reason."""
        return self.walk().skipped

    def memories(self) -> list[MemoryInfo]:
        """Every .md memory file except the index, sorted by path."""
        found: list[MemoryInfo] = []
        index = os.path.join(self.root, INDEX_NAME)
        for real in self.walk().files:
            if real == index:
                continue
            text = loose_text(real)
            try:
                modified = os.stat(real).st_mtime
            except OSError:
                continue  # deleted while listing
            if text is None:
                continue
            stem = os.path.splitext(os.path.basename(real))[0]
            name, kind, description = describe(text, stem)
            virtual = paths.to_virtual(self.root, real, self.virtual)
            found.append(MemoryInfo(virtual, Path(real), name, kind, description, len(text), modified))
        found.sort(key=lambda info: info.path)
        return found

    def preload(self, max_file_chars: int, max_total_chars: int) -> Preload:
        """What preloading puts in a prompt (within the caps), and what it leaves out."""
        return preload(self.root, self.walk(), max_file_chars, max_total_chars, self.virtual)

    def index_text(self) -> str:
        return loose_text(os.path.join(self.root, INDEX_NAME)) or ""

    def index_problems(self) -> list[str]:
        """Sentences: memories the index does not name, and index lines that lead nowhere."""
        text = self.index_text()
        entries = index_entries(text, self.virtual)
        names = index_names(text, self.virtual)
        problems: list[str] = []
        index_path = f"{self.virtual}/{INDEX_NAME}"
        memories = {self.relative(info.path): info for info in self.memories()}
        for relative, info in memories.items():
            if not indexed(names, relative):
                problems.append(f"{info.path} has no line in {index_path}, so a session reading the index will not find it.")
        seen: set[str] = set()
        for entry in entries:
            if entry.target in seen:
                continue
            seen.add(entry.target)
            if self._memory_named(entry.target, memories) is not None:
                continue
            try:
                real = paths.resolve(self.root, f"{self.virtual}/{entry.target}", self.virtual)
            except CommandError:
                problems.append(f"{index_path} line {entry.line + 1} links to {entry.target}, which is not a memory path.")
                continue
            if not os.path.isfile(real):
                problems.append(f"{index_path} links to {entry.target}, which does not exist.")
        return problems

    def reindexed(self, old_text: str) -> str:
        """MEMORY.md repaired from the files: lines whose file is gone are dropped, every
        memory without a line gets one built from its frontmatter, other lines stay as written."""
        memories = {self.relative(info.path): info for info in self.memories()}
        entries = {entry.line: entry for entry in index_entries(old_text, self.virtual)}
        kept: list[str] = []
        listed: set[str] = set()
        for number, line in enumerate(old_text.splitlines()):
            entry = entries.get(number)
            if entry is not None:
                target = self._memory_named(entry.target, memories)
                if target is None or target in listed:
                    continue
                listed.add(target)
            kept.append(line)
        named = index_names("\n".join(kept), self.virtual)
        for relative, info in memories.items():
            if relative not in listed and not indexed(named, relative):
                kept.append(index_line(info.name, relative, info.description))
        new_text = "\n".join(kept).strip("\n")
        return new_text + "\n" if new_text else ""

    def without_entry(self, old_text: str, relative: str) -> tuple[str, list[str]]:
        """MEMORY.md without the lines that are the entry of the memory at `relative`, and
        those lines."""
        base = relative.rsplit("/", 1)[-1]
        drop = {e.line for e in index_entries(old_text, self.virtual) if e.target in (relative, base)}
        lines = old_text.splitlines(keepends=True)
        dropped = [lines[i].rstrip("\r\n") for i in sorted(drop)]
        return "".join(line for i, line in enumerate(lines) if i not in drop), dropped

    @staticmethod
    def _memory_named(target: str, memories: dict[str, MemoryInfo]) -> str | None:
        """The memory an index entry is about: by its path, or by a bare name only one has."""
        if target in memories:
            return target
        if "/" in target:
            return None
        alike = [relative for relative in memories if relative.rsplit("/", 1)[-1] == target]
        return alike[0] if len(alike) == 1 else None

    def evidence(self, repo: Path) -> dict[str, list[CitationCheck]]:
        """Virtual path -> the checks of its citations against `repo`'s working tree."""
        from memory.evidence import Tree, check_text
        from memory.evidence_file import EvidenceFile

        records = EvidenceFile.load(Path(self.root))
        tree = Tree(Path(repo))
        checks: dict[str, list[CitationCheck]] = {}
        for info in self.memories():
            text = strict_text(str(info.file))
            if text is not None:
                checks[info.path] = check_text(text, Path(repo), records.get(self.relative(info.path)), tree)
        return checks

    def relative(self, virtual: str) -> str:
        """A virtual path made relative to the folder: `/memories/a/b.md` -> `a/b.md`."""
        return virtual[len(self.virtual) + 1 :]


def _not_a_memory(real: str) -> str:
    stem = os.path.splitext(os.path.basename(real))[0]
    return (
        "not a memory: only .md files are, so the agent neither loads nor lists it; "
        f"rename it to {stem}.md to use it"
    )
