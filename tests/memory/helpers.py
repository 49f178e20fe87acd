"""Shared helpers for the memory tests."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

GIT_ENV = {
    "GIT_AUTHOR_NAME": "Test Author",
    "GIT_AUTHOR_EMAIL": "author@example.com",
    "GIT_COMMITTER_NAME": "Test Author",
    "GIT_COMMITTER_EMAIL": "author@example.com",
    "GIT_CONFIG_NOSYSTEM": "1",
}


def git(cwd: Path, *args: str) -> str:
    env = {**os.environ, **GIT_ENV, "GIT_CONFIG_GLOBAL": os.devnull}
    done = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=True)
    return done.stdout


def snapshot(store, now: float | None = None) -> str:
    """The preloaded-memory text a session's prompt gets from this store."""
    import time

    from agent.modes import memory_snapshot

    return memory_snapshot(store.preload(), time.time() if now is None else now)
