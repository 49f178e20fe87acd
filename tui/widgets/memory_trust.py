"""What the memory pane shows about trusting a memory, kept out of the pane itself.

Per memory: the evidence behind it (a mark for the worst of its citations), whether it is
aging, and the findings of `devagent memory check`; and the agent's changes waiting for
review, with their diffs. Loading reads the repository and runs git, so it runs on a
worker thread; the rest turns the result into rich Text.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.text import Text

from memory import evidence_states as ev
from tui import format as fmt
from tui.widgets.memory_row import MemoryRow

if TYPE_CHECKING:
    # memory.check brings the secret scanner, whose patterns take a fifth of a second to
    # compile: the pane's first frame does without it, its first listing loads it. The
    # evidence and aging checks come with the listing too.
    from memory.check import Finding
    from memory.evidence import CitationCheck
    from memory.freshness import Freshness

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


@dataclass
class MemoryMarks:
    checks: list[CitationCheck] = field(default_factory=list)  # worst first
    findings: list[Finding] = field(default_factory=list)
    age: Freshness | None = None

    @property
    def worst(self) -> str | None:
        return self.checks[0].state if self.checks else None


@dataclass
class Trust:
    marks: dict[str, MemoryMarks] = field(default_factory=dict)
    folder_findings: list[Finding] = field(default_factory=list)  # about a whole folder (a cap)
    pending: list = field(default_factory=list)  # memory.pending.Change
    conflicts: list = field(default_factory=list)  # held changes that met a file changed since

    @property
    def waiting(self) -> list:
        """What waits for the user's decision: held changes, then those that met a conflict."""
        return self.pending + self.conflicts


def roots_of(store: Any) -> list[Any]:
    roots = getattr(store, "roots", None)
    return list(roots()) if callable(roots) else [store]


def load_trust(store: Any, repo: Path | None, *, now: float | None = None, aging_days: int | None = None) -> Trust:
    """Everything the marks need; raises only what the caller turns into a sentence.
    `aging_days`: None for memory.freshness's default."""
    from memory.check import by_memory, check_store
    from memory.freshness import DEFAULT_AGING_DAYS, freshness
    from memory.pending import PendingChanges

    if aging_days is None:
        aging_days = DEFAULT_AGING_DAYS
    now = time.time() if now is None else now
    trust = Trust()
    for root in roots_of(store):
        cites_code = repo is not None and getattr(root, "repo", None) is not None
        checks = root.evidence(repo) if cites_code else {}
        findings = check_store(root, repo if cites_code else None, now=now, aging_days=aging_days, evidence=checks)
        grouped = by_memory(findings)
        for info in root.memories():
            try:
                text = Path(info.file).read_bytes().decode("utf-8", errors="replace")
            except OSError:
                text = ""
            trust.marks[info.path] = MemoryMarks(checks.get(info.path, []), grouped.pop(info.path, []), freshness(text, info.modified, now, aging_days))
        for leftover in grouped.values():
            trust.folder_findings += leftover
    pending = PendingChanges(store)
    trust.pending = pending.list()
    trust.conflicts = pending.conflicts()
    return trust


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
