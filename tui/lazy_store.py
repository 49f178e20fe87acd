"""The repository's memory, built on first use.

Importing memory.store compiles the secret scanner's patterns, a fifth of a second on a
small machine. The first frame needs only the folders' paths (the memory pane starts
watching them at once); the memory itself (the repository's folder and the user's, behind
one /memories) is built by whatever first uses it, which is the pane's listing after the
first frame, on a worker thread.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from memory.roots import MemoryRoots


class LazyStore:
    def __init__(self, repo: Path) -> None:
        from memory.location import memory_dir_for, user_memory_dir

        self.repo_path = Path(repo)
        self.directory = memory_dir_for(self.repo_path)
        # what the pane watches, in the order MemoryRoots.roots() gives them
        self.directories = [self.directory, user_memory_dir()]
        self._memory: MemoryRoots | None = None
        self._lock = threading.Lock()

    def get(self) -> MemoryRoots:
        """The repository's and the user's memory, built now if nothing has needed them yet."""
        with self._lock:
            if self._memory is None:
                from memory.roots import open_memory

                self._memory = open_memory(self.repo_path)
            return self._memory

    def __getattr__(self, name: str) -> Any:
        # only what this object does not have itself: everything but the folders' paths
        return getattr(self.get(), name)
