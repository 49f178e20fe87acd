"""The transcript of a recording, made while the recording is still going on.

Whisper on the whole recording after the user stops costs one full pass whatever was
said. Instead, each time the recorder hears a short pause after speech, the audio from
the last pause to this one is decoded in the background (a short encoder window, see
Transcriber.transcribe_segment) and its text committed: the pause sits in silence, so
no word is cut. When the recording ends only the part after the last committed pause
is left to decode, usually the last phrase, or nothing at all when the recording
stopped in that very pause.

One worker thread, one recording at a time; a pause that arrives while the worker is
busy only moves the end of the next piece, so a slow machine decodes fewer, longer
pieces rather than falling behind.

The decode of the last piece is what the end-pointer waits for, so it starts at the first
silent frame after speech (`peek`), before anyone knows whether the silence is a pause:
an idle worker decodes the piece but keeps the text aside. The pause that follows takes
it as its piece when no speech came after where the peek ended; speech again throws it
away (a gap inside a word must not cut a piece).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np

from agent.voice.audio import WHISPER_RATE

if TYPE_CHECKING:
    from agent.voice.stt import Transcriber

# A piece shorter than this waits for the next pause: a word or two alone gives Whisper
# too little context and tends to come back as a stock phrase.
MIN_PIECE_SECONDS = 1.0
# A pause that has lasted (the recorder's on_settled) is where a phrase ended, not a gap
# between words: the end-pointer needs its text, so a piece this short is decoded there.
MIN_SETTLED_SECONDS = 0.3
# A piece with fewer frames of speech than this (a click, a breath, the room) is not
# decoded: Whisper makes a stock word ("you") out of near-silence.
MIN_SPEECH_FRAMES = 3
# Silence kept before a piece's first speech: a long pause in front of the words sends
# more pieces to the slow whole decode; with less than this, tiny.en says the piece over
# and over (both seen on Piper speech).
LEAD_SECONDS = 0.3


class LiveTranscript:
    def __init__(self, transcriber: Transcriber, vocabulary: Sequence[str] = (),
                 speech_frames: Callable[[int, int], int] | None = None,
                 first_speech: Callable[[int, int], int | None] | None = None,
                 on_decoded: Callable[[], None] | None = None) -> None:
        """`speech_frames(start, end)`: frames of speech the recorder heard there;
        `first_speech(start, end)`: where the first of them begins; `on_decoded()`, on the
        worker thread: a piece's text (or a peek's) has just come, so what `heard_until`
        says may have changed."""
        self.transcriber = transcriber
        self.vocabulary = tuple(vocabulary)
        self.speech_frames = speech_frames
        self.first_speech = first_speech
        self.on_decoded = on_decoded
        self._state = threading.Condition()
        self._generation = 0
        self._audio = np.zeros(0, dtype=np.float32)
        self._pieces: list[str] = []
        self._done = 0          # samples transcribed and committed
        self._wanted = 0        # samples the worker should reach
        self._busy = False
        self._peek_end = 0      # the end of the piece to decode aside, when asked
        self._peeked: tuple[int, int, str] | None = None  # (start, end, text) decoded aside
        self._running_peek: tuple[int, int] | None = None  # (start, end) the worker peeks at
        self._beside = False    # a peek is decoding beside the worker's
        self._error: BaseException | None = None
        self._worker: threading.Thread | None = None
        self.pieces_decoded = 0  # for tests and the benchmark: pieces of this recording
        self.peeks = 0  # and decodes aside
        self.tail = 0  # samples finish() had to ask for itself: what no pause had covered

    def start(self) -> None:
        """A new recording: forget the last one (a piece still decoding is dropped)."""
        with self._state:
            self._generation += 1
            self._audio = np.zeros(0, dtype=np.float32)
            self._pieces, self._done, self._wanted = [], 0, 0
            self._peek_end, self._peeked = 0, None
            self._running_peek = None  # a decode still running finds its generation old
            self._beside = False
            self._error = None
            self.pieces_decoded = 0
            self.peeks = 0
            self.tail = 0

    def cancel(self) -> None:
        self.start()

    @property
    def began(self) -> bool:
        """Whether any of this recording was handed to the decoder before it ended."""
        with self._state:
            return self._wanted > 0

    def pause(self, mark: int, audio: np.ndarray, *, settled: bool = False) -> None:
        """The recorder heard a pause after speech at sample `mark`; `audio` is all of
        the recording so far. `settled`: the pause has lasted (see MIN_SETTLED_SECONDS)."""
        shortest = MIN_SETTLED_SECONDS if settled else MIN_PIECE_SECONDS
        with self._state:
            self._audio = audio
            # the next piece runs from where the pieces asked for so far end
            if mark - max(self._wanted, self._done) >= shortest * WHISPER_RATE:
                self._wanted = mark
                self._take_peeked()
                self._ensure_worker()
                self._state.notify_all()

    def peek(self, mark: int, audio: np.ndarray) -> None:
        """The first silent frame after speech, at sample `mark`: if the worker is idle,
        decode the piece up to here aside, for the pause that may follow.

        A peek the speaker has already overtaken (speech came after where it ends: the
        closure of a "t", a breath) cannot be stopped, so where the model runs two decodes
        at once (Transcriber.parallel) this one starts beside it rather than after it."""
        with self._state:
            start = max(self._wanted, self._done)
            # a peek still decoding is replaced by this one, next; a piece asked for is not
            if (self._wanted > self._done or self._error is not None
                    or mark - start < MIN_SETTLED_SECONDS * WHISPER_RATE):
                return
            self._audio = audio
            running = self._running_peek
            if (running is not None and not self._beside and self.transcriber.parallel
                    and running[0] == start and not self._silent(running[1], mark)):
                self._beside = True
                threading.Thread(target=self._peek_beside, args=(self._generation, start, mark, audio),
                                 name="transcribe-peek", daemon=True).start()
                return
            self._peek_end = mark
            self._ensure_worker()
            self._state.notify_all()

    def heard_until(self, mark: int) -> tuple[str | None, bool]:
        """(the transcript up to sample `mark` when it is decoded, else None; whether the
        piece that ends there is being decoded): what the end-pointer reads."""
        with self._state:
            if self._done > 0 and (self._done >= mark or self._silent(self._done, mark)):
                return " ".join(piece for piece in self._pieces if piece).strip(), False
            return None, self._wanted >= mark > self._done

    def finish(self, audio: np.ndarray, end: int | None = None, timeout: float = 120.0) -> str:
        """The whole transcript once the recording is over: waits for the pieces still
        decoding and decodes what is left up to `end` (default: all of `audio`; the
        recorder's last pause when only silence followed it)."""
        end = len(audio) if end is None else min(end, len(audio))
        with self._state:
            generation = self._generation
            self._audio = audio
            self.tail = max(0, end - self._wanted)
            if end > self._wanted:
                self._wanted = end
                self._take_peeked()
                self._ensure_worker()
                self._state.notify_all()
            finished = self._state.wait_for(
                lambda: self._generation != generation or self._error is not None
                or (self._done >= end and not self._busy and not self._beside), timeout)
            if self._generation != generation:
                return ""
            if self._error is not None:
                error, self._error = self._error, None
                raise error
            if not finished:
                raise TimeoutError("speech recognition took too long")
            return " ".join(piece for piece in self._pieces if piece).strip()

    def _silent(self, start: int, end: int) -> bool:
        """Whether no frame between two sample positions was heard as speech."""
        return self.speech_frames is not None and self.speech_frames(start, end) == 0

    def _take_peeked(self) -> None:
        """A piece was asked for up to `_wanted`: a peek that decoded it, up to a silence
        that lasted, is that piece (holding the lock)."""
        peeked = self._peeked
        if peeked is None or peeked[0] != self._done:
            return
        start, end, text = peeked
        if end <= self._wanted and self._silent(end, self._wanted):
            self._peeked = None
            self._pieces.append(text)
            self.pieces_decoded += 1
            self._done = self._wanted

    # -- the worker ---------------------------------------------------------------------

    def _ensure_worker(self) -> None:
        if self._worker is None:
            self._worker = threading.Thread(target=self._work, name="transcribe-live", daemon=True)
            self._worker.start()

    def _work(self) -> None:
        while True:
            with self._state:
                # a peek beside is the piece a pause asks for next: wait for it, not redo it
                self._state.wait_for(lambda: not self._beside and (
                    self._wanted > self._done or self._peek_end > self._done))
                peeking = self._wanted <= self._done
                generation, start = self._generation, self._done
                end = self._peek_end if peeking else self._wanted
                self._peek_end = 0
                audio = self._audio
                self._busy = True
                self._running_peek = (start, end) if peeking else None
                self.peeks += peeking
            text, error = self._decode(audio, start, end)
            with self._state:
                self._busy = False
                self._running_peek = None
                if generation == self._generation and peeking:
                    self._keep_peek(start, end, text, error)
                elif generation == self._generation:
                    if error is not None:
                        self._error = error
                        self._wanted = self._done  # nothing more until the next recording
                    else:
                        self._pieces.append(text)
                        self._done = end
                        self.pieces_decoded += 1
                self._state.notify_all()
            self._decoded(generation, error)

    def _peek_beside(self, generation: int, start: int, end: int, audio: np.ndarray) -> None:
        text, error = self._decode(audio, start, end)
        with self._state:
            if generation == self._generation:
                self._beside = False
                self.peeks += 1
                self._keep_peek(start, end, text, error)
                self._state.notify_all()
        self._decoded(generation, error)

    def _keep_peek(self, start: int, end: int, text: str, error: BaseException | None) -> None:
        """A peek's text, kept unless a later peek of the same piece is already there, and
        taken at once if the pause came while it decoded (holding the lock)."""
        if error is not None or start != self._done:
            return
        peeked = self._peeked
        if peeked is None or peeked[0] != start or peeked[1] <= end:
            self._peeked = (start, end, text)
        if self._wanted > self._done:
            self._take_peeked()

    def _decode(self, audio: np.ndarray, start: int, end: int) -> tuple[str, BaseException | None]:
        try:
            begin = start
            first = self.first_speech(start, end) if self.first_speech is not None else None
            if first is not None:
                begin = max(start, first - int(LEAD_SECONDS * WHISPER_RATE))
            piece = audio[begin:end]
            heard = self.speech_frames is None or self.speech_frames(start, end) >= MIN_SPEECH_FRAMES
            return (self.transcriber.transcribe_segment(piece, self.vocabulary) if heard else ""), None
        except Exception as problem:
            return "", problem

    def _decoded(self, generation: int, error: BaseException | None) -> None:
        if self.on_decoded is not None and error is None and generation == self._generation:
            try:
                self.on_decoded()
            except Exception:
                pass  # the end-pointer asks again at the next frame anyway
