"""Agent events cross from the worker thread to the UI in batches.

One message per streamed delta would queue thousands of messages ahead of the user's keys
during a long reply; instead the worker drops events here and wakes the UI once, and the UI
takes everything that piled up, with adjacent text deltas joined into one write.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agent.events import Event


class Inbox:
    def __init__(self, wake: Callable[[], object]) -> None:
        self._wake = wake
        self._lock = threading.Lock()
        self._items: list[tuple[int, Event]] = []
        self._waiting = False

    def put(self, token: int, event: Event) -> None:
        with self._lock:
            self._items.append((token, event))
            if self._waiting:
                return
            self._waiting = True
        self._wake()

    def take(self) -> list[tuple[int, Event]]:
        with self._lock:
            items, self._items = self._items, []
            self._waiting = False
        return joined(items)


def joined(items: list[tuple[int, Event]]) -> list[tuple[int, Event]]:
    from agent.events import TextDelta  # not before the first frame: the events are slow to build

    out: list[tuple[int, Event]] = []
    for token, event in items:
        if out and isinstance(event, TextDelta):
            last_token, last = out[-1]
            if last_token == token and isinstance(last, TextDelta) and last.turn == event.turn:
                out[-1] = (token, replace(last, text=last.text + event.text))
                continue
        out.append((token, event))
    return out
