"""The speaker between replies: its output stream pauses when there is nothing to say
(a running stream wakes the process about 86 times a second) and a reply warms it again.
The real voice, playing in real time into memory (BufferStream) instead of a card."""

import time

import numpy as np
import pytest

import agent.voice.tts as tts
from agent.voice.audio import resample
from agent.voice.synth import Voice
from agent.voice.tts import Speaker, open_buffer_stream
from tests.voice.words import words


class CountingVoice(Voice):
    """The real voice; counts what it is asked to say."""

    def __init__(self, loaded: Voice) -> None:
        super().__init__(variation=0.0)
        self._piper, self.parts, self.gain = loaded._piper, loaded.parts, loaded.gain
        self.said: list[str] = []

    def stream(self, text):
        self.said.append(text)
        return super().stream(text)


@pytest.fixture
def quick_pause(monkeypatch):
    monkeypatch.setattr(tts, "PAUSE_STREAM_AFTER", 0.5)


@pytest.fixture
def speaker(voice, quick_pause):
    speaker = Speaker(CountingVoice(voice), open_stream=open_buffer_stream).load()
    yield speaker
    speaker.close()


def running(speaker) -> bool:
    return speaker.stream._running.is_set()


def wait_until(predicate, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def heard_since(speaker, transcriber, start: int) -> str:
    audio = speaker.stream.audio[start:]
    return transcriber.transcribe(resample(audio, speaker.stream.rate, 16000))


def test_a_speaker_that_has_not_spoken_yet_pauses_too(speaker):
    assert running(speaker)  # opened by load(), ready for the first reply
    wait_until(lambda: not running(speaker), timeout=10)


def test_the_stream_pauses_when_idle_and_the_next_sentence_is_still_heard(speaker, transcriber):
    speaker.speak("On it.")
    assert speaker.wait(30)
    wait_until(lambda: not running(speaker), timeout=10)
    blocks = len(speaker.stream.audio)
    time.sleep(0.5)
    assert len(speaker.stream.audio) == blocks  # nothing plays, nothing wakes up
    speaker.speak("The build is green.")
    wait_until(lambda: running(speaker))
    assert speaker.wait(30)
    assert words(heard_since(speaker, transcriber, blocks)) == words("The build is green.")


def test_a_reply_resumes_the_stream_before_its_first_sentence_is_complete(speaker):
    speaker.speak("On it.")
    assert speaker.wait(30)
    wait_until(lambda: not running(speaker), timeout=10)
    speaker.feed("The build")  # the first text of a reply: no sentence to say yet
    wait_until(lambda: running(speaker), timeout=5)
    assert speaker.voice.said == ["On it."]
    speaker.feed(" is green. Next")
    speaker.flush()
    assert speaker.wait(30)
    assert speaker.voice.said[-2:] == ["The build is green.", "Next"]


def test_warming_after_an_idle_spell_runs_the_voice_once_and_says_nothing(speaker, monkeypatch):
    monkeypatch.setattr(tts, "WARM_AFTER", 0.2)
    time.sleep(0.3)
    start = len(speaker.stream.audio)
    speaker.warm()
    wait_until(lambda: len(speaker.voice.said) == 1)
    time.sleep(0.5)
    assert not np.any(speaker.stream.audio[start:])  # the warm-up is not played
    monkeypatch.setattr(tts, "WARM_AFTER", 30.0)
    speaker.warm()  # used a moment ago: nothing more to do
    time.sleep(0.3)
    assert len(speaker.voice.said) == 1
    assert not speaker.speaking


def test_the_first_text_of_a_reply_after_an_idle_spell_goes_before_any_warm_up(speaker, monkeypatch):
    """The first sentence is a few words behind the first text: a warm-up synthesis then
    would only put itself in front of it."""
    monkeypatch.setattr(tts, "WARM_AFTER", 0.2)
    time.sleep(0.3)
    speaker.feed("On it.")
    speaker.feed(" Let me")
    speaker.flush()
    assert speaker.wait(30)
    assert speaker.voice.said == ["On it.", "Let me"]


def test_a_sentence_soon_after_warm_is_not_held_up_by_a_warm_up(speaker, monkeypatch):
    """A reply whose first words come at once (a quick model, a short answer) warms the
    voice itself; a warm-up would only go in front of it."""
    monkeypatch.setattr(tts, "WARM_AFTER", 0.2)
    time.sleep(0.3)
    speaker.warm()
    time.sleep(0.05)
    speaker.speak("The build is green.")
    assert speaker.wait(30)
    time.sleep(tts.WARM_DELAY + 0.2)
    assert speaker.voice.said == ["The build is green."]


def test_after_a_sentence_the_voice_leaves_the_cores_alone(voice):
    """onnxruntime's pool threads spin by default once a run is over: about 35 ms of CPU
    in the next 100 ms, taken from whatever else wants the cores."""
    import statistics

    idle_cpu = []
    for _ in range(5):
        for _ in voice.stream("The build failed."):
            pass
        started = time.process_time()
        time.sleep(0.1)
        idle_cpu.append(time.process_time() - started)
    assert statistics.median(idle_cpu) < 0.01, idle_cpu


def test_a_muted_or_closed_speaker_is_not_warmed(speaker, monkeypatch):
    monkeypatch.setattr(tts, "WARM_AFTER", 0.0)
    speaker.muted = True
    speaker.warm()
    time.sleep(0.3)
    assert speaker.voice.said == []
    speaker.muted = False
    speaker.close()
    speaker.warm()
    time.sleep(0.3)
    assert speaker.voice.said == []
