"""How a tool run ended: the mark on its line in the app, and the word in its result.

Kept apart from `agent.events` (a dozen dataclasses, slow to build) so the app can draw
tool lines in its first frame without importing the events.
"""

from __future__ import annotations

from enum import StrEnum


class ToolOutcome(StrEnum):
    """How a tool run ended, for the mark on its line: a build that ran and failed is a
    successful tool call (is_error is False) but not a success."""

    OK = "ok"
    FAILED = "failed"  # it ran and reported failures: failed tests, a failed build
    ERROR = "error"  # it could not do its work: test errors, a timeout, a bad call
    EMPTY = "empty"  # nothing ran: no tests collected, a filter that matched none
    CANCELLED = "cancelled"


def outcome_of(word: str, is_error: bool) -> ToolOutcome:
    """The outcome a tool said, or, when it said none (or a word this version does not
    know), the one its is_error implies."""
    try:
        return ToolOutcome(word)
    except ValueError:
        return ToolOutcome.ERROR if is_error else ToolOutcome.OK
