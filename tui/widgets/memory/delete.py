"""The memory pane's delete, and its undo for the rest of the session.

A mixin of MemoryPane: the deleted text is kept in the pane so a
delete can be taken back, and every change goes through the store.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import work

from tui import format as fmt

if TYPE_CHECKING:
    from textual.app import App
    from textual.notifications import SeverityLevel

    from memory.notes import MemoryInfo
    from memory.seam import EditableStore


class DeleteActions:
    """Needs `store`, `deleted`, `selected_info()`, `reload()`, `_after_edit` and `app` from the pane."""

    if TYPE_CHECKING:  # what MemoryPane provides
        store: EditableStore
        deleted: list[tuple[str, str]]
        _index_lines: dict[str, list[str]]  # a deleted memory's MEMORY.md lines, for its undo

        app: App[Any]

        def selected_info(self) -> MemoryInfo | None: ...

        def reload(self) -> object: ...

        def _after_edit(self, message: str | None) -> None: ...

        def refresh_bindings(self) -> None: ...

        def notify(self, message: str, *, title: str = "", severity: SeverityLevel = "information",
                   timeout: float | None = None, markup: bool = True) -> None: ...

    def action_delete(self) -> None:
        info = self.selected_info()
        if info is None:
            self.notify("No memory selected.", severity="warning")
            return
        from tui.screens.confirm import Confirm

        try:
            text = self.store.read(info.path)
            after = "You can undo it for the rest of this session (Ctrl+Z in this pane)."
        except Exception as exc:
            text = None
            after = f"It cannot be undone: {exc}"
        question = Text.assemble(
            "Delete the memory ", (fmt.sanitize(info.name), "bold"), "?\n\n",
            f"{fmt.sanitize(info.path)} ({fmt.chars(info.size)} chars) is removed from disk; from its next question on, the agent will not see it again. ",
            after,
        )
        def delete(confirmed: bool | None) -> None:
            self._delete(info.path, text, confirmed)

        self.app.push_screen(Confirm("Delete memory", question, yes="Delete"), delete)

    @work(group="memory-delete")
    async def _delete(self, path: str, text: str | None, confirmed: bool | None) -> None:
        if not confirmed:
            return
        # its index line goes too: the line's description would still reach the agent
        message, refused, lines = await asyncio.to_thread(self.store.forget, path)
        if lines:
            self._index_lines[path] = lines
        if not refused and text is not None:
            self.deleted.append((path, text))
            self.refresh_bindings()  # Ctrl+Z shows in the footer from now on
            message += " Press Ctrl+Z in the memory pane (or Undo delete in Ctrl+P) to bring it back."
        self.notify(message, title="Memory", severity="error" if refused else "information")
        self.reload()

    @work(group="memory-delete")
    async def action_undo_delete(self) -> None:
        if not self.deleted:
            self.notify("No memory was deleted in this session.", title="Memory")
            return
        path, text = self.deleted.pop()
        self.refresh_bindings()
        existing = await asyncio.to_thread(self.store.memories)
        if any(m.path == path for m in existing):
            # written again meanwhile: both are kept, the old text as a new memory beside it
            self._restore_in_editor(path, text, f"{path} exists again.", path.removesuffix(".md") + "_restored.md")
            return
        message, refused = await asyncio.to_thread(self.store.save, path, text)
        if refused:
            # the store will not take the text back as it was; nothing is lost, it goes to the editor
            self._restore_in_editor(path, text, f"Could not restore {path} as it was: {message}", path)
            return
        await asyncio.to_thread(self.store.index_lines_back, path, self._index_lines.pop(path, []))
        self.notify(f"Restored {path}.", title="Memory")
        self.reload()

    def _restore_in_editor(self, path: str, text: str, why: str, name: str) -> None:
        from tui.screens.memory_editor import MemoryEditor

        self.notify(f"{why} The deleted text is in the editor; save it from there.", title="Memory",
                        severity="warning")
        self.app.push_screen(MemoryEditor(self.store, None, text, name=name), self._after_edit)
