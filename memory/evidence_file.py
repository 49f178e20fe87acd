"""The hidden file of fingerprints beside the memories, and its keeper.

`.evidence.json` maps each memory (its path relative to the folder) to the fingerprints
of what it cites (memory/evidence.py). The store's commands call the keeper under the
folder lock, right after each write, delete and rename of a memory, so the file always
follows the memories; `view` never lists it, being hidden.

A citation keeps its first fingerprint across later writes of the same memory, so editing
a note's wording does not launder evidence that went out of date; a write that moves the
memory's `verified:` date forward fingerprints everything again.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path

from memory import atomic
from memory.citations import FileNames, find, locate
from memory.evidence import Fingerprint, fingerprint, head_commit
from memory.freshness import verified_bumped
from memory.state_file import BrokenState, load_json, set_aside

EVIDENCE_NAME = ".evidence.json"
VERSION = 1


@dataclass
class EvidenceFile:
    """`.evidence.json`: memory path relative to the folder -> its fingerprints.

    Read without the lock (it is replaced whole); every write of it happens under the
    store's lock, in the same command as the memory write it follows.
    """

    folder: Path
    memories: dict[str, list[Fingerprint]] = field(default_factory=dict)
    # Why the file on disk could not be read (None: read, or absent). A save then sets the
    # broken file aside instead of writing over what it may still hold.
    problem: str | None = None
    set_aside_as: Path | None = None

    @property
    def path(self) -> Path:
        return self.folder / EVIDENCE_NAME

    @classmethod
    def load(cls, folder: Path) -> EvidenceFile:
        evidence = cls(Path(folder))
        try:
            data = load_json(evidence.path)
        except BrokenState as error:
            evidence.problem = str(error)  # every citation reads as unrecorded meanwhile
            return evidence
        memories = data.get("memories") if isinstance(data, dict) else None
        if data is not None and not isinstance(memories, dict):
            evidence.problem = "not a fingerprint file: it has no \"memories\" object"
            return evidence
        for name, items in (memories or {}).items():
            if isinstance(name, str) and isinstance(items, list):
                fps = [Fingerprint.from_json(i) for i in items if isinstance(i, dict)]
                evidence.memories[name] = [fp for fp in fps if fp is not None]
        return evidence

    def save(self) -> None:
        data = {"version": VERSION, "memories": {k: [asdict(fp) for fp in v] for k, v in sorted(self.memories.items()) if v}}
        text = json.dumps(data, indent=1, ensure_ascii=False) + "\n"
        if self.problem is not None and self.set_aside_as is None and os.path.lexists(self.path):
            self.set_aside_as = set_aside(self.path)
        atomic.write_file(str(self.path), text.encode("utf-8"))

    def get(self, relative: str) -> list[Fingerprint]:
        return self.memories.get(relative, [])

    def record(
        self, relative: str, old_text: str | None, new_text: str, repo: Path, *, now: datetime | None = None, rebaseline: bool = False
    ) -> bool:
        """Fingerprints the citations of a memory just written; True when anything changed."""
        previous = {fp.cite: fp for fp in self.get(relative)}
        rebaseline = rebaseline or verified_bumped(old_text, new_text)
        names = FileNames(repo)
        commit: str | None = None
        looked_up = False
        fresh: list[Fingerprint] = []
        for citation in find(new_text, repo):
            if not rebaseline and citation.key in previous:
                fresh.append(previous[citation.key])
                continue
            where = locate(citation, repo, names)
            if where is None:
                continue
            if not looked_up:
                commit, looked_up = head_commit(repo), True
            fresh.append(fingerprint(repo, citation.key, where, commit, now))
        if fresh == self.get(relative):
            return False
        if fresh:
            self.memories[relative] = fresh
        else:
            self.memories.pop(relative, None)
        return True

    def forget(self, relative: str) -> bool:
        """Drops a deleted memory, or every memory under a deleted folder."""
        gone = [k for k in self.memories if k == relative or k.startswith(relative.rstrip("/") + "/")]
        for key in gone:
            del self.memories[key]
        return bool(gone)

    def move(self, old: str, new: str) -> bool:
        """Follows a renamed memory, or every memory under a renamed folder."""
        moved = False
        for key in list(self.memories):
            if key == old:
                self.memories[new] = self.memories.pop(key)
                moved = True
            elif key.startswith(old.rstrip("/") + "/"):
                self.memories[new.rstrip("/") + key[len(old.rstrip("/")) :]] = self.memories.pop(key)
                moved = True
        return moved


class EvidenceKeeper:
    """Keeps `.evidence.json` in step with one store's writes. The commands call it under
    the store's lock, right after the memory write; a failure here leaves the memory
    written and its citations unrecorded, never a failed write."""

    def __init__(self, root: str, repo: Path) -> None:
        self.root = root
        self.repo = Path(repo)
        # Sentences for the result of the command that caused them: a write that succeeded
        # while its fingerprints did not is said so, never reported as a plain success.
        self.notices: list[str] = []

    def take_notices(self) -> list[str]:
        notices, self.notices = self.notices, []
        return notices

    def _relative(self, real: str) -> str:
        return os.path.relpath(real, self.root).replace(os.sep, "/")

    def _change(self, change: Callable[[EvidenceFile], bool]) -> None:
        records = EvidenceFile.load(Path(self.root))
        try:
            if change(records):
                records.save()
        except OSError as error:
            self.notices.append(
                f"The memory was written, but the fingerprints of the code it cites were not recorded "
                f"in {records.path}: {error.strerror or error}. Free space or fix the folder, then write "
                f"the memory again (or run `devagent memory check`)."
            )
        except Exception as error:  # noqa: BLE001 - evidence is advice; the write already happened
            self.notices.append(
                f"The memory was written, but its fingerprints were not recorded: {type(error).__name__}: {error}."
            )
        if records.set_aside_as is not None:
            self.notices.append(
                f"The fingerprint file {records.path} could not be read ({records.problem}). It was kept "
                f"as {records.set_aside_as.name} and a new one started, so other memories' citations "
                f"read as unrecorded until they are written again; delete the old one once you have looked at it."
            )

    def written(self, real: str, old_text: str | None, text: str) -> None:
        if os.path.basename(real) == "MEMORY.md" and os.path.dirname(real) == self.root:
            return  # the index cites memories, not code
        self._change(lambda records: records.record(self._relative(real), old_text, text, self.repo))

    def deleted(self, real: str) -> None:
        self._change(lambda records: records.forget(self._relative(real)))

    def renamed(self, old_real: str, new_real: str) -> None:
        self._change(lambda records: records.move(self._relative(old_real), self._relative(new_real)))
