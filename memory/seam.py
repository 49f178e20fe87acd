"""The Protocols that memory is read and written through.

A `Store` is the memory a session sees behind one /memories: one folder
(memory.store.MemoryStore: tests, the evaluation), the repository's and the user's together
(memory.roots.MemoryRoots), or the app's LazyStore that builds the latter on first use.
Its `roots()` are `Folder`s, one per folder: what the checks, the preload and the index read,
each under its own root (/memories or /memories/user). An `EditableStore` is a Store the user
also edits by hand in the memory pane, outside the review of memory/pending.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from memory.evidence import CitationCheck
    from memory.notes import MemoryInfo
    from memory.preload import Preload
    from memory.walk import Skipped


class Capped(Protocol):
    """Where memory lives and how much it may hold: a folder's, or a store's in all."""

    @property
    def directory(self) -> Path: ...

    @property
    def max_file_chars(self) -> int: ...

    @property
    def max_total_chars(self) -> int: ...

    def total_chars(self) -> int: ...


class Folder(Capped, Protocol):
    """One memory folder under one root."""

    @property
    def ROOT(self) -> str: ...

    @property
    def repo(self) -> Path | None:
        """The repository whose code its memories cite; None for the user's folder."""

    def refusal(self) -> str | None: ...

    def skipped(self) -> list[Skipped]: ...

    def memories(self) -> list[MemoryInfo]: ...

    def preload(self) -> Preload: ...

    def index_text(self) -> str: ...

    def evidence(self, repo: Path | None = None) -> dict[str, list[CitationCheck]]: ...


class Store(Capped, Protocol):
    """What a session, the memory tool and the review of held changes use."""

    def roots(self) -> Sequence[Folder]: ...

    def run(self, command: dict[str, Any]) -> tuple[str, bool]: ...

    def memories(self) -> list[MemoryInfo]: ...

    def preload(self) -> Preload: ...

    def index_text(self) -> str: ...

    def index_problems(self) -> list[str]: ...

    def evidence(self, repo: Path | None = None) -> dict[str, list[CitationCheck]]: ...

    def read(self, path: str) -> str: ...

    def locked(self) -> AbstractContextManager[None]: ...

    def current_text(self, path: str) -> str | None: ...

    def check_write(self, path: str, text: str, old_text: str | None) -> None: ...

    def apply_change(self, path: str, before: str | None, after: str | None, new_path: str | None = None) -> None: ...


class EditableStore(Store, Protocol):
    """A Store the memory pane and its editor write to directly, as the user's own edits."""

    def save(self, path: str, text: str, *, expected: str | None = None) -> tuple[str, bool]: ...

    def forget(self, path: str) -> tuple[str, bool, list[str]]: ...

    def index_lines_back(self, path: str, lines: list[str]) -> None: ...
