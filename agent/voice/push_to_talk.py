"""The push-to-talk state machine: idle -> recording -> transcribing -> idle.

Terminals report no key releases, so the talk key is a toggle: press to start, press
again or Enter to stop, Esc to throw the recording away; the recorder may also stop by
itself. Everything the UI needs to show arrives as dataclass events through one sink,
called from background threads (a Textual app posts them as messages).

A turn ends tentatively soon after a finished sentence (agent/voice/endpoint.py): the
transcript so far goes out at once as a TranscriptReady marked `tentative`, so the agent
can start, while the recorder listens through a grace window. Silence to its end, or the
talk key, confirms it (TranscriptConfirmed); speech again withdraws it
(TranscriptWithdrawn: the turn begun from it must go, unspoken), and the whole utterance
comes later as a fresh TranscriptReady.
"""

from __future__ import annotations

import enum
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from agent.voice.identifier_match import restore_identifiers
from agent.voice.live import LiveTranscript

if TYPE_CHECKING:
    from agent.voice.recorder import Recorder
    from agent.voice.stt import Transcriber
    from agent.voice.tts import Speaker


class PttState(enum.StrEnum):
    IDLE = "idle"
    RECORDING = "recording"
    TRANSCRIBING = "transcribing"
    UNAVAILABLE = "unavailable"


@dataclass(frozen=True)
class StateChanged:
    state: PttState
    previous: PttState
    recording_id: int


@dataclass(frozen=True)
class LevelChanged:
    level: float      # 0..1 for a meter
    elapsed: float    # seconds recorded
    recording_id: int


@dataclass(frozen=True)
class TranscriptReady:
    text: str                # "" when nothing intelligible was heard
    audio_seconds: float
    stopped_by: str          # "key", "enter", "silence", "max_length"
    transcribe_seconds: float
    recording_id: int
    early: bool = False      # decoding began while the recording was still going on
    tentative: bool = False  # the recorder listens on: a TranscriptConfirmed or a TranscriptWithdrawn follows


@dataclass(frozen=True)
class TranscriptWithdrawn:
    """The speaker went on after a tentative transcript: it was half of what they said."""

    text: str                # the tentative transcript, as it was delivered
    recording_id: int


@dataclass(frozen=True)
class TranscriptConfirmed:
    """The grace window after a tentative transcript passed in silence: it stands."""

    text: str
    recording_id: int


@dataclass(frozen=True)
class RecordingDiscarded:
    reason: str              # "escape", "no speech"
    recording_id: int


@dataclass(frozen=True)
class VoiceUnavailable:
    reason: str              # one line for the status bar


PttEvent = (StateChanged | LevelChanged | TranscriptReady | TranscriptWithdrawn | TranscriptConfirmed
            | RecordingDiscarded | VoiceUnavailable)


class PushToTalk:
    def __init__(self, recorder: Recorder, transcriber: Transcriber, sink: Callable[[PttEvent], None], *,
                 vocabulary: Sequence[str] = (), speaker: Speaker | None = None,
                 discard_without_speech: bool = True, tentative: bool = True) -> None:
        """`tentative`: end turns tentatively after a finished sentence (see above), when
        the recorder can listen on."""
        self.recorder = recorder
        self.transcriber = transcriber
        self.sink = sink
        self.vocabulary = tuple(vocabulary)
        self.speaker = speaker
        self.discard_without_speech = discard_without_speech
        self.state = PttState.IDLE
        self.unavailable_reason: str | None = None
        self._recording_id = 0
        self._lock = threading.RLock()
        self._idle = threading.Event()
        self._idle.set()
        self._delivered: str | None = None  # the tentative transcript of this recording
        self._delivered_lock = threading.Lock()
        # The transcript is made while the user speaks, a piece per pause (agent/voice/live.py).
        self.live = LiveTranscript(transcriber, self.vocabulary,
                                   speech_frames=getattr(recorder, "speech_frames", None),
                                   first_speech=getattr(recorder, "first_speech", None),
                                   # the end-pointer waits on that text: ask it again at once,
                                   # not at the next 32 ms frame
                                   on_decoded=getattr(recorder, "nudge", None))
        recorder.on_level = self._on_level
        recorder.on_auto_stop = self._on_auto_stop
        if hasattr(recorder, "on_pause"):
            recorder.on_pause = self._on_pause
        if hasattr(recorder, "silence_wait") and recorder.silence_wait is None:
            recorder.silence_wait = self._silence_wait
        if hasattr(recorder, "on_settled"):
            recorder.on_settled = self._on_settled
        if hasattr(recorder, "on_quiet"):
            recorder.on_quiet = self._on_quiet
        if tentative and getattr(recorder, "grace_ms", False) is None:
            from agent.voice.endpoint import GRACE_MS

            recorder.grace_ms = GRACE_MS
            recorder.on_tentative = self._on_tentative
            recorder.on_resumed = self._on_resumed

    # -- keys -------------------------------------------------------------------------

    def toggle(self) -> bool:
        """The talk key. Returns False when voice is off (the UI may say why)."""
        with self._lock:
            if self.state is PttState.UNAVAILABLE:
                self._emit(VoiceUnavailable(self.unavailable_reason or "voice is off"))
                return False
            if self.state is PttState.IDLE:
                return self._start()
            if self.state is PttState.RECORDING:
                self._finish("key")
                return True
            # Transcribing: a second press is ignored rather than queued.
            return True

    def enter(self) -> bool:
        """Enter stops a recording; returns whether the key was used."""
        with self._lock:
            if self.state is PttState.RECORDING:
                self._finish("enter")
                return True
            return False

    def escape(self) -> bool:
        """Esc throws the recording (or a pending transcript) away and silences speech."""
        self._silence()
        with self._lock:
            if self.state is PttState.RECORDING:
                self.recorder.cancel()
                self.live.cancel()
                self._take_delivered()  # the app's Esc stops the turn begun from it too
                rid = self._recording_id
                self._set_state(PttState.IDLE)
                self._emit(RecordingDiscarded("escape", rid))
                return True
            if self.state is PttState.TRANSCRIBING:
                # The transcription thread will find its id stale and drop the text.
                self.live.cancel()
                rid = self._recording_id
                self._recording_id += 1
                self._set_state(PttState.IDLE)
                self._emit(RecordingDiscarded("escape", rid))
                return True
            return False

    # -- availability -----------------------------------------------------------------

    def set_unavailable(self, reason: str) -> None:
        with self._lock:
            if self.state is PttState.RECORDING:
                self.recorder.cancel()
                self.live.cancel()
            self.unavailable_reason = reason
            self._set_state(PttState.UNAVAILABLE)
            self._emit(VoiceUnavailable(reason))

    def set_available(self) -> None:
        with self._lock:
            self.unavailable_reason = None
            if self.state is PttState.UNAVAILABLE:
                self._set_state(PttState.IDLE)

    def learn_build(self, log: str) -> None:
        """Put a build log's diagnostic codes at the head of the vocabulary (the recording
        under way keeps the one it started with)."""
        from agent.voice.vocabulary import with_build

        self.vocabulary = tuple(with_build(list(self.vocabulary), log))

    def wait_idle(self, timeout: float | None = None) -> bool:
        return self._idle.wait(timeout)

    # -- internals --------------------------------------------------------------------

    def _start(self) -> bool:
        self._silence()  # talking over the voice means "be quiet"
        self._recording_id += 1
        self._idle.clear()
        self._take_delivered()
        self.live.vocabulary = self.vocabulary
        self.live.start()
        try:
            self.recorder.start()
        except Exception as error:
            from agent.voice.status import describe_error

            self._idle.set()
            self.set_unavailable(describe_error(error, "the microphone would not open"))
            return False
        self._set_state(PttState.RECORDING)
        return True

    def _finish(self, stopped_by: str) -> None:
        rid = self._recording_id
        audio = self.recorder.stop()
        delivered = self._take_delivered()  # the recorder has stopped: no callback races this
        if delivered is not None:
            # nothing was said after the tentative transcript: the turn it began stands
            self.live.cancel()
            self._set_state(PttState.IDLE)
            self._emit(TranscriptConfirmed(delivered, rid))
            return
        heard = getattr(self.recorder, "speech_heard", True)
        if self.discard_without_speech and not heard:
            self.live.cancel()
            self._set_state(PttState.IDLE)
            self._emit(RecordingDiscarded("no speech", rid))
            return
        # After the recorder's last pause it heard no speech: the transcript ends there.
        end = getattr(self.recorder, "pause_mark", None)
        early = self.live.began
        self._set_state(PttState.TRANSCRIBING)
        threading.Thread(target=self._transcribe, args=(rid, audio, stopped_by, end, early),
                         name="transcribe", daemon=True).start()

    def _transcribe(self, rid: int, audio: np.ndarray, stopped_by: str,
                    end: int | None, early: bool) -> None:
        started = time.perf_counter()
        try:
            # the pieces joined first: a name can be split between two of them
            text = restore_identifiers(self.live.finish(audio, end), self.live.vocabulary)
        except Exception as error:
            from agent.voice.status import describe_error

            with self._lock:
                if rid == self._recording_id:
                    self.set_unavailable(describe_error(error, "speech recognition failed"))
                    self._idle.set()
                return
        elapsed = time.perf_counter() - started
        with self._lock:
            if rid != self._recording_id or self.state is not PttState.TRANSCRIBING:
                return
            self._set_state(PttState.IDLE)
            self._emit(TranscriptReady(text, len(audio) / 16000, stopped_by, elapsed, rid, early))

    def _on_pause(self, mark: int, audio: np.ndarray) -> None:
        if self.state is PttState.RECORDING:
            self.live.pause(mark, audio)

    def _on_settled(self, mark: int, audio: np.ndarray) -> None:
        self.live.pause(mark, audio, settled=True)

    def _on_quiet(self, mark: int, audio: np.ndarray) -> None:
        if self.state is PttState.RECORDING:
            self.live.peek(mark, audio)

    # On the recorder's worker thread, like the two above: never the machine's lock, which
    # _finish holds while it waits for that thread to end.
    def _on_tentative(self, mark: int) -> None:
        text, _decoding = self.live.heard_until(mark)
        if self.state is not PttState.RECORDING or not text:
            return  # not decoded (the end-pointer only ends early on text) or nothing said
        # the agent acts on this text as it would on the whole transcript: names put back too
        text = restore_identifiers(text, self.live.vocabulary)
        with self._delivered_lock:
            self._delivered = text
        self._emit(TranscriptReady(text, mark / 16000, "silence", 0.0, self._recording_id,
                                   early=True, tentative=True))

    def _on_resumed(self) -> None:
        delivered = self._take_delivered()
        if delivered is not None and self.state is PttState.RECORDING:
            self._emit(TranscriptWithdrawn(delivered, self._recording_id))

    def _take_delivered(self) -> str | None:
        with self._delivered_lock:
            delivered, self._delivered = self._delivered, None
        return delivered

    def _silence_wait(self) -> float:
        """The end-pointer: a finished sentence ends sooner, a half-said one later."""
        from agent.voice.endpoint import MID_SENTENCE_MS, UNSURE_MS, silence_wait

        fixed = float(getattr(self.recorder, "silence_ms", 300.0))
        mark = getattr(self.recorder, "pause_mark", None)
        if mark is None:
            return fixed
        text, decoding = self.live.heard_until(mark)
        if decoding:
            return MID_SENTENCE_MS  # the text comes in a moment; the wait is decided then
        if text is None:
            return max(fixed, UNSURE_MS)  # speech too short to decode alone: no telling
        return silence_wait(text, self.vocabulary, fixed)

    def _on_level(self, level: float, elapsed: float) -> None:
        if self.state is PttState.RECORDING:
            self._emit(LevelChanged(level, elapsed, self._recording_id))

    def _on_auto_stop(self, reason: str) -> None:
        with self._lock:
            if self.state is PttState.RECORDING:
                self._finish(reason)

    def _silence(self) -> None:
        if self.speaker is not None:
            try:
                self.speaker.stop()
            except Exception:
                pass

    def _set_state(self, state: PttState) -> None:
        previous, self.state = self.state, state
        if state in (PttState.IDLE, PttState.UNAVAILABLE):
            self._idle.set()
        else:
            self._idle.clear()
        if previous is not state:
            self._emit(StateChanged(state, previous, self._recording_id))

    def _emit(self, event: PttEvent) -> None:
        try:
            self.sink(event)
        except Exception:
            pass  # a UI that failed to take one event must not stop the machine
