"""The push-to-talk state machine with a real recorder fed from a file and real Whisper."""

import queue
import threading

import numpy as np

from agent.voice.push_to_talk import (
    LevelChanged,
    PttState,
    PushToTalk,
    RecordingDiscarded,
    StateChanged,
    TranscriptConfirmed,
    TranscriptReady,
    VoiceUnavailable,
)
from agent.voice.recorder import Recorder, WavSource
from tests.voice.conftest import no_audio_env, run_python
from tests.voice.words import words

SENTENCE = "Run the build again and tell me about the warnings."
JARGON = "Fix warning CS1591 in the ReviewOrchestrator class."


class Events:
    """Collects events from the machine's threads, as a UI message queue would."""

    def __init__(self) -> None:
        self.queue: queue.Queue = queue.Queue()
        self.seen: list = []

    def __call__(self, event) -> None:
        self.queue.put(event)

    def next(self, kind, timeout: float = 30.0):
        while True:
            event = self.queue.get(timeout=timeout)
            self.seen.append(event)
            if isinstance(event, kind):
                return event

    def drain(self) -> None:
        while not self.queue.empty():
            self.seen.append(self.queue.get())

    def states(self) -> list[PttState]:
        return [e.state for e in self.seen if isinstance(e, StateChanged)]


def make(speech_wav, transcriber, text=SENTENCE, **kwargs):
    recorder = Recorder(WavSource(speech_wav(text), speed=4.0, lead_silence=0.3, noise=0.002))
    events = Events()
    return PushToTalk(recorder, transcriber, events, **kwargs), events


def test_speech_then_silence_goes_idle_recording_transcribing_idle(speech_wav, transcriber):
    ptt, events = make(speech_wav, transcriber)
    assert ptt.state is PttState.IDLE
    assert ptt.toggle()
    assert ptt.state is PttState.RECORDING
    level = events.next(LevelChanged)
    assert 0.0 <= level.level <= 1.0 and level.elapsed > 0
    ready = events.next(TranscriptReady)
    assert words(ready.text) == words(SENTENCE)
    assert ready.stopped_by == "silence" and ready.audio_seconds > 2
    # Whisper started at the first short pause, before the silence wait was over.
    assert ready.early
    assert ptt.wait_idle(5) and ptt.state is PttState.IDLE
    events.drain()
    if ready.tentative:
        # the text was in before the grace window ended: it stood, and nothing was left to decode
        assert events.states() == [PttState.RECORDING, PttState.IDLE]
        assert [e.text for e in events.seen if isinstance(e, TranscriptConfirmed)] == [ready.text]
    else:
        assert events.states() == [PttState.RECORDING, PttState.TRANSCRIBING, PttState.IDLE]


def test_the_talk_key_and_enter_stop_early(speech_wav, transcriber):
    for stop in ("toggle", "enter"):
        ptt, events = make(speech_wav, transcriber)
        assert not ptt.enter()  # Enter while idle belongs to the input box
        ptt.toggle()
        while ptt.recorder.elapsed < 1.6:
            threading.Event().wait(0.01)
        assert getattr(ptt, stop)()
        ready = events.next(TranscriptReady)
        assert ready.stopped_by == ("key" if stop == "toggle" else "enter")
        assert not ready.early
        assert ready.text and len(words(ready.text)) < len(words(SENTENCE))
        assert words(SENTENCE)[:2] == words(ready.text)[:2]


def test_escape_discards_the_recording(speech_wav, transcriber):
    ptt, events = make(speech_wav, transcriber)
    ptt.toggle()
    events.next(LevelChanged)
    assert ptt.escape()
    discarded = events.next(RecordingDiscarded)
    assert discarded.reason == "escape" and ptt.state is PttState.IDLE
    assert not ptt.escape()  # nothing left to throw away
    threading.Event().wait(0.5)
    assert not any(isinstance(e, TranscriptReady) for e in list(events.queue.queue))


def test_escape_while_transcribing_drops_the_text(speech_wav, transcriber):
    ptt, events = make(speech_wav, transcriber)
    ptt.toggle()
    events.next(LevelChanged)
    while ptt.recorder.elapsed < 1.5:
        threading.Event().wait(0.01)
    ptt.toggle()
    assert ptt.state is PttState.TRANSCRIBING
    assert ptt.escape()
    assert ptt.state is PttState.IDLE
    threading.Event().wait(2.0)  # longer than a transcription takes
    leftovers = list(events.queue.queue)
    assert not any(isinstance(e, TranscriptReady) for e in leftovers)


def test_a_recording_without_speech_is_not_transcribed(transcriber):
    recorder = Recorder(WavSource(samples=np.zeros(16000, np.float32), speed=8.0, noise=0.003),
                        max_seconds=1.0)
    events = Events()
    ptt = PushToTalk(recorder, transcriber, events)
    ptt.toggle()
    assert events.next(RecordingDiscarded).reason == "no speech"
    assert ptt.state is PttState.IDLE


def test_vocabulary_reaches_the_transcriber(speech_wav, transcriber):
    ptt, events = make(speech_wav, transcriber, text=JARGON,
                       vocabulary=["ReviewOrchestrator", "CS1591"])
    ptt.toggle()
    text = events.next(TranscriptReady).text
    assert "ReviewOrchestrator" in text and "CS1591" in text


def test_unavailable_voice_says_why_and_comes_back(speech_wav, transcriber):
    ptt, events = make(speech_wav, transcriber)
    ptt.set_unavailable("no audio input device")
    assert events.next(VoiceUnavailable).reason == "no audio input device"
    assert not ptt.toggle()
    assert events.next(VoiceUnavailable).reason == "no audio input device"
    assert ptt.state is PttState.UNAVAILABLE
    ptt.set_available()
    assert ptt.state is PttState.IDLE
    assert ptt.toggle()
    events.next(TranscriptReady)


MICROPHONE_THAT_WILL_NOT_OPEN = """
from agent.voice.push_to_talk import PushToTalk, VoiceUnavailable
from agent.voice.recorder import DeviceSource, Recorder
from agent.voice.stt import Transcriber
events = []
ptt = PushToTalk(Recorder(DeviceSource(device="no such microphone")), Transcriber(), events.append)
print(ptt.toggle())
print(ptt.state.value)
print([e.reason for e in events if isinstance(e, VoiceUnavailable)][0])
"""


def test_a_microphone_that_will_not_open_turns_voice_off(tmp_path):
    # In its own process: PortAudio must not be initialized inside the test runner.
    result = run_python(MICROPHONE_THAT_WILL_NOT_OPEN, env=no_audio_env(tmp_path))
    assert result.returncode == 0, result.stderr
    pressed, state, reason = result.stdout.strip().splitlines()
    assert pressed == "False" and state == "unavailable"
    assert reason.startswith("the microphone would not open: ")
    assert "Traceback" not in result.stderr


def test_a_broken_event_sink_does_not_stop_the_machine(speech_wav, transcriber):
    got: list = []

    def sink(event):
        got.append(event)
        raise RuntimeError("the UI dropped this one")

    recorder = Recorder(WavSource(speech_wav(SENTENCE), speed=4.0, lead_silence=0.3))
    ptt = PushToTalk(recorder, transcriber, sink)
    ptt.toggle()
    for _ in range(600):
        if any(isinstance(e, TranscriptReady) for e in got):
            break
        threading.Event().wait(0.05)
    assert any(isinstance(e, TranscriptReady) for e in got)
    assert ptt.wait_idle(30) and ptt.state is PttState.IDLE


def test_a_pause_inside_the_sentence_does_not_end_it(speech, transcriber):
    first, second = "Open the settings file.", "Then show me what changed."
    def trimmed(clip):
        loud = np.nonzero(np.abs(clip) > 0.02)[0]
        return clip[loud[0]:loud[-1] + 1]

    gap = np.zeros(int(0.15 * 16000), np.float32)  # a breath: shorter than the silence wait
    audio = np.concatenate([trimmed(speech(first)), gap, trimmed(speech(second))])
    recorder = Recorder(WavSource(samples=audio, speed=4.0, lead_silence=0.3, noise=0.002))
    events = Events()
    PushToTalk(recorder, transcriber, events).toggle()
    ready = events.next(TranscriptReady)
    assert words(ready.text) == words(first + " " + second)
    assert ready.early
