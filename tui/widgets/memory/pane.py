"""The memory pane: the repository's memory folder, live.

The folder is the single source of truth: whoever writes it (the agent, this pane, another
session, an editor), the pane hears it through watchfiles and lists it again.

The first frame shows the pane's frame and one line; its parts (the list, the preview, the
instructions) are imported and mounted just after it (`_furnish`), then it starts watching.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.markup import escape
from textual.message import Message
from textual.widgets import OptionList, Static

from memory.private import make_private
from tui import format as fmt
from tui.widgets.memory import trust_view
from tui.widgets.memory.delete import DeleteActions
from tui.widgets.memory.listing import Listing, load_listing, preload_warning, show_listing, styled_memory
from tui.widgets.memory.review import ReviewActions
from tui.widgets.memory.watch import Cancelled, changes_in, trace, watched_directories

if TYPE_CHECKING:
    from textual.worker import Worker

    from memory.notes import MemoryInfo
    from memory.seam import EditableStore
    from tui.widgets.memory.instructions import InstructionsShown
    from tui.widgets.memory.list_widget import MemoryList

# how long the evidence check waits for a loading session before it runs anyway
SESSION_WAIT_SECONDS = 20
# The ages move on (a re-read every AGES_SECONDS), but not while the user types: a new age
# lays the list out again, and a key typed meanwhile waits for that; it is tried again
# TYPING_RETRY_SECONDS later.
AGES_SECONDS = 30
TYPING_RETRY_SECONDS = 1.0

READING = "Reading the memory folder…"
EMPTY = "No memories yet.\nThe agent saves what it should remember here; press Ctrl+W here to write one yourself."


class MemoryPane(DeleteActions, Vertical):
    DEFAULT_CSS = """
    MemoryPane #memory-warning {
        color: $text-warning;
        padding: 0 1;
        height: auto;
        display: none;
    }
    """

    # No letter: letters typed with the pane focused are words for the prompt (tui/keys.py),
    # and a sentence that began with "m" or "v" must not move or verify a memory.
    # In the footer in this order (a narrow one keeps the first): a change that waits for
    # the user first, and the undo only once there is a delete to take back.
    BINDINGS = [
        Binding("ctrl+y", "accept", "Accept"),
        Binding("ctrl+x", "reject", "Reject"),
        Binding("ctrl+e", "edit", "Edit"),
        Binding("delete", "delete", "Delete"),
        Binding("ctrl+w", "new", "New"),
        Binding("ctrl+t", "verify", "Still true"),
        Binding("ctrl+o", "move", "Move"),
        Binding("ctrl+z", "undo_delete", "Undo delete"),
    ]

    class Changed(Message):
        """The listing was read again (tests and the benchmark wait for it)."""


    def __init__(self, store: EditableStore, repo: Path | None, *, aging_days: int = 30,
                 settled: Callable[[float], None] | None = None, typing_now: Callable[[], bool] | None = None,
                 **kwargs: Any) -> None:
        """From above: `aging_days`, `settled` (blocks a worker up to the seconds given while
        the session loads and a first question waits) and `typing_now` (the user types)."""
        super().__init__(**kwargs)
        self.aging_days = aging_days
        self._settled = settled
        self._typing_now = typing_now
        self.border_title = "Memory"
        self.store = store
        self.repo = repo
        self.listing = Listing()
        self.loads = 0
        self._waiting = False  # whether held changes were listed last time
        self._ages: list[str] = []  # as the list shows them
        self._warning: str | None = None  # as the warning line shows it
        self._preview_key: object = None  # what the preview shows
        # (path, text) of every memory deleted from this pane, newest last: undo for the session
        self.deleted: list[tuple[str, str]] = []
        self._index_lines: dict[str, list[str]] = {}
        self.follow: str | None = None  # a memory to select once the listing has it (after a move)
        self.review = ReviewActions(self)
        self.furnished = False  # whether the parts are mounted (`_furnish`)
        self._instructions: InstructionsShown | None = None  # for the section, once it is there

    def compose(self) -> ComposeResult:
        yield Static(READING, id="memory-first", classes="empty")

    def on_mount(self) -> None:
        # The workers' threads reach the app through this: Textual finds `self.app` from a
        # thread by walking up the DOM, and a pane removed while the app closes has none.
        self._host = self.app
        # After the first frame: the parts, then the watcher (it imports watchfiles) and the
        # listing (it reads every memory and the repository) once the watcher is set up.
        self.call_after_refresh(self._furnish)
        self.set_interval(AGES_SECONDS, self._ages_move_on)

    async def _furnish(self) -> None:
        from tui.widgets.memory.instructions import InstructionsSection
        from tui.widgets.memory.list_widget import MemoryList
        from tui.widgets.memory.preview import MemoryPreview

        first = self.query("#memory-first")
        section = InstructionsSection(id="memory-instructions")
        section.shown = self._instructions
        await self.mount_all([
            Static("", id="memory-warning", markup=False),
            section,
            MemoryList(id="memory-list"),
            MemoryPreview(Static(READING, id="memory-text", classes="empty"), id="memory-preview"),
        ])
        await first.remove()
        self.furnished = True
        self._watch()

    def show_instructions(self, shown: InstructionsShown) -> None:
        """The repository's instruction files in the pane's section (kept until it is mounted)."""
        self._instructions = shown
        if self.furnished:
            from tui.widgets.memory.instructions import InstructionsSection

            self.query_one(InstructionsSection).shown = shown

    _ages_due = False

    def _ages_move_on(self) -> None:
        """The periodic re-read that keeps the ages true, held while the user types."""
        if self._typing_now is not None and self._typing_now():
            if not self._ages_due:
                self._ages_due = True
                self.set_timer(TYPING_RETRY_SECONDS, self._ages_retry)
            return
        self.reload()

    def _ages_retry(self) -> None:
        self._ages_due = False
        self._ages_move_on()

    # --- reading ------------------------------------------------------------------------

    def _list_now(self) -> Listing:
        """The folder as it is, with the marks it had (any thread)."""
        listing = load_listing(self.store)
        if listing.problem is None:
            listing.trust = self.listing.trust
        return listing

    @work(thread=True, exclusive=True, group="memory-load")
    def reload(self, shown: Listing | None = None) -> None:
        # the listing shows first, with the marks it had (unless `shown` already is); the
        # evidence check reads the repository and runs git, so fresh marks follow
        listing = shown
        if listing is None:
            listing = self._list_now()
            self._from_thread(self._apply, listing)
        if listing.problem is None:
            if self._settled is not None:
                # the evidence check reads the repository and runs git: after the session
                # has loaded and a question asked at once has its first answer
                self._settled(SESSION_WAIT_SECONDS)
            from memory import trust as memory_trust  # the evidence check's own imports are a worker's to pay

            try:
                trust = memory_trust.load_trust(self.store, self.repo, aging_days=self.aging_days)
            except Exception as exc:  # the marks are advice: the list stays, the title says why
                self._from_thread(self._title_problem, f"could not check the evidence: {exc}")
                return
            self._from_thread(self._apply_checked, replace(listing, trust=trust))

    @work(thread=True, exclusive=True, group="memory-watch")
    def _watch(self) -> None:
        # A thread of its own, not awatch on the event loop: its first use sets up anyio's
        # thread pool, a tenth of a second before the first frame, and a change reaches
        # the listing without waiting for the loop.
        from textual.worker import get_current_worker

        worker = get_current_worker()
        directories = watched_directories(self.store)
        try:
            for directory in directories:
                make_private(directory)
        except OSError as exc:
            self._from_thread(self._title_problem, f"cannot watch {directory}: {exc}")
            return
        self._from_thread(self.reload)
        try:
            for catching_up in changes_in(directories, Cancelled(worker)):
                # listed here and shown at once; only the evidence check needs a worker
                listing = self._list_now()
                trace("folder listed")
                if not catching_up or listing != self.listing:
                    self._from_thread(self._show_then_check, listing)
        except Exception as exc:
            if not worker.is_cancelled:
                self._from_thread(self._title_problem, f"stopped following the folder: {exc}")

    def _from_thread(self, callback: Callable[..., object], *args: object) -> None:
        """Run `callback` on the event loop unless the pane is going: a worker's listing can
        arrive while the app closes, after the list it would fill has been removed."""

        app = self._host

        def if_open() -> None:
            if app.is_running and self.is_attached and self.is_running:
                callback(*args)

        try:
            app.call_from_thread(if_open)
        except RuntimeError:
            pass  # the app has stopped: there is nothing left to show it on

    def _apply_checked(self, listing: Listing) -> None:
        """The evidence check's result, unless a newer listing is on screen meanwhile (a
        write landed while the check ran): that one's own check follows, and this one would
        put the old listing back."""
        if listing.memories == self.listing.memories:
            self._apply(listing)

    def _show_then_check(self, listing: Listing) -> None:
        trace("on the event loop")
        self._apply(listing)
        trace("rows set")
        self.call_after_refresh(trace, "screen refreshed")
        # the evidence check (git, the repository) starts once the list is on screen, not
        # beside the drawing of it
        self.call_after_refresh(self.reload, listing)

    def _title_problem(self, sentence: str) -> None:
        self._set_border(self.border_title, f"[$text-warning]{escape(fmt.sanitize(sentence))}[/]")

    def _set_border(self, title: str | None, subtitle: str | None) -> None:
        """Title and subtitle, set only when one changes (each change repaints the pane)."""
        if (title, subtitle) != (self.border_title, self.border_subtitle):
            self.border_title, self.border_subtitle = title, subtitle

    def _apply(self, listing: Listing) -> None:
        if not self.furnished:
            return  # a reload asked for before the parts are in: the watcher lists it once they are
        ages = [fmt.age(m.modified) for m in listing.memories]
        if self.loads and listing == self.listing and ages == self._ages:
            return  # the periodic re-read found nothing new: no layout for nothing
        self._ages = ages
        known = {m.path for m in self.listing.memories} if self.loads else None
        self.listing = listing
        self.loads += 1
        options = self._list()
        keep = self.selected_path
        paths = show_listing(options, listing, several_roots=len(self.store.roots()) > 1)
        if self.follow in paths:
            keep, self.follow = self.follow, None
        # with nothing to pick, the list's room goes to the preview, which says why (and
        # takes the focus, so the pane's keys still reach it)
        if not paths and options.has_focus:
            self.query_one("#memory-preview").focus()
        options.display = bool(paths)
        self.set_class(not paths, "-no-list")
        if paths:
            keep = keep if keep in paths else paths[0]
            if options.has_focus:
                options.highlighted = options.get_option_index(keep)  # in view, as the user moves it
            else:
                # the list keeps its place rather than scrolling back to the highlight
                options.set_reactive(OptionList.highlighted, options.get_option_index(keep))
                fresh = [m.path for m in listing.memories if known is not None and m.path not in known]
                if fresh:
                    # a memory written meanwhile (by the agent, an editor, another session)
                    # comes into view; a user moving through the list is left where they are
                    options.reveal(options.get_option_index(fresh[0]))
        self._update_title()
        text = preload_warning(listing)
        if text != self._warning:
            # only on a change: an update lays the whole screen out again
            self._warning = text
            warning = self.query_one("#memory-warning", Static)
            warning.update(text or "")
            warning.display = text is not None
        self._show_preview()
        waiting = bool(listing.trust is not None and listing.trust.waiting)
        if waiting != self._waiting:
            # a and r come and go with the held changes; only then, as the footer redraws
            # itself whole on each refresh
            self._waiting = waiting
            self.refresh_bindings()
        self.post_message(self.Changed())

    def _update_title(self) -> None:
        listing = self.listing
        if listing.problem:
            self._set_border(self.border_title, f"[$text-warning]{escape(fmt.sanitize(listing.problem))}[/]")
            return
        count = len(listing.memories)
        used = f"{fmt.chars(listing.total)}/{fmt.chars(listing.cap)} chars"
        if listing.cap and listing.total > listing.cap:
            used = f"[$text-error]{used}[/]"
        counts = trust_view.subtitle_counts(listing.trust, listing.memories)
        self._set_border(f"Memory · {count}", used + (f" · {counts}" if counts else ""))

    def _list(self) -> MemoryList:
        from tui.widgets.memory.list_widget import MemoryList

        return self.query_one("#memory-list", MemoryList)

    def focus_list(self) -> None:
        """The focus on the list (on the preview when there is nothing to list)."""
        if not self.furnished:
            return
        options = self._list()
        (options if options.display else self.query_one("#memory-preview")).focus()

    @property
    def names(self) -> list[str]:
        return [m.name for m in self.listing.memories]

    @property
    def selected_path(self) -> str | None:
        if not self.furnished:
            return None
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
        if not self.furnished:
            return
        change_id = self.review.selected_change_id()
        trust = self.listing.trust
        change = None
        if change_id is not None and trust is not None:
            change = next((c for c in trust.waiting if c.id == change_id), None)
        info = self.selected_info() if change is None else None
        # what the preview shows depends on nothing else; the same again is not redrawn
        # (each list change highlights again, and an update lays the screen out anew)
        key = (
            change,
            info,
            fmt.ago(info.modified) if info is not None else None,
            trust.marks.get(info.path) if info is not None and trust is not None else None,
            self.listing.problem,
        )
        if key == self._preview_key:
            return
        self._preview_key = key
        static = self.query_one("#memory-text", Static)
        if change is not None:
            static.set_class(False, "empty")
            static.update(trust_view.diff_preview(change))
            return
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
        text.append_text(trust_view.evidence_preview(trust.marks.get(info.path) if trust is not None else None))
        text.append("\n")
        text.append_text(styled_memory(fmt.sanitize(body)))
        static.update(text)

    # --- changing: everything goes through the store ------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "undo_delete":
            return bool(self.deleted)
        return self.review.check_action(action, parameters)

    def action_verify(self) -> None:
        self.review.verify()

    def action_move(self) -> None:
        self.review.move()

    def action_accept(self) -> None:
        self.review.decide("accept")

    def action_reject(self) -> None:
        self.review.decide("reject")

    def action_tidy(self) -> Worker[None]:
        """One agent turn that proposes fixes for what `memory check` finds (an AskAgent up)."""
        return self.review.tidy()

    def action_decide_all(self, verb: str) -> None:
        """Accept or reject every held change."""
        self.review.decide_all(verb)

    def action_edit(self) -> None:
        info = self.selected_info()
        if info is None:
            self.notify("No memory selected.", severity="warning")
            return
        try:
            original = self.store.read(info.path)
        except Exception as exc:
            self.notify(f"Cannot read {info.path}: {exc}", severity="error")
            return
        from tui.screens.memory_editor import MemoryEditor

        self.app.push_screen(MemoryEditor(self.store, info.path, original), self._after_edit)

    def action_new(self) -> None:
        from tui.screens.memory_editor import MemoryEditor

        self.app.push_screen(MemoryEditor(self.store, None, None), self._after_edit)

    def _after_edit(self, message: str | None) -> None:
        if message:
            self.notify(message, title="Memory")
        self.reload()
