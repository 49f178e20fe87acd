"""Push-to-talk capture: an input-stream callback that never blocks, plus end-of-speech
detection.

The audio callback only copies the block into a queue. A worker thread scores 32 ms
frames with Silero VAD, updates the level meter and decides to stop by itself: once
speech has been heard, a silence ends the recording, and so does the maximum length. How
long that silence is can follow what was said (`silence_wait`, see agent/voice/endpoint.py);
without it, ~300 ms. Sources are pluggable so a test can feed a WAV file through the very same
callback a sounddevice stream calls.
"""

from __future__ import annotations

import bisect
import queue
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from agent.voice.audio import WHISPER_RATE, Device, StreamResampler, load_audio, rms_level, to_float32
from agent.voice.vad import FRAME, StreamingVad

SPEECH_THRESHOLD = 0.5
SILENCE_THRESHOLD = 0.35  # hysteresis: a frame between the two keeps the current state
MIN_SPEECH_FRAMES = 3     # ~100 ms, so a click or a cough does not arm the auto-stop

AudioCallback = Callable[[np.ndarray, int, object, object], None]
# Put in the block queue by nudge(): no audio, only "ask the end-pointer again now".
_NUDGE = np.zeros(0, dtype=np.float32)


class AudioSource(Protocol):
    samplerate: int

    def start(self, callback: AudioCallback) -> None: ...
    def stop(self) -> None: ...


class DeviceSource:
    """The default (or a chosen) microphone through a sounddevice InputStream."""

    def __init__(self, device: Device = None, samplerate: int = WHISPER_RATE, blocksize: int = FRAME) -> None:
        self.device = device
        self.samplerate = samplerate
        self.blocksize = blocksize
        self._stream: Any = None  # a sounddevice.InputStream; sounddevice has no type information

    def start(self, callback: AudioCallback) -> None:
        import sounddevice

        from agent.voice.alsa import quiet_alsa_errors

        quiet_alsa_errors()

        def open_at(rate: int, blocksize: int) -> Any:
            return sounddevice.InputStream(samplerate=rate, channels=1, dtype="float32",
                                           blocksize=blocksize, device=self.device,
                                           callback=callback)

        try:
            stream = open_at(self.samplerate, self.blocksize)
        except sounddevice.PortAudioError:
            # Raw hardware may not do 16 kHz; take its own rate and let the recorder
            # resample what it hears.
            rate = int(sounddevice.query_devices(self.device, "input")["default_samplerate"])
            stream = open_at(rate, round(self.blocksize * rate / WHISPER_RATE))
            self.samplerate = rate
        self._stream = stream
        self._stream.start()

    def stop(self) -> None:
        stream, self._stream = self._stream, None
        if stream is not None:
            try:
                stream.abort()
            finally:
                stream.close()


class WavSource:
    """A WAV file played into the recorder's callback as if a microphone heard it.

    After the file ends it keeps delivering silence, as a quiet room would, until the
    recorder stops. `speed` > 1 delivers faster than real time.
    """

    def __init__(self, path: Path | str | None = None, *, samples: np.ndarray | None = None,
                 samplerate: int = WHISPER_RATE, blocksize: int = FRAME,
                 speed: float = 1.0, lead_silence: float = 0.0, noise: float = 0.0) -> None:
        if samples is None:
            if path is None:
                raise ValueError("a WavSource needs a path or samples")
            samples = load_audio(Path(path), samplerate)
        audio = to_float32(samples)
        if lead_silence:
            audio = np.concatenate([np.zeros(int(lead_silence * samplerate), np.float32), audio])
        self.audio = audio
        self.samplerate = samplerate
        self.blocksize = blocksize
        self.speed = speed
        self.noise = noise
        self._thread: threading.Thread | None = None
        self._running = threading.Event()
        self._stopping = threading.Event()  # wakes the thread between blocks: stop() is prompt, as a device's is

    def start(self, callback: AudioCallback) -> None:
        self._running.set()
        self._stopping.clear()
        self._thread = threading.Thread(target=self._run, args=(callback,),
                                        name="wav-source", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._running.clear()
        self._stopping.set()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=5)
        self._thread = None

    def _run(self, callback: AudioCallback) -> None:
        rng = np.random.default_rng(0)
        block_seconds = self.blocksize / self.samplerate / self.speed
        started = time.monotonic()
        position = 0
        index = 0
        while self._running.is_set():
            block = self.audio[position:position + self.blocksize]
            if len(block) < self.blocksize:
                block = np.concatenate([block, np.zeros(self.blocksize - len(block), np.float32)])
            if self.noise:
                block = block + rng.normal(0.0, self.noise, self.blocksize).astype(np.float32)
            position += self.blocksize
            callback(block.reshape(-1, 1), self.blocksize, None, None)
            index += 1
            delay = started + index * block_seconds - time.monotonic()
            if delay > 0:
                self._stopping.wait(delay)


class Recorder:
    """One recording at a time: start(), then stop() for the audio or cancel().

    on_level(level, elapsed) and on_auto_stop(reason) are called from the recorder's
    worker thread; reason is "silence" or "max_length". on_pause(mark, audio) reports a
    short silence after speech (the audio up to it), so a caller can transcribe what was
    said so far while the user goes on (the live transcript cuts its pieces there); if
    that silence becomes the auto-stop, `pause_mark` still equals `mark` and nothing but
    silence came after it.

    With `grace_ms`, the silence the end-pointer asks for ends the turn only tentatively:
    on_tentative(mark) is called (on the worker thread, once per pause) and the recording
    goes on until the silence has lasted `grace_ms`; speech again before that calls
    on_resumed() and the recording carries on as if the pause had been a breath.
    """

    def __init__(self, source: AudioSource | None = None, *, max_seconds: float = 30.0,
                 silence_ms: float = 300.0, auto_stop: bool = True,
                 on_level: Callable[[float, float], None] | None = None,
                 on_auto_stop: Callable[[str], None] | None = None,
                 on_pause: Callable[[int, np.ndarray], None] | None = None,
                 pause_ms: float = 90.0,
                 silence_wait: Callable[[], float] | None = None,
                 on_settled: Callable[[int, np.ndarray], None] | None = None,
                 settled_ms: float = 200.0,
                 grace_ms: float | None = None,
                 on_tentative: Callable[[int], None] | None = None,
                 on_resumed: Callable[[], None] | None = None,
                 on_quiet: Callable[[int, np.ndarray], None] | None = None) -> None:
        self.source = source if source is not None else DeviceSource()
        self.max_seconds = max_seconds
        self.silence_ms = silence_ms
        self.auto_stop = auto_stop
        self.on_level = on_level
        self.on_auto_stop = on_auto_stop
        self.on_pause = on_pause
        self.pause_ms = pause_ms
        # asked at each silent frame after speech: the ms of silence that end it now
        self.silence_wait = silence_wait
        # the same pause, once it has lasted `settled_ms`: no longer a gap between words
        self.on_settled = on_settled
        self.settled_ms = settled_ms
        self.grace_ms = grace_ms
        self.on_tentative = on_tentative
        self.on_resumed = on_resumed
        # the first silent frame after speech, with the audio up to it: too soon to call
        # it a pause, early enough to start decoding in case it is one
        self.on_quiet = on_quiet
        self._vad: StreamingVad | None = None
        self._blocks: queue.Queue[np.ndarray | None] = queue.Queue()
        self._worker: threading.Thread | None = None
        self._lock = threading.Lock()
        self._reset()

    def _reset(self) -> None:
        self._chunks: list[np.ndarray] = []
        self._samples = 0
        self._pending = np.zeros(0, dtype=np.float32)
        self._speech_frames = 0
        self._speech_ends: list[int] = []  # where each frame heard as speech ends (samples)
        self._silent_frames = 0
        self._speech_run = 0     # frames of speech in a row
        self.tentative = False   # the turn ended tentatively and no speech came since
        self.pause_mark: int | None = None
        self.speech_heard = False
        self.stopped_by: str | None = None
        self.level = 0.0
        self.overflows = 0
        self.recording = False
        self._accepting = False

    @property
    def elapsed(self) -> float:
        """Seconds of audio captured so far."""
        return self._samples / WHISPER_RATE

    def prepare(self) -> Recorder:
        """Load the VAD ahead of the first recording."""
        self._loaded_vad()
        return self

    def _loaded_vad(self) -> StreamingVad:
        if self._vad is None:
            self._vad = StreamingVad()
        return self._vad

    def start(self) -> None:
        if self.recording:
            return
        self._loaded_vad().reset()
        self._reset()
        self._blocks = queue.Queue()
        self.recording = True
        self._accepting = True
        self._worker = threading.Thread(target=self._work, args=(self._blocks,),
                                        name="recorder", daemon=True)
        self._worker.start()
        try:
            self.source.start(self.callback)
        except BaseException:
            self._halt()
            raise

    def callback(self, indata: np.ndarray, frames: int, time_info: Any, status: Any) -> None:
        """The sounddevice InputStream callback: copy and hand over, nothing more."""
        if status:
            self.overflows += 1
        if self._accepting:
            self._blocks.put(np.array(indata, dtype=np.float32, copy=True).reshape(-1))

    def speech_frames(self, start: int, end: int) -> int:
        """How many frames between two sample positions were heard as speech."""
        ends = self._speech_ends
        return bisect.bisect_right(ends, end) - bisect.bisect_right(ends, start)

    def first_speech(self, start: int, end: int) -> int | None:
        """Where the first frame heard as speech between two sample positions begins."""
        ends = self._speech_ends
        index = bisect.bisect_right(ends, start)
        if index < len(ends) and ends[index] <= end:
            return max(start, ends[index] - FRAME)
        return None

    def nudge(self) -> None:
        """Ask `silence_wait` again now rather than at the next frame: what it depends on
        (a piece's text) has just changed. Any thread; the recorder's worker does it."""
        if self._accepting:
            self._blocks.put(_NUDGE)

    def snapshot(self) -> np.ndarray:
        """The audio captured so far, without stopping."""
        with self._lock:
            if not self._chunks:
                return np.zeros(0, dtype=np.float32)
            return np.concatenate(self._chunks)

    def stop(self) -> np.ndarray:
        """End the recording; the 16 kHz mono float32 audio captured."""
        self._halt()
        return self.snapshot()

    def cancel(self) -> None:
        """End the recording and throw the audio away."""
        self._halt()
        with self._lock:
            self._chunks = []
            self._samples = 0

    def _halt(self) -> None:
        self._accepting = False
        if not self.recording and self._worker is None:
            return
        try:
            self.source.stop()
        except Exception:
            pass
        self.recording = False
        worker, self._worker = self._worker, None
        if worker is not None:
            self._blocks.put(None)
            if worker is not threading.current_thread():
                worker.join(timeout=5)

    def _work(self, blocks: queue.Queue[np.ndarray | None]) -> None:
        resampler: StreamResampler | None = None
        while True:
            block = blocks.get()
            if block is None:
                return
            if block is _NUDGE:
                reason = self._recheck()
                if reason:
                    self._stop_by(reason)
                    return
                continue
            rate = self.source.samplerate  # a device may settle on its own rate when it opens
            if rate != WHISPER_RATE:
                if resampler is None or resampler.rate != rate:
                    resampler = StreamResampler(rate, WHISPER_RATE)
                block = resampler(block)
                if not len(block):
                    continue
            reason = self._consume(block)
            if reason:
                self._stop_by(reason)
                return

    def _stop_by(self, reason: str) -> None:
        self._accepting = False
        self.stopped_by = reason
        if self.on_auto_stop is not None:
            # On its own thread: the handler will call stop(), which joins this one.
            threading.Thread(target=self.on_auto_stop, args=(reason,),
                             name="recorder-auto-stop", daemon=True).start()

    def _recheck(self) -> str | None:
        """The end-of-speech check of the last frame, made again (see nudge)."""
        if self.auto_stop and self.speech_heard and self._silent_frames and self._ends_here(self._silence_frames()):
            return "silence"
        return None

    def _silence_frames(self) -> int:
        return max(1, round(self.silence_ms / 1000 * WHISPER_RATE / FRAME))

    def _consume(self, block: np.ndarray) -> str | None:
        with self._lock:
            room = int(self.max_seconds * WHISPER_RATE) - self._samples
            block = block[:max(room, 0)]
            self._chunks.append(block)
            self._samples += len(block)
        self.level = rms_level(block)
        if self.on_level is not None:
            self.on_level(self.level, self.elapsed)
        self._pending = np.concatenate([self._pending, block])
        silence_frames = self._silence_frames()
        # 90 ms is three frames: the breath between two sentences said in one go (150-250 ms
        # of silence, of which the VAD calls 3-6 frames silent), well short of a stop.
        pause_frames = max(1, round(self.pause_ms / 1000 * WHISPER_RATE / FRAME))
        settled_frames = max(pause_frames + 1, round(self.settled_ms / 1000 * WHISPER_RATE / FRAME))
        consumed = self._samples - len(self._pending)
        vad = self._loaded_vad()
        while len(self._pending) >= FRAME:
            frame, self._pending = self._pending[:FRAME], self._pending[FRAME:]
            consumed += FRAME
            prob = vad(frame)
            if prob >= SPEECH_THRESHOLD:
                self._speech_frames += 1
                self._speech_run += 1
                self._speech_ends.append(consumed)
                self._silent_frames = 0
                self.pause_mark = None
                if self._speech_frames >= MIN_SPEECH_FRAMES:
                    self.speech_heard = True
                if self.tentative and self._speech_run >= MIN_SPEECH_FRAMES:
                    # the speaker went on: what was delivered was half of it (a click
                    # or a breath, shorter than this, leaves it standing)
                    self.tentative = False
                    if self.on_resumed is not None:
                        self.on_resumed()
            elif prob < SILENCE_THRESHOLD:
                self._silent_frames += 1
                self._speech_run = 0
                if not self.speech_heard:
                    self._speech_frames = 0
                elif self._silent_frames == 1 and self.on_quiet is not None:
                    self.on_quiet(consumed, self.snapshot()[:consumed])
                elif self._silent_frames == pause_frames and pause_frames < silence_frames:
                    self.pause_mark = consumed
                    if self.on_pause is not None:
                        self.on_pause(consumed, self.snapshot()[:consumed])
                elif (self._silent_frames == settled_frames and self.pause_mark is not None
                      and self.on_settled is not None):
                    self.on_settled(self.pause_mark, self.snapshot()[:self.pause_mark])
            if self._recheck():
                return "silence"
        if self._samples >= int(self.max_seconds * WHISPER_RATE):
            return "max_length"
        return None

    def _ends_here(self, silence_frames: int) -> bool:
        if self.silence_wait is not None:
            try:
                silence_frames = max(1, round(self.silence_wait() / 1000 * WHISPER_RATE / FRAME))
            except Exception:
                pass  # the fixed wait, rather than a recording that never ends
        if self.grace_ms is None:
            return self._silent_frames >= silence_frames
        grace_frames = max(silence_frames, round(self.grace_ms / 1000 * WHISPER_RATE / FRAME))
        if (not self.tentative and self._silent_frames >= silence_frames
                and self.pause_mark is not None and silence_frames < grace_frames):
            self.tentative = True
            if self.on_tentative is not None:
                self.on_tentative(self.pause_mark)
        return self._silent_frames >= grace_frames
