"""Which packaged speech model this machine can afford, measured once and remembered.

The live transcript (agent/voice/live.py) must keep up: end of speech to transcript at
most half of one whole decode with the same model (the benchmark's target,
benchmarks/voice_latency.py). A larger model hears better but decodes slower, and
whether its pieces keep pace with speech depends on the machine. At the first start each
packaged model, smallest first, decodes a spoken question of three sentences the way a
recording is decoded live: each sentence when the pause after it is heard, one after
the other on one worker, then the end-pointer's wait after the last. The largest that
keeps within the ratio is chosen; the result is kept in the user's cache folder, so
later starts only read it.
"""

from __future__ import annotations

import json
import math
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from agent.voice.audio import WHISPER_RATE
from agent.voice.models import PACKAGED, TINY, installed
from agent.voice.vad import FRAME
from memory.private import make_private

if TYPE_CHECKING:
    from agent.voice.stt import Transcriber
    from agent.voice.synth import Voice

TARGET_RATIO = 0.5
# What the measurement says, and the version of how it is measured: a new one measures again.
CHOICE_VERSION = 4
PAUSE_SECONDS = 0.2    # between the sentences, a breath
# the live transcript starts on a piece at the first silent frame after it (a peek the
# pause then takes), when its worker is free
SENTENCES = ["Open the settings file.", "Then show me what changed in the build script.",
             "After that run the tests and tell me which ones failed."]


@dataclass
class Choice:
    model: str
    ratios: dict[str, float] = field(default_factory=dict)  # model -> measured ratio
    measured_now: bool = False


def choice_file() -> Path:
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("devagent", appauthor=False)) / "speech-model.json"


def machine_key() -> str:
    """What the measurement holds for: the cores, the decoder's version, the models there."""
    import faster_whisper

    models = ",".join(name for name in PACKAGED if installed(name))
    return f"v{CHOICE_VERSION} cpus={os.cpu_count()} faster-whisper={faster_whisper.__version__} models={models}"


def choose_model(make_transcriber: Callable[[str], Transcriber] | None = None,
                 make_voice: Callable[[], Voice] | None = None, *, path: Path | None = None) -> Choice:
    """The remembered choice, or a new measurement; never raises (tiny.en when unsure)."""
    path = path or choice_file()
    key = machine_key()
    try:
        saved = json.loads(path.read_text(encoding="utf-8"))
        if saved.get("key") == key and saved.get("model") in PACKAGED and installed(saved["model"]):
            return Choice(saved["model"], {k: float(v) for k, v in saved.get("ratios", {}).items()})
    except (OSError, ValueError, AttributeError, TypeError):
        pass
    choice = measure_choice(make_transcriber, make_voice)
    try:
        make_private(path.parent)
        temporary = path.with_suffix(".tmp")
        temporary.write_text(json.dumps({"key": key, "model": choice.model, "ratios": choice.ratios}),
                             encoding="utf-8")
        temporary.replace(path)
    except OSError:
        pass  # measured again next time
    return choice


def measure_choice(make_transcriber: Callable[[str], Transcriber] | None = None,
                   make_voice: Callable[[], Voice] | None = None) -> Choice:
    from agent.voice.stt import Transcriber
    from agent.voice.synth import Voice

    make_transcriber = make_transcriber or (lambda name: Transcriber(name))
    try:
        voice = (make_voice or (lambda: Voice(variation=0.0)))()
        sentences = [_speech(voice, sentence) for sentence in SENTENCES]
    except Exception:
        return Choice(TINY, measured_now=True)
    chosen, ratios = TINY, {}
    for name in PACKAGED:
        if not installed(name):
            continue
        try:
            live = make_transcriber(name).load()
            ratio = live_ratio(live, sentences, floor=live.whole_decoder())
        except Exception:
            continue
        ratios[name] = round(ratio, 3)
        if ratio <= TARGET_RATIO:
            chosen = name
        elif name != TINY:
            break  # a larger one would only be slower
    return Choice(chosen, ratios, measured_now=True)


def live_ratio(transcriber: Transcriber, sentences: list[np.ndarray], *, runs: int = 2,
               floor: Transcriber | None = None) -> float:
    """End of speech to transcript over one whole decode, for sentences said with short
    pauses and decoded as the live transcript decodes them (each the fastest of `runs`,
    after a first decode that only warms the model up). The whole decode is `floor`'s
    (default: the same transcriber's), which should decode it as fast as the model can:
    fewer threads that suit the pieces must not make the yardstick longer."""
    floor = floor or transcriber
    from agent.voice.endpoint import SENTENCE_END_MS

    pause = np.zeros(int(PAUSE_SECONDS * WHISPER_RATE), np.float32)
    audio = np.concatenate([part for sentence in sentences for part in (sentence, pause)][:-1])
    transcriber.transcribe_segment(sentences[0])
    # the recorder counts whole 32 ms frames of silence, and the VAD hears the end of a
    # word about a frame late
    wait = (math.ceil(SENTENCE_END_MS / 1000 * WHISPER_RATE / FRAME) + 1) * FRAME / WHISPER_RATE
    wholes, latencies = [], []
    for _ in range(runs):
        started = time.perf_counter()
        floor.transcribe(audio)
        wholes.append(time.perf_counter() - started)
        free = 0.0     # when the worker is done with the pieces so far (seconds of audio time)
        position = 0.0
        end_of_speech = 0.0
        for sentence in sentences:
            end_of_speech = position + len(sentence) / WHISPER_RATE
            ready = end_of_speech + FRAME / WHISPER_RATE
            started = time.perf_counter()
            transcriber.transcribe_segment(sentence)
            free = max(free, ready) + time.perf_counter() - started
            position = end_of_speech + PAUSE_SECONDS
        # the turn ends (tentatively) once its last piece is decoded and the wait after a
        # finished sentence has passed; the transcript is then ready
        latencies.append(max(free, end_of_speech + wait) - end_of_speech)
    return min(latencies) / min(wholes)


def _speech(voice: Voice, text: str) -> np.ndarray:
    from agent.voice.audio import resample

    audio, rate = voice.synthesize(text)
    clip = resample(audio, rate, WHISPER_RATE)
    loud = np.nonzero(np.abs(clip) > 0.01)[0]
    return clip[loud[0]:loud[-1] + 1] if len(loud) else clip
