"""Toasts at 80x24 in the real `devagent` in tmux: F7 and F8 pressed past either end of the
side pane's widths, then Ctrl+L and F3, never show one sentence twice at once, and once
their time is up nothing of them is left on the screen."""

from __future__ import annotations

import time

import pytest
from textual.app import App

from tests.system_packages import needs
from tests.tui.scenario import DoubleProcess, build_world, double_script
from tests.tui.test_tmux import devagent_in_tmux, quit_app

pytestmark = [pytest.mark.e2e, needs("tmux")]

# what the toasts of these keys say (tui/widgets/panes.py, tui/app.py), and the toast's edge
TOAST_WORDS = ("Width", "third of the width", "keeps its room", "lets it grow", "as narrow as it goes",
               "as wide as it goes", "No tool has written a log")
TOAST_EDGE = "▌"


def keys(tmux, key: str, times: int = 1) -> None:
    for _ in range(times):
        tmux.run("send-keys", "-t", "app", key)
        time.sleep(0.15)  # a person's pace: each toast is on screen before the next key


def test_toasts_at_80x24_never_stack_and_leave_nothing_behind(tmp_path):
    world = build_world(tmp_path / "world")
    with DoubleProcess(double_script(), tmp_path / "double") as double, \
            devagent_in_tmux(tmp_path, world, double, (80, 24), "--no-voice") as tmux:
        before = tmux.wait_for("Ask about this repository", "Memory · 4", "CS1591")
        time.sleep(0.5)  # the panes' widths settled, as a person's first key would find them
        assert TOAST_EDGE not in before and not any(word in before for word in TOAST_WORDS), before
        keys(tmux, "F8", 4)  # wider, which 80 columns do not allow
        keys(tmux, "F7", 8)  # narrower, past the narrowest
        keys(tmux, "F8", 3)  # the first toast again, while it still shows
        keys(tmux, "C-l")  # no log yet: a toast of its own
        keys(tmux, "F3")
        during = tmux.wait_for("No tool has written a log")
        for sentence in ("third of the width", "as narrow as it goes", "No tool has written a log"):
            assert during.count(sentence) <= 1, during
        # the prompt and the status line stay readable under the toasts
        assert "Ask about this repository" in during, during
        time.sleep(App.NOTIFICATION_TIMEOUT + 1.5)
        after = tmux.screen()
        assert "Nothing on screen yet" in after  # F3's screen pane, drawn again where toasts were
        assert TOAST_EDGE not in after and not any(word in after for word in TOAST_WORDS), after
        keys(tmux, "F3")
        after = tmux.wait_for("Type a question and press Enter")
        assert TOAST_EDGE not in after and not any(word in after for word in TOAST_WORDS), after
        quit_app(tmux)
