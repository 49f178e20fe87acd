"""Each closed set of words is written once, and every place that offers it offers all of it."""

from __future__ import annotations

from agent.eval.report import MODE_LABELS
from agent.settings.choices import (
    EFFORTS,
    MEMORY_MODES,
    MEMORY_TOOL_MODES,
    REPLAY_MODES,
    SCREEN_FORMATS,
    as_choice,
)
from agent.settings.config_file import checked
from agent.tools.screen import ShowOnScreenTool
from tui.cli import app_parser


def _choices(option: str) -> tuple[str, ...]:
    action = next(a for a in app_parser()._actions if option in a.option_strings)
    return tuple(action.choices or ())


def test_the_command_line_offers_every_mode_and_effort():
    assert _choices("--memory") == MEMORY_MODES
    assert _choices("--effort") == EFFORTS


def test_the_config_file_takes_every_mode_and_effort():
    for mode in MEMORY_MODES:
        assert checked({"memory_mode": mode}, "config.toml") == ({"memory_mode": mode}, [])
    for effort in EFFORTS:
        assert checked({"effort": effort}, "config.toml") == ({"effort": effort}, [])


def test_the_report_names_every_mode():
    assert tuple(MODE_LABELS) == MEMORY_MODES


def test_show_on_screen_offers_every_format():
    schema = ShowOnScreenTool().definition()["input_schema"]["properties"]["format"]
    assert tuple(schema["enum"]) == SCREEN_FORMATS


def test_subsets_and_narrowing():
    assert set(MEMORY_TOOL_MODES) | set(REPLAY_MODES) < set(MEMORY_MODES)
    assert as_choice("window", MEMORY_MODES) == "window"
    assert as_choice("Window", MEMORY_MODES) is None
    assert as_choice(None, EFFORTS) is None
