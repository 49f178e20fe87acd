"""Speech for end-point tests and benchmarks: parts said one after another, each trimmed to
its loud samples, with a pause of a set length between them. The last loud sample is the
end of speech."""

from __future__ import annotations

import numpy as np


def spoken_parts(voice, parts: list[str], pause: float, steady: bool = False) -> np.ndarray:
    """16 kHz speech of `parts` with `pause` seconds of silence between them; `steady`
    turns the voice's variation off while it speaks, so every run hears the same clip."""
    from agent.voice.audio import resample

    variation = voice.variation
    if steady:
        voice.variation = 0.0
    try:
        clips = []
        for part in parts:
            audio, rate = voice.synthesize(part)
            clip = resample(audio, rate, 16000)
            loud = np.nonzero(np.abs(clip) > 0.01)[0]
            clips += [clip[loud[0]:loud[-1] + 1], np.zeros(int(pause * 16000), np.float32)]
    finally:
        voice.variation = variation
    return np.concatenate(clips[:-1])
