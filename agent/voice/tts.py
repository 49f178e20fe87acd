"""A speaker that talks over the user's shoulder without blocking, with the local voice
(agent/voice/synth.py).

The speaker synthesizes on one background thread and plays through a sounddevice output
stream whose callback pulls from a queue of finished sentences, so speech starts with the
first sentence of a streaming reply, and stop() only has to empty that queue.
"""

from __future__ import annotations

import collections
import queue
import threading
import time
from collections.abc import Iterable
from typing import Any

import numpy as np

from agent.voice.audio import Device

# BufferStream and open_buffer_stream are re-exported: callers play a speaker into memory
from agent.voice.buffer_stream import BufferStream as BufferStream
from agent.voice.buffer_stream import OpenStream, OutputCallback, OutputStream
from agent.voice.buffer_stream import open_buffer_stream as open_buffer_stream
from agent.voice.sentences import SentenceSplitter, split_sentences
from agent.voice.speakable import DEFAULT_BUDGET, SpeechFilter
from agent.voice.synth import Voice

# A running output stream calls back about 86 times a second even in silence, a few
# percent of a core on two cores; it pauses after this long without speech and resumes
# when a reply starts (warm()) or a sentence is due.
PAUSE_STREAM_AFTER = 5.0
# After this long without synthesizing, warm() also runs the voice once on a throwaway
# word, so the reply's first sentence does not meet cold caches and a sleeping pool;
# unless a sentence comes within WARM_DELAY of warm(): it warms the voice itself, and a
# warm-up then only sits in front of it ("Ready." takes 55-60 ms to make; a clause after
# 12 s idle comes 6-8 ms later than warm, made a stretch at a time).
WARM_AFTER = 10.0
WARM_DELAY = 0.3
WARM_UP = "\0warm-up"  # the synthesis thread's item for warm(); no text says it
# A stream just started on an idle PulseAudio sink takes its first few blocks at once,
# then none until the sink next wakes (a null sink: up to 2 s later), and a sentence
# queued meanwhile waits for that. load() returns once the stream calls back at its own
# pace: STEADY_FOR seconds of callbacks, none more than STEADY_GAP after the one before;
# or after STEADY_TIMEOUT.
STEADY_FOR = 0.1
STEADY_GAP = 0.05
STEADY_TIMEOUT = 3.0


def open_output_stream(rate: int, callback: OutputCallback, *, device: Device = None, blocksize: int = 256,
                       latency: str | float = "low") -> OutputStream:
    import sounddevice

    from agent.voice.alsa import quiet_alsa_errors

    quiet_alsa_errors()
    stream = sounddevice.OutputStream(samplerate=rate, channels=1, dtype="int16",
                                      blocksize=blocksize, latency=latency, device=device,
                                      callback=callback)
    stream.start()
    started: OutputStream = stream
    return started


class Speaker:
    """Queued, interruptible speech.

    speak() and feed() return at once; stop() drops queued and unplayed audio so the voice
    falls silent within one audio block. Errors on the audio path are kept in `error`
    instead of raising into the caller's thread.
    """

    def __init__(self, voice: Voice | None = None, *, device: Device = None, muted: bool = False,
                 budget: int = DEFAULT_BUDGET, blocksize: int = 256,
                 latency: str | float = "low",
                 open_stream: OpenStream = open_output_stream) -> None:
        self.voice = voice or Voice()
        self.device = device
        self.blocksize = blocksize
        self.latency = latency
        self._open_stream = open_stream
        self._muted = muted
        self._splitter = SentenceSplitter()
        self._filter = SpeechFilter(budget)
        # (generation, sentence), (generation, None) to resume the stream, (generation,
        # WARM_UP) to warm the voice too, None to end the thread
        self._texts: queue.Queue[tuple[int, str | None] | None] = queue.Queue()
        self._audio: collections.deque[np.ndarray] = collections.deque()
        self._offset = 0  # samples of _audio[0] already played
        self._lock = threading.Lock()
        self._generation = 0
        self._pending = 0  # texts queued or being synthesized
        self._stream: OutputStream | None = None
        self._stream_running = False
        self._last_synthesis = time.monotonic()
        self._worker: threading.Thread | None = None
        self._closed = False
        self._idle = threading.Event()
        self._idle.set()
        self.error: str | None = None
        # Monotonic estimates of when the speaker was last heard to start and fall silent;
        # the benchmark reads them.
        self.started_at: float | None = None
        self.silent_at: float | None = None
        self._sounding = False
        self._steady = threading.Event()
        self._steady_since = self._last_callback = 0.0
        self._in_reply = False
        self._reply_silenced = False
        self._reply_said = False  # something of the reply being streamed was said

    # -- public API -------------------------------------------------------------------

    @property
    def muted(self) -> bool:
        return self._muted

    @muted.setter
    def muted(self, value: bool) -> None:
        self._muted = bool(value)
        if self._muted:
            self.stop()

    def toggle_mute(self) -> bool:
        self.muted = not self._muted
        return self._muted

    @property
    def stream(self) -> Any:
        """The open output stream (sounddevice's, or whatever open_stream made)."""
        return self._stream

    @property
    def speaking(self) -> bool:
        return not self._idle.is_set()

    def load(self) -> Speaker:
        """Load the voice, open the output stream and wait until it plays; raises if
        the voice or the stream fails.

        Call it from a worker thread before the first speak(): otherwise the first
        speak() pays for loading the voice on the caller's thread, and the first
        sentence for the device's start.
        """
        self.voice.load()
        self._ensure_running()
        self._steady.wait(STEADY_TIMEOUT)
        return self

    def speak(self, text: str) -> None:
        """Say `text` after whatever is already queued."""
        if self._muted or self._closed:
            return
        sentences = split_sentences(text)
        if not sentences:
            return
        try:
            self._ensure_running()
        except Exception as error:  # no output device: the reply is still on screen
            from agent.voice.status import describe_error

            self.error = describe_error(error, "the speaker would not open")
            return
        with self._lock:
            generation = self._generation
            self._pending += len(sentences)
            self._idle.clear()
        for sentence in sentences:
            self._texts.put((generation, sentence))

    def feed(self, delta: str) -> None:
        """Part of a streaming reply: each sentence is spoken as soon as it is complete,
        and the reply's first words once their first clause is (agent/voice/sentences.py).

        After stop() the rest of the reply being streamed stays silent: the user talked
        over it. The next reply (after flush()) is spoken again.
        """
        if not self._in_reply:
            # Only the stream: a warm-up synthesis now would sit in front of the first
            # sentence, which is a few words away (warm() belongs at the turn's start).
            self._wake(None)
        self._in_reply = True
        if self._reply_silenced:
            return
        first = None if self._reply_said else self._filter.says
        self._say(self._splitter.feed(delta, first), finish=False)

    def flush(self) -> None:
        """The streaming reply has ended: say its last sentence."""
        silenced, self._reply_silenced, self._in_reply = self._reply_silenced, False, False
        self._reply_said = False
        if silenced:
            self._splitter.reset()
            self._filter.reset()
            return
        self._say(self._splitter.flush(), finish=True)

    def _say(self, sentences: Iterable[str], *, finish: bool) -> None:
        """Speak what the filter lets through; at the end of a reply, also what it held back."""
        for sentence in sentences:
            said = self._filter.accept(sentence)
            if said:
                self._reply_said = True
                self.speak(said)
        if finish:
            tail = self._filter.finish()
            if tail:
                self.speak(tail)

    def stop(self) -> None:
        """Barge-in: silence now, forget the queue and the reply being streamed."""
        with self._lock:
            self._generation += 1
            self._audio.clear()
            self._offset = 0
            while True:
                try:
                    self._texts.get_nowait()
                except queue.Empty:
                    break
            # A sentence still being synthesized belongs to the old generation and will
            # not count itself down, so the count starts over.
            self._pending = 0
            self._idle.set()
        self._splitter.reset()
        self._filter.reset()
        self._reply_said = False
        if self._in_reply:
            self._reply_silenced = True

    def warm(self) -> None:
        """A reply is on its way: resume the output stream and, after an idle spell, run
        the voice once, so the first sentence plays as soon as it is synthesized. Call it
        as early as the turn is known, while the model thinks; the first streamed text
        only resumes the stream."""
        self._wake(WARM_UP)

    def _wake(self, item: str | None) -> None:
        """Hand the synthesis thread `item` (None: resume the stream only)."""
        if self._muted or self._closed:
            return
        try:
            self._ensure_running()
        except Exception:
            return  # speak() will say why
        self._texts.put((self._generation, item))

    def wait(self, timeout: float | None = None) -> bool:
        """Block until everything queued has been played (for scripts and tests)."""
        return self._idle.wait(timeout)

    def close(self) -> None:
        self.stop()
        self._closed = True
        self._texts.put(None)
        # Let a sentence still being synthesized finish: a daemon thread that comes back
        # from onnxruntime while the interpreter shuts down aborts the process.
        worker = self._worker
        if worker is not None and worker is not threading.current_thread():
            worker.join(timeout=5)
        stream, self._stream = self._stream, None
        if stream is not None:
            try:
                stream.abort()
                stream.close()
            except Exception:
                pass

    # -- internals --------------------------------------------------------------------

    def _ensure_running(self) -> None:
        # The stream first: a worker started before it would find no running stream,
        # wait for text with no timeout, and so never pause a stream that nothing uses.
        if self._stream is None:
            rate = self.voice.sample_rate
            self._stream = self._open_stream(rate, self._callback, device=self.device,
                                             blocksize=self.blocksize, latency=self.latency)
            self._stream_running = True
        with self._lock:
            if self._worker is None:
                self._worker = threading.Thread(target=self._synthesize_loop,
                                                name="speaker-synth", daemon=True)
                self._worker.start()

    def _synthesize_loop(self) -> None:
        from agent.heap import trim
        from agent.voice.priority import yield_to_app

        yield_to_app()
        taken: list[tuple[int, str | None] | None] = []  # what came while a warm-up waited
        while True:
            try:
                item = taken.pop() if taken else self._texts.get(
                    timeout=PAUSE_STREAM_AFTER if self._stream_running else None)
            except queue.Empty:
                if self._idle.is_set():
                    self._set_stream_running(False)
                continue
            if item is None:
                return
            generation, text = item
            self._set_stream_running(True)
            if text is None:  # the stream is wanted again
                continue
            if text is WARM_UP:
                if generation == self._generation and time.monotonic() - self._last_synthesis > WARM_AFTER:
                    try:
                        taken.append(self._texts.get(timeout=WARM_DELAY))
                    except queue.Empty:
                        self._warm_voice()
                continue
            try:
                if generation == self._generation:
                    for audio in self.voice.stream(text):
                        with self._lock:
                            if generation != self._generation:
                                break
                            self._audio.append(audio)
            except Exception as error:  # the voice must never take the caller down
                self.error = f"speech failed: {str(error).splitlines()[0] if str(error) else type(error).__name__}"
            self._last_synthesis = time.monotonic()
            with self._lock:
                if generation == self._generation:
                    self._pending -= 1
                    self._maybe_idle()
            if self._texts.empty():
                trim()  # the sentence's buffers go back (see agent.heap)

    def _warm_voice(self) -> None:
        try:
            for _ in self.voice.stream("Ready."):
                pass
        except Exception:
            pass  # a real sentence will report it
        self._last_synthesis = time.monotonic()

    def _set_stream_running(self, running: bool) -> None:
        """Pause or resume the output stream; only the synthesis thread calls it."""
        stream = self._stream
        if stream is None or running == self._stream_running:
            return
        try:
            stream.start() if running else stream.stop()
            self._stream_running = running
        except Exception as error:
            self.error = f"the speaker stream failed: {error}"

    def _maybe_idle(self) -> None:
        if self._pending <= 0 and not self._audio:
            self._pending = max(self._pending, 0)
            self._idle.set()

    def _callback(self, outdata: np.ndarray, frames: int, time_info: Any, status: Any) -> None:
        if not self._steady.is_set():
            self._note_pace()
        out = outdata.reshape(-1)
        filled = 0
        with self._lock:
            while filled < frames and self._audio:
                head = self._audio[0]
                take = min(frames - filled, len(head) - self._offset)
                out[filled:filled + take] = head[self._offset:self._offset + take]
                filled += take
                self._offset += take
                if self._offset >= len(head):
                    self._audio.popleft()
                    self._offset = 0
            if filled < frames:
                out[filled:] = 0
            sounding = filled > 0
            if sounding != self._sounding:
                self._sounding = sounding
                heard_at = time.monotonic() + _dac_delay(time_info)
                if sounding:
                    self.started_at = heard_at
                else:
                    self.silent_at = heard_at
            if not self._audio and not filled:
                self._maybe_idle()

    def _note_pace(self) -> None:
        now = time.monotonic()
        if now - self._last_callback > STEADY_GAP:
            self._steady_since = now
        self._last_callback = now
        if now - self._steady_since >= STEADY_FOR:
            self._steady.set()


def _dac_delay(time_info: Any) -> float:
    try:
        return max(0.0, float(time_info.outputBufferDacTime - time_info.currentTime))
    except Exception:
        return 0.0
