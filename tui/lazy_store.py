"""The repository's memory store, built on first use.

Importing memory.store compiles the secret scanner's patterns, a fifth of a second on a
small machine. The first frame needs only the folder's path (the memory pane starts
watching it at once); the store itself is built by whatever first uses it, which is the
pane's listing after the first frame, on a worker thread.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any


class LazyStore:
    def __init__(self, repo: Path) -> None:
        from memory.location import memory_dir_for

        self.directory = memory_dir_for(Path(repo))
        self._store: Any = None
        self._lock = threading.Lock()

    def get(self) -> Any:
        """The memory.store.MemoryStore, built now if nothing has needed it yet."""
        with self._lock:
            if self._store is None:
                from memory.store import MemoryStore

                self._store = MemoryStore(self.directory)
            return self._store

    def __getattr__(self, name: str) -> Any:
        # only what this object does not have itself: everything but the folder's path
        return getattr(self.get(), name)
