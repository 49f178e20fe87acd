"""The system prompt and the memory rules, as text files that are easy to edit.

They are the stable start of every request (after the tools), so nothing that changes from
day to day belongs in them: the date goes into the first user message instead.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

HERE = Path(__file__).parent


@cache
def system_prompt() -> str:
    return (HERE / "system.md").read_text(encoding="utf-8").strip()


@cache
def memory_rules() -> str:
    return (HERE / "memory_rules.md").read_text(encoding="utf-8").strip()


@cache
def summary_request() -> str:
    return (HERE / "summary_request.md").read_text(encoding="utf-8").strip()


# What a history restarted from devagent's own summary begins with.
SUMMARY_LEAD = "(The conversation so far was summarised when it grew too long; the summary follows.)"


@cache
def compaction_request() -> str:
    return (HERE / "compaction_request.md").read_text(encoding="utf-8").strip()


@cache
def tidy_request() -> str:
    return (HERE / "tidy_request.md").read_text(encoding="utf-8").strip()
