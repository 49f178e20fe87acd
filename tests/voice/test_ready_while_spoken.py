"""While a question is spoken, what its turn needs gets ready: the voice warms and the
connection to the API opens, so the reply's first words do not wait for either.

The real app with its voice controller: the recorder hears Piper speech from a WAV source,
real Whisper transcribes it, the turn goes over the real SDK to the Claude double, and a
real speaker plays into a buffer."""

from __future__ import annotations

import time

import pytest

from agent.voice.controller import VoiceController
from agent.voice.push_to_talk import PttState, PushToTalk
from agent.voice.recorder import Recorder, WavSource
from agent.voice.stack import VoiceStack
from agent.voice.tts import Speaker
from tests.double.server import reply
from tests.tui.conftest import wait_for

WAIT = 30.0
QUESTION = "Show me the latest commit on the main branch."


@pytest.fixture
def anyio_backend():
    return "asyncio"


class WarmedSpeaker(Speaker):
    """The real speaker, noting when it was asked to warm."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.warmed: list[float] = []

    def warm(self) -> None:
        self.warmed.append(time.monotonic())
        super().warm()


def model_lists(double) -> list:
    return [r for r in double.requests if r.method == "GET" and r.path.startswith("/v1/models")]


@pytest.mark.anyio
async def test_the_connection_opens_and_the_voice_warms_while_the_question_is_spoken(
        tmp_path, voice, transcriber, speech, claude_double):
    from agent.settings.config import AgentConfig
    from agent.voice.tts import open_buffer_stream
    from memory.store import MemoryStore
    from tui.app import DevAgentApp

    claude_double.add(reply("The newest commit prunes old checkpoints."))
    repo = tmp_path / "repo"
    repo.mkdir()
    speaker = WarmedSpeaker(voice, open_stream=open_buffer_stream).load()
    transcripts: list[float] = []

    def factory(repo_path, sink):
        def noted(event):
            if type(event).__name__ == "TranscriptReady":
                transcripts.append(time.time())  # the clock the double records on
            sink(event)

        # a second of room noise first: the user has only begun when the recording starts
        recorder = Recorder(WavSource(samples=speech(QUESTION), lead_silence=1.0, noise=0.002))
        return VoiceStack(PushToTalk(recorder, transcriber, noted), speaker, None)

    controller = VoiceController(stack_factory=factory)
    app = DevAgentApp(repo, AgentConfig(thinking="off"), store=MemoryStore.for_repository(repo), voice=controller)
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await wait_for(pilot, lambda: controller.loaded.is_set() and app.turns.ready.is_set(),
                           timeout=WAIT, what="voice and session to load")
            speaker.warmed.clear()
            await pilot.press("f2")
            await wait_for(pilot, lambda: bool(model_lists(claude_double)), timeout=WAIT,
                           what="the connection to open")
            assert controller.state is PttState.RECORDING and not claude_double.messages_requests()
            assert speaker.warmed and not transcripts  # warmed as the recording began
            await wait_for(pilot, lambda: bool(claude_double.messages_requests()) and not app.running,
                           timeout=WAIT, what="the spoken question's turn")
            opened, = model_lists(claude_double)
            asked, = claude_double.messages_requests()
            assert opened.time < transcripts[0]
            # the turn's request went out on the connection opened for it
            assert asked.peer == opened.peer
    finally:
        speaker.close()


def test_a_connection_opened_ahead_outlasts_a_long_question(tmp_path, claude_double):
    """Opened as the recording starts, the connection must still be there when the turn
    goes out, after seconds of speech and their transcription."""
    from agent.loop.session import Session
    from agent.settings.config import AgentConfig

    claude_double.add(reply("Done."))
    repo = tmp_path / "repo"
    repo.mkdir()
    session = Session(repo, AgentConfig(thinking="off"), save_transcript=False)
    session.prepare_turn()
    time.sleep(6.0)  # longer than the 5 s httpx keeps an idle connection by default
    session.send("What changed?", lambda event: None)
    opened, = model_lists(claude_double)
    asked, = claude_double.messages_requests()
    assert asked.peer == opened.peer


def test_warming_without_a_key_asks_nothing(tmp_path, claude_double, monkeypatch):
    from agent.loop.session import Session
    from agent.settings.config import AgentConfig

    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    repo = tmp_path / "repo"
    repo.mkdir()
    Session(repo, AgentConfig(thinking="off"), save_transcript=False).prepare_turn()
    assert claude_double.requests == []
