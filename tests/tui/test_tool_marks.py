"""The mark and colour of a finished tool line say how the run ended."""

from __future__ import annotations

import pytest

from agent.events import ToolFinished
from tui.widgets.conversation.lines import ToolLine


def finished_line(event: ToolFinished) -> ToolLine:
    line = ToolLine(event.tool_id, event.name, "all tests")
    line.finish(event.duration, event.is_error, event.summary, event.log, event.outcome)
    return line


def mark_and_colours(line: ToolLine) -> tuple[str, str, str]:
    rendered = line.line()
    mark = rendered.plain[0]
    mark_style = str(next(s.style for s in rendered.spans if s.start == 0))
    arrow = rendered.plain.index("→")
    result_style = " ".join(str(s.style) for s in rendered.spans if s.start == arrow + 2)
    return mark, mark_style, result_style


@pytest.mark.parametrize(
    "event, mark, colour",
    [
        (ToolFinished(1, "t", "build", 3.0, False, "failed (exit code 101)", "log", "failed"), "×", "red"),
        (ToolFinished(1, "t", "test", 3.0, False, "0 failed, 5 errors, 0 passed", "log", "error"), "!", "magenta"),
        (ToolFinished(1, "t", "test", 3.0, False, "31 failed, 297 passed", "log", "failed"), "×", "red"),
        (ToolFinished(1, "t", "test", 3.0, False, "0 failed, 0 passed", "log", "empty"), "○", "yellow"),
        (ToolFinished(1, "t", "test", 3.0, True, "cancelled", "log", "cancelled"), "■", "dim"),
        (ToolFinished(1, "t", "test", 3.0, False, "0 failed, 5 passed", "log", "ok"), "✓", "green"),
        (ToolFinished(1, "t", "read_file", 0.1, True, "not found"), "!", "magenta"),
    ],
)
def test_each_outcome_has_its_own_mark_and_colour(event, mark, colour):
    shown, mark_style, result_style = mark_and_colours(finished_line(event))
    assert shown == mark
    assert colour in mark_style
    if event.outcome != "ok":
        assert colour in result_style  # the result after the arrow carries the colour too


def test_a_build_that_ran_and_failed_gets_no_green_check():
    # is_error is False: the build ran, its failure is the answer; the line must not say ✓.
    line = finished_line(ToolFinished(1, "t", "build", 3.0, False, "2 errors, 0 warnings", "log", "failed"))
    assert not line.line().plain.startswith("✓")
    assert line.has_class("-outcome-failed")
