"""The memory pane: the repository's memory folder, live.

The folder is the single source of truth: whoever writes it (the agent, this pane, another
session, an editor), the pane hears it through watchfiles and lists it again.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.table import Table
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.markup import escape
from textual.message import Message
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from tui import format as fmt

if TYPE_CHECKING:
    from memory.notes import MemoryInfo
    from memory.preload import LeftOut
    from memory.store import MemoryStore

# watchfiles waits 1.6 s for a burst of changes to settle by default; a memory save is one
# rename, so a short debounce shows it at once and still folds an editor's save dance into one.
DEBOUNCE_MS = 50
STEP_MS = 10

TYPE_STYLE = {"user": "magenta", "feedback": "yellow", "project": "cyan", "reference": "blue"}

EMPTY = "No memories yet.\nThe agent saves what it should remember here; press n to write one yourself."


@dataclass
class Listing:
    memories: list[MemoryInfo] = field(default_factory=list)
    total: int = 0
    cap: int = 0
    stale: dict[str, list[str]] = field(default_factory=dict)
    problem: str | None = None
    left_out: list[LeftOut] = field(default_factory=list)  # not in the prompt
    file_cap: int = 0


def load_listing(store: MemoryStore) -> Listing:
    """Read the folder; never raises, a failure becomes a sentence in the pane. The staleness
    check reads the repository and comes after, in `MemoryPane.reload`."""
    try:
        memories = store.memories()
        total = store.total_chars()
        left_out = store.preload().left_out
    except Exception as exc:  # the pane must outlive a broken folder
        return Listing(problem=f"Could not read the memory folder: {exc}")
    return Listing(memories, total, store.max_total_chars, left_out=left_out, file_cap=store.max_file_chars)


def preload_warning(listing: Listing) -> str | None:
    """What preloading leaves out of the prompt, and what to do; None when it is all in."""
    if not listing.left_out:
        return None
    named = []
    for item in listing.left_out[:3]:
        label = item.kind if item.size is None or item.kind == "binary" else f"{fmt.chars(item.size)} chars"
        named.append(f"{item.path.removeprefix('/memories/')} ({label})")
    more = f" and {len(listing.left_out) - 3} more" if len(listing.left_out) > 3 else ""
    return (
        f"⚠ Not preloaded: {', '.join(named)}{more}. The agent reads these only when asked. "
        f"Shorten, merge or delete them (e, d) to fit {fmt.chars(listing.file_cap)} a file and "
        f"{fmt.chars(listing.cap)} in all."
    )


STALE = "▲"


def option_prompt(info: MemoryInfo, stale: list[str] | None, now: float | None = None) -> Table:
    """Two lines a memory: name with size and age on the right; type and description."""
    grid = Table.grid(expand=True, padding=(0, 1))
    grid.add_column(ratio=1, no_wrap=True, overflow="ellipsis")
    grid.add_column(no_wrap=True, justify="right")
    name = Text(no_wrap=True, overflow="ellipsis")
    if stale:
        name.append(f"{STALE} ", "bold yellow")
    name.append(fmt.sanitize(info.name), "bold")
    grid.add_row(name, Text(f"{fmt.chars(info.size)} · {fmt.age(info.modified, now)}", "dim"))
    about = Text(no_wrap=True, overflow="ellipsis")
    if info.type:
        about.append(fmt.sanitize(info.type), TYPE_STYLE.get(info.type, "dim"))
        about.append(" · ", "dim")
    about.append(fmt.one_line(info.description, 200) if info.description else "no description", "dim italic")
    grid.add_row(about, "")
    return grid


def styled_memory(body: str) -> Text:
    """The file as it is, its frontmatter dimmed so the note itself stands out."""
    body = fmt.sanitize(body)
    text = Text(body)
    if body.startswith("---\n"):
        end = body.find("\n---", 4)
        if end != -1:
            text.stylize("dim", 0, end + 4)
    return text


class MemoryPane(Vertical):
    DEFAULT_CSS = """
    MemoryPane #memory-warning {
        color: $text-warning;
        padding: 0 1;
        height: auto;
        display: none;
    }
    """

    BINDINGS = [
        Binding("e", "edit", "Edit"),
        Binding("d,delete", "delete", "Delete"),
        Binding("n", "new", "New"),
        Binding("u", "undo_delete", "Undo delete"),
    ]

    class Changed(Message):
        """The listing was read again (tests and the benchmark wait for it)."""

    def __init__(self, store: MemoryStore, repo: Path | None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.border_title = "Memory"
        self.store = store
        self.repo = repo
        self.listing = Listing()
        self.loads = 0
        # (path, text) of every memory deleted from this pane, newest last: undo for the session
        self.deleted: list[tuple[str, str]] = []

    def compose(self) -> ComposeResult:
        yield Static("", id="memory-warning", markup=False)
        yield OptionList(id="memory-list")
        with VerticalScroll(id="memory-preview"):
            yield Static(EMPTY, id="memory-text", classes="empty")

    def on_mount(self) -> None:
        self.reload()
        self._watch()
        # ages move on while the app stays open
        self.set_interval(30, self.reload)

    # --- reading ------------------------------------------------------------------------

    @work(thread=True, exclusive=True, group="memory-load")
    def reload(self) -> None:
        # the listing shows first; the staleness check reads the repository and may take
        # longer, so its marks follow in a second step
        listing = load_listing(self.store)
        if listing.problem is None:
            known = self.listing.stale
            listing.stale = {m.path: known[m.path] for m in listing.memories if m.path in known}
        self.app.call_from_thread(self._apply, listing)
        if listing.problem is None and self.repo is not None:
            try:
                stale = self.store.stale_references(self.repo)
            except Exception:
                return
            if stale != listing.stale:
                listing = replace(listing, stale=stale)
                self.app.call_from_thread(self._apply, listing)

    @work(exclusive=True, group="memory-watch")
    async def _watch(self) -> None:
        from watchfiles import awatch

        directory = Path(self.store.directory)
        try:
            directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        except OSError as exc:
            self._title_problem(f"cannot watch {directory}: {exc}")
            return
        try:
            async for _changes in awatch(directory, debounce=DEBOUNCE_MS, step=STEP_MS):
                self.reload()
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            self._title_problem(f"stopped following the folder: {exc}")

    def _title_problem(self, sentence: str) -> None:
        self.border_subtitle = f"[$text-warning]{escape(fmt.sanitize(sentence))}[/]"

    def _apply(self, listing: Listing) -> None:
        self.listing = listing
        self.loads += 1
        options = self.query_one("#memory-list", OptionList)
        keep = self.selected_path
        options.clear_options()
        for info in listing.memories:
            options.add_option(Option(option_prompt(info, listing.stale.get(info.path)), id=info.path))
        paths = [m.path for m in listing.memories]
        if paths:
            options.highlighted = paths.index(keep) if keep in paths else 0
        self._update_title()
        warning = self.query_one("#memory-warning", Static)
        text = preload_warning(listing)
        warning.update(text or "")
        warning.display = text is not None
        self._show_preview()
        self.post_message(self.Changed())

    def _update_title(self) -> None:
        listing = self.listing
        if listing.problem:
            self.border_subtitle = f"[$text-warning]{escape(fmt.sanitize(listing.problem))}[/]"
            return
        count = len(listing.memories)
        self.border_title = f"Memory · {count}"
        used = f"{fmt.chars(listing.total)}/{fmt.chars(listing.cap)} chars"
        if listing.cap and listing.total > listing.cap:
            used = f"[$text-error]{used}[/]"
        stale = sum(1 for m in listing.memories if listing.stale.get(m.path))
        self.border_subtitle = used + (f" · [$text-warning]{STALE} {stale} stale[/]" if stale else "")

    @property
    def names(self) -> list[str]:
        return [m.name for m in self.listing.memories]

    @property
    def selected_path(self) -> str | None:
        options = self.query_one("#memory-list", OptionList)
        if options.highlighted is None or options.option_count == 0:
            return None
        return options.get_option_at_index(options.highlighted).id

    def selected_info(self) -> MemoryInfo | None:
        path = self.selected_path
        return next((m for m in self.listing.memories if m.path == path), None)

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        self._show_preview()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self._show_preview()
        self.query_one("#memory-preview").focus()

    def _show_preview(self) -> None:
        static = self.query_one("#memory-text", Static)
        info = self.selected_info()
        if info is None:
            static.update(EMPTY if not self.listing.problem else "")
            static.set_class(True, "empty")
            return
        static.set_class(False, "empty")
        try:
            body = self.store.read(info.path)
        except Exception as exc:
            static.update(Text(fmt.sanitize(f"Cannot read {info.path}: {exc}"), style="red"))
            return
        text = Text()
        text.append(fmt.sanitize(info.path), "bold")
        text.append(f"  {fmt.chars(info.size)} chars · changed {fmt.ago(info.modified)}\n", "dim")
        stale = self.listing.stale.get(info.path)
        if stale:
            text.append(f"{STALE} refers to what the repository no longer has: ", "yellow")
            text.append(fmt.sanitize(", ".join(stale)), "yellow")
            text.append("\n")
        text.append("\n")
        text.append_text(styled_memory(body))
        static.update(text)

    # --- changing: everything goes through the store ------------------------------------

    def action_edit(self) -> None:
        info = self.selected_info()
        if info is None:
            self.app.notify("No memory selected.", severity="warning")
            return
        try:
            original = self.store.read(info.path)
        except Exception as exc:
            self.app.notify(f"Cannot read {info.path}: {exc}", severity="error")
            return
        from tui.screens.memory_editor import MemoryEditor

        self.app.push_screen(MemoryEditor(self.store, info.path, original), self._after_edit)

    def action_new(self) -> None:
        from tui.screens.memory_editor import MemoryEditor

        self.app.push_screen(MemoryEditor(self.store, None, None), self._after_edit)

    def _after_edit(self, message: str | None) -> None:
        if message:
            self.app.notify(message, title="Memory")
        self.reload()

    def action_delete(self) -> None:
        info = self.selected_info()
        if info is None:
            self.app.notify("No memory selected.", severity="warning")
            return
        from tui.screens.confirm import Confirm

        try:
            text = self.store.read(info.path)
            after = "You can undo it for the rest of this session (u in this pane)."
        except Exception as exc:
            text = None
            after = f"It cannot be undone: {exc}"
        question = Text.assemble(
            "Delete the memory ", (fmt.sanitize(info.name), "bold"), "?\n\n",
            f"{fmt.sanitize(info.path)} ({fmt.chars(info.size)} chars) is removed from disk; the agent will not see it again. ",
            after,
        )
        def delete(confirmed: bool | None) -> None:
            self._delete(info.path, text, confirmed)

        self.app.push_screen(Confirm("Delete memory", question, yes="Delete"), delete)

    @work(group="memory-delete")
    async def _delete(self, path: str, text: str | None, confirmed: bool | None) -> None:
        if not confirmed:
            return
        message, refused = await asyncio.to_thread(self.store.delete, path)
        if not refused and text is not None:
            self.deleted.append((path, text))
            message += " Press u in the memory pane (or Undo delete in Ctrl+P) to bring it back."
        self.app.notify(message, title="Memory", severity="error" if refused else "information")
        self.reload()

    @work(group="memory-delete")
    async def action_undo_delete(self) -> None:
        if not self.deleted:
            self.app.notify("No memory was deleted in this session.", title="Memory")
            return
        path, text = self.deleted.pop()
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
        self.app.notify(f"Restored {path}.", title="Memory")
        self.reload()

    def _restore_in_editor(self, path: str, text: str, why: str, name: str) -> None:
        from tui.screens.memory_editor import MemoryEditor

        self.app.notify(f"{why} The deleted text is in the editor; save it from there.", title="Memory",
                        severity="warning")
        self.app.push_screen(MemoryEditor(self.store, None, text, name=name), self._after_edit)
