"""The repository's memory, built on first use.

Importing memory.store compiles the secret scanner's patterns, a fifth of a second on a
small machine. The first frame needs none of it; the memory pane needs the folders' paths
first, to watch them once the frame is out; the memory itself (the repository's folder and the user's, behind
one /memories) is built by whatever first uses it, which is the pane's listing after the
first frame, on a worker thread.
"""

from __future__ import annotations

import threading
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from memory.roots import MemoryRoots


class LazyStore:
    def __init__(self, repo: Path) -> None:
        self.repo_path = Path(repo)
        self._memory: MemoryRoots | None = None
        self._lock = threading.Lock()

    # The folders' names hash the repository's path (hashlib loads OpenSSL): they are
    # worked out when the pane starts watching, after the first frame.

    @cached_property
    def directory(self) -> Path:
        from memory.location import memory_dir_for

        return memory_dir_for(self.repo_path)

    @cached_property
    def directories(self) -> list[Path]:
        """What the pane watches, in the order MemoryRoots.roots() gives them."""
        from memory.location import user_memory_dir

        return [self.directory, user_memory_dir()]

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
