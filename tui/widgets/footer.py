"""The key bar at the bottom: Textual's Footer, rebuilt only when the keys it shows change.

Textual's footer rebuilds itself (every key a widget, mounted and styled again) each time
the screen says its bindings may have changed: each focus move, each screen pushed, each
binding check. At launch that was five rebuilds of 50-80 ms in the first second, while the
session loaded on another thread of the same interpreter. Most showed the same keys.
"""

from __future__ import annotations

from typing import Any

from textual.widgets import Footer as TextualFooter


class Footer(TextualFooter):
    _shown: Any = None  # what the keys on show were built from

    def _what_it_shows(self) -> Any:
        """All that the footer's compose reads, in a form that compares equal when it would
        build the same keys (None before the screen's bindings are ready)."""
        if not self._bindings_ready:
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
        if shows is not None and shows == self._shown:
            return
        self._shown = shows
        await super().recompose()
