"""What the memory pane lists, read off the UI thread: the folder's memories, their sizes
against the caps, what preloading leaves out, and each memory's two-line row."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING

from rich.text import Text
from textual.widgets.option_list import Option

from tui import format as fmt
from tui.widgets.memory import trust_view
from tui.widgets.memory.row import MemoryRow

if TYPE_CHECKING:
    from memory.notes import MemoryInfo
    from memory.preload import LeftOut
    from memory.seam import Store
    from memory.trust import MemoryMarks, Trust
    from tui.widgets.memory.list_widget import MemoryList, Row

TYPE_STYLE = {"user": "magenta", "feedback": "yellow", "project": "cyan", "reference": "blue"}


@dataclass
class Listing:
    """The memory folder as the pane last read it, with the marks of the evidence check."""

    memories: list[MemoryInfo] = field(default_factory=list)
    total: int = 0
    cap: int = 0
    # evidence, aging, findings and held changes: read after the listing, on the same worker
    trust: Trust | None = None
    problem: str | None = None
    left_out: list[LeftOut] = field(default_factory=list)  # not in the prompt
    file_cap: int = 0


def load_listing(store: Store) -> Listing:
    """Read the folder; never raises, a failure becomes a sentence in the pane. The evidence
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


def option_prompt(info: MemoryInfo, marks: MemoryMarks | None, now: float | None = None) -> MemoryRow:
    """Two lines a memory: marks, name, size and age on the right; findings, type and description."""
    name = trust_view.name_marks(marks)
    name.append(fmt.sanitize(info.name), "bold")
    about = trust_view.finding_tags(marks)
    if info.type:
        about.append(fmt.sanitize(info.type), TYPE_STYLE.get(info.type, "dim"))
        about.append(" · ", "dim")
    about.append(fmt.one_line(info.description, 200) if info.description else "no description", "dim italic")
    size_and_age = Text(f"{fmt.chars(info.size)} · {fmt.age(info.modified, now)}", "dim")
    return MemoryRow([(name, size_and_age), (about, Text())])


def memory_option(info: MemoryInfo, marks: MemoryMarks | None) -> Option:
    return Option(option_prompt(info, marks), id=info.path)


def styled_memory(body: str) -> Text:
    """The file as it is, its frontmatter dimmed so the note itself stands out."""
    body = fmt.sanitize(body)
    text = Text(body)
    if body.startswith("---\n"):
        end = body.find("\n---", 4)
        if end != -1:
            text.stylize("dim", 0, end + 4)
    return text


def show_listing(options: MemoryList, listing: Listing, *, several_roots: bool) -> list[str]:
    """The listing in the pane's list: the held changes first, then the memories, in a group
    per folder (headed when there is more than one group to tell apart); the ids in order."""
    from memory.roots import is_user_path

    trust = listing.trust
    marks = trust.marks if trust is not None else {}
    rows: list[Row] = []

    def row(slot: str, shows: object, make: Callable[[], Option]) -> None:
        rows.append((slot, shows, options.option(slot, shows, make)))

    def header(title: str, count: int) -> None:
        row(f"header:{title}", count, partial(Option, trust_view.group_header(title, count), disabled=True))

    held = ((trust_view.GROUP_PENDING, trust.pending), (trust_view.GROUP_CONFLICTS, trust.conflicts)) if trust is not None else ()
    for title, changes in held:
        if changes:
            header(title, len(changes))
        for change in changes:
            prompt = trust_view.pending_prompt(change)
            row(trust_view.PENDING_PREFIX + change.id, change, partial(Option, prompt, id=trust_view.PENDING_PREFIX + change.id))
    groups = [
        (trust_view.GROUP_REPOSITORY, [m for m in listing.memories if not is_user_path(m.path)]),
        (trust_view.GROUP_USER, [m for m in listing.memories if is_user_path(m.path)]),
    ]
    headed = several_roots or bool(rows)
    for title, members in groups:
        if headed and (members or title == trust_view.GROUP_USER):
            header(title, len(members))
        for info in members:
            mark = marks.get(info.path)
            row(info.path, (info, mark, fmt.age(info.modified)), partial(memory_option, info, mark))
    options.set_rows(rows)
    return [option.id for _, _, option in rows if option.id is not None]
