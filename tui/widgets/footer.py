"""The key bar at the bottom: Textual's Footer, showing each key whole, rebuilt only when the
keys it shows change.

Textual's footer rebuilds itself (every key a widget, mounted and styled again) each time
the screen says its bindings may have changed: each focus move, each screen pushed, each
binding check. At launch that was five rebuilds of 50-80 ms in the first second, while the
session loaded on another thread of the same interpreter. Most showed the same keys.

Textual's footer also cuts off whatever does not fit its width, often in the middle of a
word ("f4 Mem"). This one leaves out whole keys instead, the least useful where the focus
is first (`RANK`): F1's help lists them all.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rich.cells import cell_len
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Footer as TextualFooter

# The app's keys in the order they are kept: help first (it lists every other key), then
# the focused widget's own keys (what can be done where the focus is), then these. Esc is
# the key everyone tries to stop something with, and F12 is one Tab away.
APP_RANK = ("help", "quit", "push_to_talk", "toggle_screen", "toggle_memory", "focus_conversation", "cancel_turn")

# a key's cells beyond its key and description: a space either side of the key, one after
# the description (Textual's footer key styles); the palette key has its border instead
KEY_PADDING = 3
PALETTE_PADDING = 3


def key_width(key_display: str, description: str) -> int:
    return cell_len(key_display) + cell_len(description) + KEY_PADDING - (0 if description else 1)


def fitting(keys: Iterable[tuple[int, str, int]], room: int) -> frozenset[str]:
    """The keys (rank, key, width) that are shown in `room` cells: best rank first, each one
    that still fits, so a short key further down may take what a long one left."""
    shown: set[str] = set()
    for _rank, key, width in sorted(keys, key=lambda item: item[0]):
        if width <= room:
            shown.add(key)
            room -= width
    return frozenset(shown)


class Footer(TextualFooter):
    shown_keys: Any = None  # what the keys on show were built from
    bindings_seen = False  # the screen has said its bindings are ready

    def bindings_changed(self, screen: Screen) -> None:
        self.bindings_seen = True
        super().bindings_changed(screen)

    def _rank(self, node: Any, binding: Binding) -> int:
        if node is not self.app:
            return 1
        action = binding.action.removeprefix("app.")
        if action == "cancel_turn" and getattr(self.app, "running", False):
            return 1  # while a turn runs, the key that stops it is what matters most
        return 0 if action == "help" else 2 + (APP_RANK.index(action) if action in APP_RANK else len(APP_RANK))

    def _shown(self) -> frozenset[str]:
        """The keys that fit the footer's width, whole."""
        app = self.app
        room = self.size.width or app.size.width
        candidates = []
        for index, (node, binding, _enabled, _tooltip) in enumerate(self.screen.active_bindings.values()):
            display = app.get_key_display(binding)
            if binding.key == app.COMMAND_PALETTE_BINDING and self.show_command_palette and app.ENABLE_COMMAND_PALETTE:
                room -= cell_len(display) + cell_len(binding.description) + PALETTE_PADDING
            elif binding.show:
                candidates.append((self._rank(node, binding) * 1000 + index, binding.key,
                                   key_width(display, binding.description)))
        return fitting(candidates, room)

    def _what_it_shows(self) -> Any:
        """All that the footer's compose reads, in a form that compares equal when it would
        build the same keys (None before the screen's bindings are ready)."""
        if not self.bindings_seen:
            return None
        app = self.app
        keys = tuple(
            (binding.key, app.get_key_display(binding), binding.description, binding.action,
             binding.group, enabled, tooltip)
            for (_node, binding, enabled, tooltip) in self.screen.active_bindings.values()
            if binding.show or binding.key == app.COMMAND_PALETTE_BINDING
        )
        return keys, self._shown(), getattr(app, "running", False), self.compact, self.show_command_palette, app.ENABLE_COMMAND_PALETTE

    def compose(self) -> ComposeResult:
        shown = self._shown() if self.bindings_seen else frozenset()
        for key in super().compose():
            # Textual's keys carry the key they stand for; the palette's is always shown
            if key.has_class("-command-palette") or getattr(key, "key", None) in shown:
                yield key

    async def recompose(self) -> None:
        shows = self._what_it_shows()
        if shows is not None and shows == self.shown_keys:
            return
        self.shown_keys = shows
        await super().recompose()

    def on_resize(self) -> None:
        # another width may fit other keys (recompose builds nothing when it would not)
        if self.bindings_seen:
            self.call_after_refresh(self.recompose)
