"""How a finished tool run ended, as every front end shows it: the app's tool line and
`devagent ask`'s stderr read the same table, so a run cannot pass for a success in one
and a failure in the other. Free of Textual: `ask` runs without the app."""

from __future__ import annotations

from typing import NamedTuple

from agent.tool_outcome import ToolOutcome


class OutcomeMark(NamedTuple):
    mark: str
    word: str  # for plain text, where the colour is lost
    style: str  # the mark's style
    colour: str  # the result's colour


OUTCOME_MARKS = {
    ToolOutcome.OK: OutcomeMark("✓", "ok", "bold green", ""),
    # × is in every common terminal font, unlike ✗
    ToolOutcome.FAILED: OutcomeMark("×", "failed", "bold red", "red"),
    ToolOutcome.ERROR: OutcomeMark("!", "error", "bold magenta", "magenta"),
    ToolOutcome.EMPTY: OutcomeMark("○", "nothing ran", "bold yellow", "yellow"),
    ToolOutcome.CANCELLED: OutcomeMark("■", "cancelled", "dim", "dim"),
}
