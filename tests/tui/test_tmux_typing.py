"""Typing into the real binary in tmux, at machine speed and at a person's pace: no letter is
a command on the memory pane, and each Enter ends one question however fast keys come."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.double.server import reply, text
from tests.system_packages import needs
from tests.tui.scenario import DoubleProcess, build_world
from tests.tui.test_tmux import (
    Tmux,
    devagent_in_tmux,
    focus_memory_pane,
    last_user_texts,
    quit_app,
    wait_until,
)

pytestmark = [pytest.mark.e2e, needs("tmux")]

# each begins with a letter that once moved (m), verified (v), edited (e), deleted (d),
# undid (u), accepted (a) or rejected (r) the memory selected in the pane
SENTENCES = ("maybe later", "very nice", "explain the build", "do it", "undo that", "accept it", "run it")
PACE_SECONDS = 0.12  # between keys, as a person types


def script() -> dict:
    # slow enough that the questions typed behind it are queued
    rules = [{"contains": "slowly", "reply": reply(text("drip " * 200), chunk=5, delay=0.02)}]
    return {"replies": [], "default": reply(text("Got it.")), "rules": rules}


def memory_state(data: Path) -> dict[str, str]:
    """Every memory of both folders (the repository's and the user's), by path."""
    return {str(p.relative_to(data)): p.read_text() for p in sorted(data.rglob("*.md")) if "memor" in str(p.relative_to(data))}


def type_slowly(tmux: Tmux, words: str) -> None:
    for char in words:
        tmux.run("send-keys", "-t", "app", "-l", char)
        time.sleep(PACE_SECONDS)


def burst(tmux: Tmux, tmp_path: Path, keys: str) -> None:
    """Keys in one write, as a fast typist's terminal or a macro sends them (newlines as
    Enter; not a bracketed paste)."""
    buffer = tmp_path / "burst.txt"
    buffer.write_text(keys)
    tmux.run("load-buffer", str(buffer))
    tmux.run("paste-buffer", "-t", "app")


def test_sentences_typed_on_the_memory_pane_reach_the_prompt_whole(tmp_path):
    world = build_world(tmp_path / "world")
    data = Path(world.env["XDG_DATA_HOME"])
    before = memory_state(data)
    assert len(before) >= 4
    with DoubleProcess(script(), tmp_path / "double") as double, \
            devagent_in_tmux(tmp_path, world, double, (100, 30), "--no-voice") as tmux:
        tmux.wait_for("Ask about this repository", "Memory · 4")
        for sentence in SENTENCES:
            focus_memory_pane(tmux)
            tmux.run("send-keys", "-t", "app", "-l", sentence)
            tmux.wait_for(f"▊ {sentence}", timeout=10)
            tmux.run("send-keys", "-t", "app", "C-u")
        for sentence in SENTENCES[:3]:
            focus_memory_pane(tmux)
            type_slowly(tmux, sentence)
            tmux.wait_for(f"▊ {sentence}", timeout=10)
            tmux.run("send-keys", "-t", "app", "C-u")
        assert "Delete memory" not in tmux.screen() and "Edit memory" not in tmux.screen()
        assert memory_state(data) == before
        focus_memory_pane(tmux)
        type_slowly(tmux, "maybe later")
        tmux.run("send-keys", "-t", "app", "Enter")
        wait_until(lambda: bool(last_user_texts(double)), "the question", 60)
        assert last_user_texts(double)[-1].endswith("maybe later")
        assert memory_state(data) == before
        quit_app(tmux)


def test_each_enter_ends_one_question_however_fast_the_keys_come(tmp_path):
    world = build_world(tmp_path / "world")
    with DoubleProcess(script(), tmp_path / "double") as double, \
            devagent_in_tmux(tmp_path, world, double, (100, 30), "--no-voice") as tmux:
        tmux.wait_for("Ask about this repository")
        # a turn runs, and three questions come in one write behind it
        burst(tmux, tmp_path, "go slowly\nzeta2 eta2 theta2\nzeta3 eta3 theta3\niota4\n")
        wait_until(lambda: len(last_user_texts(double)) >= 4, "the four questions", 90)
        # and at a person's pace, typed while a turn runs
        tmux.wait_for("Got it.", timeout=60)
        wait_until(lambda: "working" not in tmux.screen(), "the turns to end", 60)
        burst(tmux, tmp_path, "go slowly again\n")
        type_slowly(tmux, "kappa5 lambda5")
        tmux.run("send-keys", "-t", "app", "Enter")
        type_slowly(tmux, "mu6")
        tmux.run("send-keys", "-t", "app", "Enter")
        wait_until(lambda: len(last_user_texts(double)) >= 7, "the questions typed by hand", 90)
        expected = ["go slowly", "zeta2 eta2 theta2", "zeta3 eta3 theta3", "iota4", "go slowly again", "kappa5 lambda5", "mu6"]
        texts = last_user_texts(double)
        assert len(texts) == len(expected), texts
        for said, question in zip(texts, expected):
            assert said == question or said.endswith(" " + question), (question, texts)
        quit_app(tmux)
