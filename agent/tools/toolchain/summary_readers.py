"""Which reader a test run's summary comes from: the runner's report when it wrote one,
what it printed only where it could not write one."""

from __future__ import annotations

from agent.tools.toolchain import console_summaries, report_files
from agent.tools.toolchain.summary import Report, TestSummary

READERS = ("dotnet", "pytest", "cargo", "go", "node", "jest", "vitest", "mocha", "ava", "node --test", "unittest")


def read(kind: str | None, log: str, report: Report | None = None) -> TestSummary | None:
    """The summary of a test run: from the runner's report when it wrote one, else from
    what it printed. None when no reader applies to `kind`."""
    if not kind or kind not in READERS:
        return None
    if report is not None:
        summary = report_files.read(report)
        if summary is not None:
            return summary
    return console_summaries.read_console(kind, log)
