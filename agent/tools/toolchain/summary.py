"""Test run summaries: how many passed, failed and errored, and which, with the first line
of each reason. What every reader fills in (report_files, trx_report, console_summaries);
summary_readers picks the reader."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from agent.events import ToolOutcome

MAX_FAILURES = 15
MAX_DETAIL_CHARS = 300
MAX_REPORT_BYTES = 50_000_000  # a report larger than this is not read: the console is
# "AssertionError: 3 != 2", "ModuleNotFoundError: No module named 'x'", "TypeError: ..."
EXCEPTION_LINE = re.compile(r"^\s*(?:E\s+)?(?P<why>(?:[A-Za-z_]\w*\.)*(?:[A-Z]\w*)?(?:Error|Exception|Failure|Exit|Interrupt|Warning)\b.*)$")


@dataclass
class TestSummary:
    passed: int = 0
    failed: int = 0
    skipped: int = 0
    errors: int = 0
    seen: bool = False  # whether a summary line was found at all
    failures: list[str] = field(default_factory=list)  # "name: first line of the reason"
    errored: list[str] = field(default_factory=list)  # tests or files that could not run, same shape
    notes: list[str] = field(default_factory=list)
    source: str = "output"  # where the counts were read: "output" or the report's name

    def counts(self) -> str:
        parts = [f"{self.failed} failed", f"{self.passed} passed"]
        if self.errors:
            parts.insert(1, f"{self.errors} error{'s' if self.errors != 1 else ''}")
        if self.skipped:
            parts.append(f"{self.skipped} skipped")
        return ", ".join(parts)

    def outcome(self, exit_failed: bool) -> ToolOutcome:
        """How the run ended: errors outrank failures (part of the suite never ran), and a
        run in which no test passed or failed ran nothing, whatever its exit code."""
        if self.errors:
            return ToolOutcome.ERROR
        if self.failed:
            return ToolOutcome.FAILED
        if self.passed == 0:
            return ToolOutcome.EMPTY
        return ToolOutcome.FAILED if exit_failed else ToolOutcome.OK

    def add_failure(self, name: str, detail: str = "", *, error: bool = False) -> None:
        detail = " ".join(detail.split())
        if len(detail) > MAX_DETAIL_CHARS:
            detail = detail[: MAX_DETAIL_CHARS - 3] + "..."
        entries = self.errored if error else self.failures
        entry = f"{name}: {detail}" if detail else name
        for i, known in enumerate(entries):
            if known == name:
                # Runners often name a failure before they print its reason.
                if detail:
                    entries[i] = entry
                return
            if known.startswith(name + ": "):
                return
        entries.append(entry)


@dataclass(frozen=True)
class Report:
    """A machine-readable report a runner was asked to write: its format and its path."""

    format: str  # "junit" | "jest-json" | "go-json" | "trx"
    path: str  # for "trx" the folder: dotnet writes one file per test project
    root: str | None = None  # the repository, so that paths in the report read relative to it
