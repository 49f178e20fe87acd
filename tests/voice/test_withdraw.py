"""A spoken question withdrawn because the speaker went on, through the real app: the real
recorder hears Piper speech from a WAV source, real Whisper transcribes it, the turns go
over the real SDK to the Claude double, and a real speaker (playing into a buffer) is fed
the replies."""

from __future__ import annotations

import pytest

from agent.voice.controller import VoiceController
from agent.voice.push_to_talk import PushToTalk
from agent.voice.recorder import Recorder, WavSource
from agent.voice.stack import VoiceStack
from agent.voice.tts import Speaker
from tests.double.server import reply
from tests.tui.conftest import wait_for
from tests.voice.utterances import spoken_parts
from tests.voice.words import words

# how long one wait may take: the real Whisper model loads within one
WAIT = 30.0

FIRST, THEN = "Run the tests.", "Then show me what failed."
WITHDRAWN_REPLY = "Running the whole test suite now for you. " * 6
KEPT_REPLY = "Two tests failed in the orders module."


@pytest.fixture
def anyio_backend():
    return "asyncio"


class HeardSpeaker(Speaker):
    """The real speaker, keeping what it was given to say."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fed: list[str] = []

    def feed(self, delta: str) -> None:
        self.fed.append(delta)
        super().feed(delta)


@pytest.mark.anyio
async def test_a_withdrawn_question_leaves_the_conversation_the_history_and_the_voice(
        tmp_path, voice, transcriber, claude_double):
    from agent.settings.config import AgentConfig
    from agent.voice.tts import open_buffer_stream
    from memory.store import MemoryStore
    from tui.app import DevAgentApp
    from tui.widgets.conversation.lines import UserTurn
    from tui.widgets.conversation.reply import Reply

    # the first reply streams slowly: the withdrawn turn is still running when the speaker
    # goes on, and some of its words have reached the app by then
    claude_double.responder = lambda request: (
        reply(KEPT_REPLY) if "failed" in words(request.last_user_text())
        else reply(WITHDRAWN_REPLY, chunk=4, delay=0.05))
    repo = tmp_path / "repo"
    repo.mkdir()
    speech = spoken_parts(voice, [FIRST, THEN], 0.6)
    speaker = HeardSpeaker(voice, open_stream=open_buffer_stream).load()
    recorders: list[Recorder] = []

    def factory(repo_path, sink):
        recorder = Recorder(WavSource(samples=speech, lead_silence=0.3, noise=0.002))
        recorders.append(recorder)
        return VoiceStack(PushToTalk(recorder, transcriber, sink), speaker, None)

    controller = VoiceController(stack_factory=factory)
    app = DevAgentApp(repo, AgentConfig(thinking="off"), store=MemoryStore.for_repository(repo), voice=controller)
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await wait_for(pilot, lambda: controller.loaded.is_set() and app.turns.ready.is_set(),
                           timeout=WAIT, what="voice and session to load")
            await pilot.press("f2")
            # the tentative question is asked first...
            await wait_for(pilot, lambda: bool(app.query(UserTurn)), timeout=WAIT, what="the tentative question")
            assert words(str(app.query_one(UserTurn).render())) == words(FIRST)
            # ...then the speaker goes on, and the whole question replaces it
            await wait_for(pilot, lambda: KEPT_REPLY in "".join(r.source for r in app.query(Reply)) and not app.running,
                           timeout=40, what="the whole question's turn")
            await wait_for(pilot, lambda: controller.state is not None and controller.state.value == "idle",
                           timeout=WAIT, what="the recording to end")
            await pilot.pause(0.3)
            shown = [words(str(turn.render())) for turn in app.query(UserTurn)]
            assert len(shown) == 1 and "failed" in shown[0] and "tests" in shown[0], shown
            replies = "\n".join(r.source for r in app.query(Reply))
            assert "Running the whole" not in replies and KEPT_REPLY in replies
            # the request for the whole question holds it alone: the withdrawn one is gone
            first, last = claude_double.messages_requests()
            # the withdrawn turn had begun: its question went out alone
            assert words(first.last_user_text())[-3:] == words(FIRST)
            users = [m for m in last.messages if m["role"] == "user"]
            assert len(users) == 1, last.messages
            assert "failed" in words(last.last_user_text())
            assert not any("Running the whole" in str(m["content"]) for m in last.messages)
            # nothing of the withdrawn turn was given to the voice; the kept reply was
            fed = "".join(speaker.fed)
            assert "Running" not in fed and KEPT_REPLY in fed
    finally:
        speaker.close()
