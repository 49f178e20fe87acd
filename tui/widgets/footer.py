"""The key bar at the bottom: Textual's Footer, rebuilt only when the keys it shows change.

Textual's footer rebuilds itself (every key a widget, mounted and styled again) each time
the screen says its bindings may have changed: each focus move, each screen pushed, each
binding check. At launch that was five rebuilds of 50-80 ms in the first second, while the
session loaded on another thread of the same interpreter. Most showed the same keys.
"""

from __future__ import annotations

from typing import Any

from textual.screen import Screen
from textual.widgets import Footer as TextualFooter


class Footer(TextualFooter):
    shown_keys: Any = None  # what the keys on show were built from
    bindings_seen = False  # the screen has said its bindings are ready

    def bindings_changed(self, screen: Screen) -> None:
        self.bindings_seen = True
        super().bindings_changed(screen)

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
        return keys, self.compact, self.show_command_palette, app.ENABLE_COMMAND_PALETTE

    async def recompose(self) -> None:
        shows = self._what_it_shows()
        if shows is not None and shows == self.shown_keys:
            return
        self.shown_keys = shows
        await super().recompose()
