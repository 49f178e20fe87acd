"""Shared helpers for the memory tests."""

from __future__ import annotations


def snapshot(store, now: float | None = None) -> str:
    """The preloaded-memory text a session's prompt gets from this store."""
    import time

    from agent.recall.briefing import memory_snapshot

    return memory_snapshot(store.preload(), time.time() if now is None else now)
