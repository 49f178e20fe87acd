"""Edit or write one memory; the save goes through MemoryStore.save, so its checks apply."""

from __future__ import annotations

import asyncio

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.markup import escape
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Static, TextArea

from tui import format as fmt

TEMPLATE = """---
name: {name}
description: one line on what this memory is for
type: user
---

"""

def virtual_path(name: str) -> str:
    name = name.strip().removeprefix("/memories/").strip("/")
    if name and not name.endswith(".md"):
        name += ".md"
    return f"/memories/{name}"


class MemoryEditor(ModalScreen[str | None]):
    """Dismisses with the store's message after a save, or None when discarded."""

    CSS_PATH = "memory_editor.tcss"
    BINDINGS = [
        Binding("ctrl+s", "save", "Save", priority=True),
        Binding("escape", "discard", "Discard"),
    ]

    def __init__(self, store, path: str | None, original: str | None, *, name: str = "") -> None:
        """`path` None writes a new memory, starting from `original` when given (an undone
        delete the store refused to take back as it was) and named `name`."""
        super().__init__()
        self.store = store
        self.path = path
        self.original = original
        self.start_name = name.removeprefix("/memories/")
        self.refusals: list[str] = []

    @property
    def is_new(self) -> bool:
        return self.path is None

    def compose(self) -> ComposeResult:
        with Vertical(id="editor") as box:
            box.border_title = "New memory" if self.is_new else f"Edit {escape(fmt.sanitize(self.path))}"
            if self.is_new:
                yield Input(self.start_name, placeholder="file name, e.g. feedback_build_warnings.md", id="name")
            yield TextArea(
                self._start_text(),
                id="text",
                soft_wrap=True,
                show_line_numbers=False,
            )
            yield Static("", id="verdict")
            with Horizontal(id="buttons"):
                yield Static("", id="size")
                yield Button("Save (ctrl+s)", variant="primary", id="save")
                yield Button("Discard (esc)", id="discard")

    def _start_text(self) -> str:
        if self.original is None:
            return TEMPLATE.format(name="")
        # shown as text: a control character in the file would act on the terminal
        return fmt.sanitize(self.original)

    def on_mount(self) -> None:
        self._update_size()
        if self.original is not None and fmt.sanitize(self.original) != self.original:
            self._say(
                "This memory holds control characters (escape sequences and the like). They are "
                "shown as ␛, ␇ and so on; saving writes them as shown."
            )
        if self.is_new:
            self.query_one("#name", Input).focus()
        else:
            self.query_one("#text", TextArea).focus()

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        self._update_size()

    def _update_size(self) -> None:
        size = len(self.query_one("#text", TextArea).text)
        cap = getattr(self.store, "max_file_chars", 0)
        style = "bold red" if cap and size > cap else "dim"
        self.query_one("#size", Static).update(Text(f"{fmt.chars(size)}/{fmt.chars(cap)} chars", style=style))

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "save":
            self.action_save()
        else:
            self.action_discard()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.query_one("#text", TextArea).focus()

    def action_discard(self) -> None:
        self.dismiss(None)

    def _refuse(self, message: str) -> None:
        self.refusals.append(message)
        self._say(message)

    def _say(self, message: str) -> None:
        verdict = self.query_one("#verdict", Static)
        verdict.update(Text(fmt.sanitize(message)))
        verdict.add_class("-shown")

    @work(exclusive=True, group="memory-save")
    async def action_save(self) -> None:
        text = self.query_one("#text", TextArea).text
        if self.is_new:
            name = self.query_one("#name", Input).value
            if not name.strip():
                self._refuse("Give the memory a file name first.")
                self.query_one("#name", Input).focus()
                return
            path = virtual_path(name)
            if any(m.path == path for m in await asyncio.to_thread(self.store.memories)):
                self._refuse(f"{path} exists already; pick another name or edit that one.")
                return
            message, refused = await asyncio.to_thread(self.store.save, path, text)
        else:
            path = self.path
            message, refused = await asyncio.to_thread(self.store.save, path, text, expected=self.original)
        if not refused:
            self.dismiss(message)
        else:
            # the text stays in the editor so nothing typed is lost
            self._refuse(message)
