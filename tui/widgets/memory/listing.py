"""What the memory pane lists, read off the UI thread: the folder's memories, their sizes
against the caps, what preloading leaves out, and each memory's two-line row."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from rich.text import Text
from textual.widgets.option_list import Option

from memory.trust import MemoryMarks, Trust
from tui import format as fmt
from tui.widgets.memory import trust_view
from tui.widgets.memory.row import MemoryRow

if TYPE_CHECKING:
    from memory.notes import MemoryInfo
    from memory.preload import LeftOut
    from memory.seam import Store

TYPE_STYLE = {"user": "magenta", "feedback": "yellow", "project": "cyan", "reference": "blue"}


@dataclass
class Listing:
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
