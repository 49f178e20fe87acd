"""The recorder fed from files through the same callback a sounddevice stream calls."""

import threading
import time

import numpy as np

from agent.voice.recorder import Recorder, WavSource
from tests.voice.words import words

SENTENCE = "Show me the latest commit on the main branch."


def record_until_auto_stop(recorder: Recorder, timeout: float = 30.0) -> str:
    stopped = threading.Event()
    reasons: list[str] = []

    def on_auto_stop(reason: str) -> None:
        reasons.append(reason)
        stopped.set()

    recorder.on_auto_stop = on_auto_stop
    recorder.start()
    assert stopped.wait(timeout), "the recorder never stopped by itself"
    return reasons[0]


def test_silence_after_speech_stops_the_recording(speech_wav, speech, transcriber):
    levels: list[tuple[float, float]] = []
    source = WavSource(speech_wav(SENTENCE), speed=4.0, lead_silence=0.5, noise=0.002)
    recorder = Recorder(source, on_level=lambda level, elapsed: levels.append((level, elapsed)))
    assert record_until_auto_stop(recorder) == "silence"
    audio = recorder.stop()
    spoken = len(speech(SENTENCE)) / 16000
    # Lead silence + speech + the ~300 ms wait (+ a frame or two), nothing much more.
    assert 0.5 + spoken < len(audio) / 16000 < 0.5 + spoken + 0.7
    assert recorder.speech_heard and recorder.stopped_by == "silence"
    assert recorder.elapsed == len(audio) / 16000
    assert words(transcriber.transcribe(audio)) == words(SENTENCE)
    # The meter saw quiet, then speech, and time only moved forward.
    assert min(level for level, _ in levels[:5]) < 0.3 < max(level for level, _ in levels)
    assert [e for _, e in levels] == sorted(e for _, e in levels)


def test_silence_alone_never_auto_stops_but_the_maximum_length_does():
    source = WavSource(samples=np.zeros(1600, np.float32), speed=8.0, noise=0.003)
    recorder = Recorder(source, max_seconds=2.0)
    assert record_until_auto_stop(recorder) == "max_length"
    audio = recorder.stop()
    assert not recorder.speech_heard
    assert len(audio) == 32000


def test_a_long_speech_is_cut_at_the_maximum_length(speech_wav):
    recorder = Recorder(WavSource(speech_wav(SENTENCE), speed=8.0), max_seconds=1.0)
    assert record_until_auto_stop(recorder) == "max_length"
    assert len(recorder.stop()) == 16000


def test_cancel_throws_the_audio_away_and_the_recorder_can_go_again(speech_wav):
    source = WavSource(speech_wav(SENTENCE), speed=2.0)
    recorder = Recorder(source, auto_stop=False)
    recorder.start()
    while recorder.elapsed < 0.5:
        threading.Event().wait(0.02)
    recorder.cancel()
    assert not recorder.recording
    assert len(recorder.stop()) == 0
    recorder.start()
    while recorder.elapsed < 0.3:
        threading.Event().wait(0.02)
    assert len(recorder.stop()) >= 0.3 * 16000


def test_stop_at_any_time_returns_what_was_heard(speech_wav):
    recorder = Recorder(WavSource(speech_wav(SENTENCE), speed=1.0), auto_stop=False)
    recorder.start()
    while recorder.elapsed < 0.4:
        threading.Event().wait(0.01)
    audio = recorder.stop()
    assert 0.4 <= len(audio) / 16000 < 1.0
    assert recorder.level > 0


def test_a_file_at_another_rate_is_resampled(speech, tmp_path, transcriber):
    from agent.voice.audio import resample, write_wav

    path = tmp_path / "fast.wav"
    write_wav(path, resample(speech(SENTENCE), 16000, 44100), 44100)
    recorder = Recorder(WavSource(path, speed=4.0, lead_silence=0.3))
    assert record_until_auto_stop(recorder) == "silence"
    assert words(transcriber.transcribe(recorder.stop())) == words(SENTENCE)


def test_a_source_at_another_rate_is_resampled_block_by_block(speech_wav, transcriber):
    # As a sound card that only does 48 kHz would deliver it.
    source = WavSource(speech_wav(SENTENCE), samplerate=48000, blocksize=1536, speed=4.0,
                       lead_silence=0.3)
    recorder = Recorder(source)
    assert record_until_auto_stop(recorder) == "silence"
    audio = recorder.stop()
    assert abs(recorder.elapsed - len(audio) / 16000) < 1e-9
    assert words(transcriber.transcribe(audio)) == words(SENTENCE)


class HandFed:
    """A microphone the test speaks into a frame at a time: nothing comes unless fed."""

    samplerate = 16000

    def start(self, callback) -> None:
        self.callback = callback

    def stop(self) -> None:
        pass

    def feed(self, audio: np.ndarray) -> None:
        for at in range(0, len(audio) - 511, 512):
            self.callback(audio[at:at + 512].reshape(-1, 1), 512, None, None)


def test_a_nudge_asks_the_end_pointer_again_without_waiting_for_a_frame(speech):
    """The wait can shorten between two frames (the last piece's text has come): the
    tentative end follows at once, not 32 ms later with the next block of audio."""
    source = HandFed()
    decided = threading.Event()  # the text that ends the sentence has come
    tentative = threading.Event()
    recorder = Recorder(source, grace_ms=900.0, on_tentative=lambda mark: tentative.set(),
                        silence_wait=lambda: 120.0 if decided.is_set() else 900.0)
    recorder.start()
    try:
        source.feed(np.concatenate([speech(SENTENCE), np.zeros(512 * 8, np.float32)]))
        time.sleep(0.5)  # every frame scored: eight silent ones, the wait still long
        assert recorder.pause_mark is not None and not tentative.is_set()
        decided.set()
        recorder.nudge()
        assert tentative.wait(2.0), "the nudge did not end the turn tentatively"
        assert recorder.recording and recorder.tentative
    finally:
        recorder.stop()
    # a nudge once the recording is over is nothing
    recorder.nudge()
