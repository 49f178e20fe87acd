"""How the memory pane shows trusting a memory, kept out of the pane itself.

Per memory: the evidence behind it (a mark for the worst of its citations), whether it is
aging, and the findings of `devagent memory check`; and the agent's changes waiting for
review, with their diffs. memory/trust.py gathers all that (on a worker thread: it reads
the repository and runs git); this turns it into rich Text.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text

from memory import evidence_states as ev
from tui import format as fmt
from tui.widgets.memory.row import MemoryRow

if TYPE_CHECKING:
    from memory.trust import MemoryMarks, Trust

EVIDENCE_MARK = {
    ev.INTACT: ("✓", "green"),
    ev.MOVED: ("→", "cyan"),
    ev.UNRECORDED: ("?", "dim"),
    ev.CHANGED: ("≠", "bold yellow"),
    ev.GONE: ("×", "bold red"),
}
AGING_MARK = "◷"
# Findings already shown by the evidence and aging marks.
_SHOWN_BY_MARKS = {"changed", "gone", "aging"}
PENDING_PREFIX = "pending:"
GROUP_REPOSITORY = "this repository"
GROUP_USER = "you, in every repository"
GROUP_PENDING = "for your review"  # short: one line at 80 columns
GROUP_CONFLICTS = "not applied"  # the preview says why: the file changed since


# --- the list ------------------------------------------------------------------------------


def name_marks(marks: MemoryMarks | None) -> Text:
    """The marks before a memory's name: its evidence, then aging."""
    text = Text(no_wrap=True)
    if marks is None:
        return text
    if marks.worst is not None:
        symbol, style = EVIDENCE_MARK[marks.worst]
        text.append(f"{symbol} ", style)
    if marks.age is not None and marks.age.aging:
        text.append(f"{AGING_MARK} ", "yellow")
    return text


def finding_tags(marks: MemoryMarks | None) -> Text:
    """Findings the marks do not already show, as short tags: `▲ state, index`."""
    text = Text(no_wrap=True)
    if marks is None:
        return text
    kinds = sorted({f.kind for f in marks.findings} - _SHOWN_BY_MARKS)
    if kinds:
        style = "bold red" if "secret" in kinds else "yellow"
        text.append(f"▲ {', '.join(kinds)}", style)
        text.append(" · ", "dim")
    return text


def group_header(title: str, count: int | None = None) -> Text:
    label = title if count is None else f"{title} · {count}"
    return Text(label.upper(), style="bold dim")


def pending_prompt(change: Any) -> MemoryRow:
    """One line a held change: `● edit project_rename.md`, `! edit …` for one the file changed
    under (the preview has the diff and the keys); cut with an ellipsis, as a memory's name is."""
    line = Text()
    conflict = _is_conflict(change)
    line.append("! " if conflict else "● ", "bold yellow" if conflict else "bold magenta")
    line.append(fmt.sanitize(change.summary.replace("/memories/", "")), "bold")
    return MemoryRow([(line, Text())])


def _is_conflict(change: Any) -> bool:
    from memory.pending import CONFLICT

    return bool(change.status == CONFLICT)


# --- the preview ---------------------------------------------------------------------------


def evidence_preview(marks: MemoryMarks | None) -> Text:
    text = Text()
    if marks is None:
        return text
    if marks.age is not None:
        if marks.age.aging:
            text.append(f"{AGING_MARK} aging: neither written nor verified for {int(marks.age.age_days)} days. ", "yellow")
            text.append("Ctrl+T if it is still true.\n", "dim")
        elif marks.age.verified is not None:
            text.append(f"verified {marks.age.verified.isoformat()}\n", "dim")
    for check in marks.checks:
        symbol, style = EVIDENCE_MARK[check.state]
        text.append(f"{symbol} ", style)
        text.append(fmt.sanitize(check.sentence()) + "\n", style if check.state in (ev.CHANGED, ev.GONE) else "")
    for finding in marks.findings:
        if finding.kind not in _SHOWN_BY_MARKS:
            text.append(f"▲ {finding.kind}: ", "bold red" if finding.kind == "secret" else "yellow")
            text.append(fmt.sanitize(finding.detail) + "\n")
    return text


def diff_preview(change: Any) -> Text:
    text = Text()
    text.append(fmt.sanitize(change.summary), "bold")
    text.append(f"  proposed {change.created[:16].replace('T', ' ')} UTC\n", "dim")
    accepting = "accepts it through the store (checked again)"
    if _is_conflict(change):
        text.append(fmt.sanitize(f"Not applied: {change.note}") + "\n", "yellow")
        accepting = "puts it back in review against the file as it is now"
    text.append(f"Ctrl+Y {accepting}; Ctrl+X rejects it and the agent hears so.\n\n", "dim")
    for line in change.diff().splitlines():
        style = "green" if line.startswith("+") and not line.startswith("+++") else (
            "red" if line.startswith("-") and not line.startswith("---") else ("dim" if line.startswith(("@@", "---", "+++")) else "")
        )
        text.append(fmt.sanitize(line) + "\n", style)
    return text


def subtitle_counts(trust: Trust | None, memories: list) -> str:
    """`≠ 1 changed · × 1 gone · ◷ 2 aging · ● 1 waiting` for the pane's border."""
    if trust is None:
        return ""
    worst = [trust.marks[m.path].worst for m in memories if m.path in trust.marks]
    parts = []
    for state, word, style in ((ev.CHANGED, "changed", "$text-warning"), (ev.GONE, "gone", "$text-error")):
        count = worst.count(state)
        if count:
            parts.append(f"[{style}]{EVIDENCE_MARK[state][0]} {count} {word}[/]")
    ages = [trust.marks[m.path].age for m in memories if m.path in trust.marks]
    aging = sum(1 for age in ages if age is not None and age.aging)
    if aging:
        parts.append(f"[$text-warning]{AGING_MARK} {aging} aging[/]")
    if trust.waiting:
        parts.append(f"[$accent]● {len(trust.waiting)} waiting[/]")
    return " · ".join(parts)
