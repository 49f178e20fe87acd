"""Snapshots of the main states (pytest-textual-snapshot; `--snapshot-update` after a deliberate change).

The turn is replayed from fixed events through the app's own event handler, so durations,
tokens and cost are the same on every run.
"""

from __future__ import annotations

import time

import pytest

from agent.events import (
    ShowOnScreen,
    TextDelta,
    ToolFinished,
    ToolStarted,
    TurnFinished,
    TurnStarted,
    Usage,
)
from agent.settings.config import AgentConfig
from tests.tui.conftest import wait_for, write_memory
from tui.app import DevAgentApp
from tui.widgets import prompt as prompt_module

LOG = """$ dotnet build Shop.sln
src/Orders/ReviewOrchestrator.cs(111,34): error CS1061: 'ChangedFile' does not contain a definition for 'Patch'
src/Orders/ChangedFile.cs(7,22): warning CS1591: Missing XML comment for publicly visible type or member

Build FAILED.
    1 Warning(s)
    1 Error(s)
"""

TURN = [
    TurnStarted(1, "why is the build red?"),
    TextDelta(1, "Let me build it."),
    ToolStarted(1, "t1", "git_status", "git status"),
    ToolFinished(1, "t1", "git_status", 0.031, False, "main, 2 modified", "## main"),
    ToolStarted(1, "t2", "build", "whole repository"),
    ToolFinished(1, "t2", "build", 4.2, False, "1 error, 1 warning", LOG, "failed"),
    ToolStarted(1, "t3", "show_on_screen", "Fix"),
    ShowOnScreen(1, "Fix for CS1061", "## The fix\n\n```diff\n-var text = file.Patch;\n+var text = file.Diff;\n```\n", "markdown"),
    ToolFinished(1, "t3", "show_on_screen", 0.001, False, "Fix on screen", None),
    TextDelta(1, "One error: **CS1061** at `ReviewOrchestrator.cs:111` still reads `file.Patch`. "),
    TextDelta(1, "The fix is on screen."),
    TurnFinished(1, Usage(input_tokens=9800, output_tokens=212, cache_read_tokens=8100, cost_usd=0.0123), "", False),
]


@pytest.fixture
def snapshot_app(repo, store, no_key, monkeypatch):
    # the prompt's cursor blinks again on focus, which may come after settle(): it stops at once
    monkeypatch.setattr(prompt_module, "BLINK_SECONDS", 0.01)
    write_memory(store, "feedback_cs1591.md", "CS1591 is noise", "missing XML doc warnings are ignored", "Never report CS1591.", "feedback", age_days=3)
    write_memory(store, "project_rename.md", "Patch becomes Diff", "half-done rename", "See `src/Gone.cs:12`.", "project", age_days=1)
    write_memory(store, "user_voice.md", "Short spoken answers", "one or two sentences aloud", "Keep it short.", "user", age_days=9)

    def make() -> DevAgentApp:
        return DevAgentApp(repo, AgentConfig(), store=store, probe_voice=False)

    return make


async def steady(pilot, timeout: float = 30) -> None:
    """Until two frames 0.2 s apart are the same: a fixed pause is too short on a loaded
    machine for what follows a key (a scroll after refresh, a dialog's focus)."""
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        await pilot.pause(0.2)
        frame = pilot.app.export_screenshot()
        if frame == last:
            return
        last = frame


async def settle(pilot) -> None:
    app = pilot.app
    # a blinking cursor would make the picture depend on the moment it is taken
    app.query_one("#prompt").cursor_blink = False
    # the evidence marks follow the listing in a second step: wait for them too
    await wait_for(pilot, lambda: len(app.memory_pane.names) == 3 and app.status.info.branch
                   and app.memory_pane.listing.trust is not None, 30, "the panes")
    # focus restarts the blink, and its stop is a timer: on a loaded machine it can come
    # after a fixed pause, and the picture would catch the cursor in its dark phase
    prompt = app.query_one("#prompt")
    await wait_for(pilot, lambda: prompt.has_focus and not prompt.cursor_blink, 30, "the cursor to stop blinking")
    await steady(pilot)


async def replay(pilot) -> None:
    app = pilot.app
    await app.conversation.add_user(TURN[0].text)
    token = app.turns.begin()
    for event in TURN:
        await app.main_screen.show(token, event)
    await steady(pilot)


def test_first_run_without_key_80x24(snap_compare, snapshot_app):
    assert snap_compare(snapshot_app(), terminal_size=(80, 24), run_before=settle)


def test_turn_with_tools_160x48(snap_compare, snapshot_app, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-snapshot")  # no setup notice; nothing is sent
    async def run_before(pilot):
        await settle(pilot)
        await replay(pilot)

    assert snap_compare(snapshot_app(), terminal_size=(160, 48), run_before=run_before)


def test_build_log_on_screen_pane_120x40(snap_compare, snapshot_app, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-snapshot")
    async def run_before(pilot):
        await settle(pilot)
        await replay(pilot)
        await pilot.press("ctrl+l")
        await steady(pilot)

    assert snap_compare(snapshot_app(), terminal_size=(120, 40), run_before=run_before)


def test_memory_editor_120x40(snap_compare, snapshot_app):
    async def run_before(pilot):
        await settle(pilot)
        pilot.app.query_one("#memory-list").focus()
        await pilot.press("ctrl+e")
        await wait_for(pilot, lambda: pilot.app.screen.query("#text") and pilot.app.screen.query_one("#text").has_focus, 5, "the editor")
        pilot.app.screen.query_one("#text").cursor_blink = False
        await steady(pilot)

    assert snap_compare(snapshot_app(), terminal_size=(120, 40), run_before=run_before)


def test_delete_confirm_120x40(snap_compare, snapshot_app):
    async def run_before(pilot):
        await settle(pilot)
        pilot.app.query_one("#memory-list").focus()
        await pilot.press("down", "delete")
        await steady(pilot)

    assert snap_compare(snapshot_app(), terminal_size=(120, 40), run_before=run_before)


def test_help_100x40(snap_compare, snapshot_app):
    async def run_before(pilot):
        await settle(pilot)
        await pilot.press("f1")
        await steady(pilot)

    assert snap_compare(snapshot_app(), terminal_size=(100, 40), run_before=run_before)
