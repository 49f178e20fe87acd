"""Edit or write one memory; the save goes through MemoryStore.save, so its checks apply.

Unsaved text is never thrown away without a confirmation: not by Esc, not by the
Discard button, not by Ctrl+Q (the app asks), not by a refused save. A file that changed
on disk meanwhile is a choice between theirs, mine, or both side by side. A new memory
needs a file name, a name and a description before it saves.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.markup import escape
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Static, TextArea

from memory.notes import frontmatter
from tui import format as fmt
from tui.screens.conflict import Choice, Conflict

if TYPE_CHECKING:
    from memory.seam import EditableStore

PLACEHOLDER = "one line on what this memory is for"
TEMPLATE = f"""---
name: {{name}}
description: {PLACEHOLDER}
type: project
---

"""


def virtual_path(name: str) -> str:
    name = name.strip().removeprefix("/memories/").strip("/")
    if name and not name.endswith(".md"):
        name += ".md"
    return f"/memories/{name}"


def misplaced_frontmatter(text: str) -> str | None:
    """Words typed above the frontmatter make it body text: the memory would lose its name,
    description and type. One sentence when that is so; None otherwise."""
    lines = text.splitlines()
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first is None or lines[first].strip() == "---" or "---" not in (line.strip() for line in lines[first:]):
        return None
    return ("Not saved: there is text above the first --- line, so the lines between the --- marks would not be "
            "read as the memory's name, description and type. Move it below the second ---.")


def missing_fields(text: str) -> str | None:
    """What a new memory still lacks before it can be saved, as one sentence; None when ready."""
    meta = frontmatter(text)
    missing = []
    if not str(meta.get("name") or "").strip():
        missing.append("a name")
    description = " ".join(str(meta.get("description") or "").split())
    if not description or description == PLACEHOLDER:
        missing.append("a description")
    if not missing:
        return None
    return f"Not saved: give the memory {' and '.join(missing)} in the lines between the --- marks first."


class MemoryEditor(ModalScreen[str | None]):
    """Dismisses with the store's message after a save, or None when discarded."""

    CSS_PATH = "memory_editor.tcss"
    BINDINGS = [
        Binding("ctrl+s", "save", "Save", priority=True),
        Binding("escape", "discard", "Discard"),
        # the text's own ends, not the conversation's (the app's Ctrl+End)
        Binding("ctrl+end", "text_end(True)", "End", show=False),
        Binding("ctrl+home", "text_end(False)", "Start", show=False),
    ]

    def __init__(self, store: EditableStore, path: str | None, original: str | None, *, name: str = "") -> None:
        """`path` None writes a new memory, starting from `original` when given (an undone
        delete the store refused to take back as it was) and named `name`."""
        super().__init__()
        self.store = store
        self.path = path
        self.original = original  # the file as it was on disk when opened (the save's check)
        self.start_name = name.removeprefix("/memories/")
        self.refusals: list[str] = []
        self._start_text = ""

    @property
    def is_new(self) -> bool:
        return self.path is None

    @property
    def text(self) -> str:
        return self.query_one("#text", TextArea).text

    @property
    def dirty(self) -> bool:
        """True while something typed here has not been saved."""
        if not self.is_mounted:
            return False
        if self.is_new and self.query_one("#name", Input).value != self.start_name:
            return True
        return self.text != self._start_text

    def compose(self) -> ComposeResult:
        self._start_text = TEMPLATE.format(name="") if self.original is None else fmt.sanitize(self.original)
        with Vertical(id="editor") as box:
            box.border_title = "New memory" if self.path is None else f"Edit {escape(fmt.sanitize(self.path))}"
            if self.is_new:
                yield Input(self.start_name, placeholder="file name, e.g. feedback_build_warnings.md", id="name")
            with Horizontal(id="texts"):
                # shown as text: a control character in the file would act on the terminal
                yield TextArea(self._start_text, id="text", soft_wrap=True, show_line_numbers=False)
            yield Static("", id="verdict")
            with Horizontal(id="buttons"):
                yield Static("", id="size")
                yield Button("Save (ctrl+s)", variant="primary", id="save")
                yield Button("Discard (esc)", id="discard")

    def on_mount(self) -> None:
        self._update_size()
        if self.is_new:
            self.query_one("#name", Input).focus()
        else:
            self.query_one("#text", TextArea).focus()
        if self.original is not None and fmt.sanitize(self.original) != self.original:
            self._say(
                "This memory holds control characters (escape sequences and the like). They are "
                "shown as ␛, ␇ and so on; saving writes them as shown."
            )

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        if event.text_area.id == "text":
            self._update_size()

    def _update_size(self) -> None:
        size = len(self.text)
        cap = self.store.max_file_chars
        style = "bold red" if cap and size > cap else "dim"
        self.query_one("#size", Static).update(Text(f"{fmt.chars(size)}/{fmt.chars(cap)} chars", style=style))

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "save":
            self.action_save()
        else:
            self.action_discard()

    def action_text_end(self, end: bool) -> None:
        focused = self.focused
        area = focused if isinstance(focused, TextArea) else self.query_one("#text", TextArea)
        area.move_cursor(area.document.end if end else (0, 0))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.query_one("#text", TextArea).focus()

    # --- leaving ------------------------------------------------------------------------

    def action_discard(self) -> None:
        if not self.dirty:
            self.dismiss(None)
            return
        from tui.screens.confirm import Confirm

        question = Text("Your changes to this memory are not saved. Discard them?")
        self.app.push_screen(Confirm("Discard changes", question, yes="Discard"), self._discard_answered)

    def _discard_answered(self, discard: bool | None) -> None:
        if discard:
            self.dismiss(None)
        else:
            self.query_one("#text", TextArea).focus()

    def _refuse(self, message: str) -> None:
        self.refusals.append(message)
        self._say(message)

    def _say(self, message: str) -> None:
        verdict = self.query_one("#verdict", Static)
        verdict.update(Text(fmt.sanitize(message)))
        verdict.add_class("-shown")

    # --- saving -------------------------------------------------------------------------

    @work(exclusive=True, group="memory-save")
    async def action_save(self) -> None:
        text = self.text
        path = self.path
        problem = misplaced_frontmatter(text)
        if problem:
            self._refuse(problem)
            return
        if path is None:
            await self._save_new(text)
            return
        message, refused = await asyncio.to_thread(self.store.save, path, text, expected=self.original)
        if not refused:
            self.dismiss(message)
            return
        theirs = await asyncio.to_thread(self._on_disk)
        if theirs != self.original:
            self._refuse(message)

            def resolve(choice: Choice | None) -> None:
                self._resolve(choice, theirs)

            self.app.push_screen(Conflict(path, deleted=theirs is None), resolve)
            return
        # the text stays in the editor so nothing typed is lost
        self._refuse(message)

    async def _save_new(self, text: str) -> None:
        name = self.query_one("#name", Input).value
        if not name.strip():
            self._refuse("Give the memory a file name first.")
            self.query_one("#name", Input).focus()
            return
        path = virtual_path(name)
        if any(m.path == path for m in await asyncio.to_thread(self.store.memories)):
            self._refuse(f"{path} exists already; pick another name or edit that one.")
            return
        problem = missing_fields(text)
        if problem:
            self._refuse(problem)
            self.query_one("#text", TextArea).focus()
            return
        message, refused = await asyncio.to_thread(self.store.save, path, text)
        if not refused:
            self.dismiss(message)
        else:
            self._refuse(message)

    def _on_disk(self) -> str | None:
        """The file as it is now; None when it is gone (or not written yet)."""
        if self.path is None:
            return None
        try:
            return self.store.read(self.path)
        except Exception:
            return None

    @work(exclusive=True, group="memory-save")
    async def _resolve(self, choice: Choice | None, theirs: str | None) -> None:
        if choice is None:
            self.query_one("#text", TextArea).focus()
        elif choice == "theirs":
            # chosen in so many words: their version stays, this edit goes
            self.dismiss(f"Kept {self.path} as it is on disk; your edit was dropped.")
        elif choice == "mine":
            self.original = theirs
            self.action_save()
        else:
            self.original = theirs
            await self._show_theirs(theirs or "")

    async def _show_theirs(self, theirs: str) -> None:
        existing = self.query("#theirs")
        if existing:
            existing.first(TextArea).load_text(fmt.sanitize(theirs))
        else:
            area = TextArea(fmt.sanitize(theirs), id="theirs", soft_wrap=True, read_only=True, show_line_numbers=False)
            area.border_title = "on disk now (read-only)"
            await self.query_one("#texts", Horizontal).mount(area)
            self.query_one("#editor").add_class("-both")
        self.query_one("#text", TextArea).border_title = "yours: merge here, then Ctrl+S saves over theirs"
        self._say("Theirs is beside yours. Copy what you want to keep into yours; Ctrl+S then saves yours.")
        self.query_one("#text", TextArea).focus()
