"""The model's notes between tool calls, in the conversation and in the voice."""

from __future__ import annotations

import threading

from agent.voice.status import VoiceStatus
from tests.double.server import reply, text, thinking, tool_use
from tests.tui.conftest import wait_for
from tui.widgets.conversation.lines import ProgressNote


async def test_a_progress_note_is_shown_dimmed_and_one_sentence_of_it_spoken(make_app, claude_double):
    said: list = []

    class Listening:
        loaded = threading.Event()

        def attach(self, app):
            app.set_voice_state(VoiceStatus("ready"))

        def enter(self):
            return False

        def turn_started(self):
            pass

        def reply_delta(self, text):
            said.append(("reply", text))

        def progress(self, sentence):
            said.append(("progress", sentence))

        def reply_finished(self, cancelled):
            said.append(("finished", cancelled))

        def close(self):
            pass

    note = "Looking at the git status first. Then the \x1b[2Jlog."
    claude_double.add(reply(thinking(note, "sig-n"), tool_use("git_status", {}, id="t1")), text("Clean."))
    app = make_app(model="claude-sonnet-5-5", thinking="adaptive")
    app.voice_factory = Listening
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.voice is not None, 10, "the voice")
        await app.submit_turn("what changed?")
        await wait_for(pilot, lambda: ("finished", False) in said, 20, "the reply")
        notes = list(app.query(ProgressNote))
        assert [n.text for n in notes] == [note]
        shown = str(notes[0].render())
        assert shown.startswith("… Looking at the git status first.") and "\x1b" not in shown
        assert notes[0].styles.text_style.italic
    assert ("progress", "Looking at the git status first.") in said
    # the note is no part of the spoken reply
    assert "".join(t for k, t in said if k == "reply") == "Clean."
