"""The voice controller inside the real app, driven through Pilot.

The recorder listens to a WAV file through its audio callback instead of a microphone;
everything else (VAD, Whisper, the app's turn handling) is the real thing.
"""

import time

import numpy as np
import pytest

from agent.voice.controller import VoiceController, meter
from agent.voice.push_to_talk import PttState, PushToTalk
from agent.voice.recorder import Recorder, WavSource
from agent.voice.stack import VoiceStack
from tests.tui.conftest import notified, wait_for
from tests.voice.words import words

# how long one wait may take: the real Whisper model loads within one
WAIT = 20.0

SENTENCE = "Show me the latest commit on the main branch."


@pytest.fixture
def anyio_backend():
    return "asyncio"


@pytest.fixture
def no_key(monkeypatch):
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def app_with_voice(tmp_path, speech_wav, transcriber, no_key, request):
    from agent.settings.config import AgentConfig
    from memory.store import MemoryStore
    from tui.app import DevAgentApp

    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "Review.cs").write_text("class ReviewOrchestrator {}\n")

    def factory(repo_path, sink):
        speed = getattr(request, "param", 4.0)
        recorder = Recorder(WavSource(speech_wav(SENTENCE), speed=speed, lead_silence=0.3,
                                      noise=0.002))
        return VoiceStack(PushToTalk(recorder, transcriber, sink), None, None)

    controller = VoiceController(stack_factory=factory)
    store = MemoryStore.for_repository(repo)
    app = DevAgentApp(repo, AgentConfig(thinking="off"), store=store, voice=controller)
    return app, controller


def voice_line(app) -> str:
    from tui.widgets.status import StatusLine

    return str(app.query_one(StatusLine).info.voice)


@pytest.mark.anyio
async def test_f2_records_and_the_transcript_becomes_the_users_turn(app_with_voice):
    from tui.widgets.conversation.lines import UserTurn

    app, controller = app_with_voice
    seen: list[str] = []
    show = app.set_voice_state
    app.set_voice_state = lambda status: (seen.append(str(status)), show(status))
    submit = app.submit_turn
    submitted_while: list[object] = []
    app.submit_turn = lambda text, *args: (submitted_while.append(controller.state), submit(text, *args))[1]
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: voice_line(app) == "voice: ready (F2)", timeout=WAIT, what="voice to load")
        await pilot.press("f2")
        await wait_for(pilot, lambda: bool(app.query(UserTurn)), timeout=WAIT, what="the transcript")
        assert words(str(app.query_one(UserTurn).render())) == words(SENTENCE)
        await wait_for(pilot, lambda: controller.state is PttState.IDLE, timeout=WAIT, what="the recording to end")
        # the meter may already hold a bar by the first update, so match the elapsed time only
        assert any(line.startswith("● rec 0.0s") for line in seen)
        # a transcript decoded after the recording shows the wait for it; a tentative one
        # came while the recorder still listened
        assert "◌ transcribing…" in seen or submitted_while == [PttState.RECORDING]
        assert any(line.startswith("● rec ") and line[-1] in "▁▂▃▄▅▆▇█" for line in seen)
        assert controller.state is PttState.IDLE
        assert voice_line(app) == "voice: ready (F2)"


@pytest.mark.anyio
@pytest.mark.parametrize("app_with_voice", [1.0], indirect=True)
async def test_escape_throws_the_recording_away(app_with_voice):
    from tui.widgets.conversation.lines import UserTurn

    app, controller = app_with_voice
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, controller.loaded.is_set, timeout=WAIT, what="voice to load")
        await pilot.press("f2")
        await wait_for(pilot, lambda: voice_line(app).startswith("● rec"), timeout=WAIT, what="recording")
        await pilot.press("escape")
        await wait_for(pilot, lambda: controller.state is PttState.IDLE, timeout=WAIT, what="idle")
        await pilot.pause(1.5)
        assert not app.query(UserTurn)
        assert voice_line(app) == "voice: ready (F2)"


def test_the_meter_spans_quiet_to_loud():
    assert meter([0.0, 0.5, 0.99, 1.0]) == "▁▅██"


def test_a_cancelled_reply_is_silenced_and_the_next_one_is_spoken(voice, transcriber):
    from agent.voice.tts import Speaker, open_buffer_stream

    speaker = Speaker(voice, open_stream=open_buffer_stream).load()
    recorder = Recorder(WavSource(samples=np.zeros(1600, np.float32)))
    controller = VoiceController()
    controller.stack = VoiceStack(PushToTalk(recorder, transcriber, lambda e: None), speaker, None)
    try:
        controller.reply_delta("This reply gets cancelled half way. It would")
        deadline = time.monotonic() + 20
        while speaker.started_at is None:
            assert time.monotonic() < deadline
            time.sleep(0.01)
        controller.reply_finished(cancelled=True)
        assert not speaker.speaking
        controller.reply_delta("The next reply. ")
        controller.reply_finished(cancelled=False)
        assert speaker.speaking
        assert speaker.wait(20)
    finally:
        speaker.close()


@pytest.mark.anyio
async def test_with_voice_off_the_keys_say_why_instead_of_pretending(tmp_path, transcriber, no_key):
    from agent.settings.config import AgentConfig
    from memory.store import MemoryStore
    from tui.app import DevAgentApp

    repo = tmp_path / "repo"
    repo.mkdir()

    def factory(repo_path, sink):
        push_to_talk = PushToTalk(Recorder(WavSource(samples=np.zeros(1600, np.float32))), transcriber, sink)
        push_to_talk.set_unavailable("no audio input device")
        return VoiceStack(push_to_talk, None, "no audio input device")

    controller = VoiceController(stack_factory=factory)
    app = DevAgentApp(repo, AgentConfig(thinking="off"), store=MemoryStore.for_repository(repo), voice=controller)
    messages = notified(app)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await wait_for(pilot, lambda: voice_line(app) == "voice: off — no audio input device", timeout=WAIT, what="the reason")
        await pilot.press("f6")
        await pilot.pause()
        assert messages == ["Voice is off, so there is nothing to mute."]
        await pilot.press("f2")
        await pilot.pause()
        assert "Voice is off: no audio input device; type your question instead." in messages
        assert controller.state is PttState.UNAVAILABLE


def test_a_tentative_transcript_reaches_the_app_as_one_it_may_still_lose(transcriber):
    """The controller's side of the seam: a tentative transcript goes to submit_tentative,
    its confirmation to confirm_turn, a withdrawal to withdraw_turn, in the order heard."""
    from agent.voice.push_to_talk import TranscriptConfirmed, TranscriptReady, TranscriptWithdrawn

    sinks: list = []
    calls: list[tuple[str, str]] = []

    class SeamApp:
        repo, store = None, None

        def call_from_thread(self, callback, *args):
            return callback(*args)

        def set_voice_state(self, status) -> None:
            pass

        def submit_turn(self, text: str) -> None:
            calls.append(("submit", text))

        def submit_tentative(self, text: str) -> None:
            calls.append(("tentative", text))

        def confirm_turn(self, text: str) -> None:
            calls.append(("confirm", text))

        def withdraw_turn(self, text: str) -> None:
            calls.append(("withdraw", text))

    def factory(repo_path, sink):
        sinks.append(sink)
        recorder = Recorder(WavSource(samples=np.zeros(1600, np.float32)))
        return VoiceStack(PushToTalk(recorder, transcriber, sink), None, None)

    controller = VoiceController(stack_factory=factory)
    controller.attach(SeamApp())
    try:
        assert controller.loaded.wait(60)
        sink = sinks[0]
        sink(TranscriptReady("Yes.", 0.5, "silence", 0.0, 1, early=True, tentative=True))
        sink(TranscriptWithdrawn("Yes.", 1))
        sink(TranscriptReady("Yes. But rename it first.", 2.0, "silence", 0.1, 1))
        sink(TranscriptReady("Apply.", 0.5, "silence", 0.0, 2, early=True, tentative=True))
        sink(TranscriptConfirmed("Apply.", 2))
        deadline = time.monotonic() + 5
        while len(calls) < 5 and time.monotonic() < deadline:
            time.sleep(0.02)
        assert calls == [("tentative", "Yes."), ("withdraw", "Yes."), ("submit", "Yes. But rename it first."),
                         ("tentative", "Apply."), ("confirm", "Apply.")]
    finally:
        controller.close()
