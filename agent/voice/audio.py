"""Sample-format plumbing shared by the recorder, the models and the commands."""

from __future__ import annotations

import wave
from pathlib import Path

import numpy as np

WHISPER_RATE = 16000
# A sound device as sounddevice takes it: an index, a name, or None for the default.
Device = int | str | None


def to_float32(samples: np.ndarray) -> np.ndarray:
    """Mono float32 in [-1, 1] from int16 or float input of any channel count."""
    samples = np.asarray(samples)
    if samples.ndim == 2:
        samples = samples.mean(axis=1) if samples.shape[1] > 1 else samples[:, 0]
    if samples.dtype == np.int16:
        return (samples.astype(np.float32) / 32768.0).copy()
    return samples.astype(np.float32, copy=True)


def to_int16(samples: np.ndarray) -> np.ndarray:
    samples = np.asarray(samples)
    if samples.dtype == np.int16:
        return samples
    scaled: np.ndarray = np.clip(samples, -1.0, 1.0) * 32767.0
    return scaled.astype(np.int16)


def resample(samples: np.ndarray, rate: int, target: int = WHISPER_RATE) -> np.ndarray:
    """Band-limited resampling of mono float32 audio.

    libswresample (through PyAV, which faster-whisper already needs) rather than
    interpolation: Piper speaks at 22,050 Hz and naive decimation folds its sibilants
    into the band Whisper listens to.
    """
    samples = to_float32(samples)
    if rate == target or samples.size == 0:
        return samples
    import av

    resampler = av.AudioResampler(format="flt", layout="mono", rate=target)
    frame = av.AudioFrame.from_ndarray(samples.reshape(1, -1), format="flt", layout="mono")
    frame.sample_rate = rate
    parts = [f.to_ndarray().reshape(-1) for f in resampler.resample(frame)]
    parts += [f.to_ndarray().reshape(-1) for f in resampler.resample(None)]
    if not parts:
        return np.zeros(0, dtype=np.float32)
    return np.concatenate(parts).astype(np.float32, copy=False)


class StreamResampler:
    """Resamples consecutive blocks of one stream, keeping the filter state between them
    so block edges do not click."""

    def __init__(self, rate: int, target: int = WHISPER_RATE) -> None:
        import av

        self.rate = rate
        self.target = target
        self._resampler = av.AudioResampler(format="flt", layout="mono", rate=target)
        self._pts = 0

    def __call__(self, block: np.ndarray) -> np.ndarray:
        import av

        block = to_float32(block).reshape(1, -1)
        frame = av.AudioFrame.from_ndarray(block, format="flt", layout="mono")
        frame.sample_rate = self.rate
        frame.pts = self._pts
        self._pts += block.shape[1]
        parts = [f.to_ndarray().reshape(-1) for f in self._resampler.resample(frame)]
        if not parts:
            return np.zeros(0, dtype=np.float32)
        return np.concatenate(parts).astype(np.float32, copy=False)


def read_wav(path: Path) -> tuple[np.ndarray, int]:
    """(mono float32, rate) from a PCM WAV file of 8, 16, 24 or 32 bits."""
    with wave.open(str(path), "rb") as reader:
        rate = reader.getframerate()
        channels = reader.getnchannels()
        width = reader.getsampwidth()
        raw = reader.readframes(reader.getnframes())
    if width == 1:
        data = (np.frombuffer(raw, dtype=np.uint8).astype(np.float32) - 128.0) / 128.0
    elif width == 2:
        data = np.frombuffer(raw, dtype="<i2").astype(np.float32) / 32768.0
    elif width == 3:
        bytes3 = np.frombuffer(raw, dtype=np.uint8).reshape(-1, 3)
        wide = (bytes3[:, 0].astype(np.int32) | (bytes3[:, 1].astype(np.int32) << 8)
                | (bytes3[:, 2].astype(np.int32) << 16))
        wide = np.where(wide >= 1 << 23, wide - (1 << 24), wide)
        data = wide.astype(np.float32) / float(1 << 23)
    elif width == 4:
        data = np.frombuffer(raw, dtype="<i4").astype(np.float32) / float(1 << 31)
    else:
        raise ValueError(f"unsupported sample width: {width} bytes")
    if channels > 1:
        data = data.reshape(-1, channels).mean(axis=1)
    return data.astype(np.float32, copy=False), rate


def load_audio(path: Path, target: int = WHISPER_RATE) -> np.ndarray:
    """Any audio file as mono float32 at `target` Hz.

    PCM WAV is read directly; anything else (float WAV, FLAC, MP3) goes through FFmpeg's
    decoder via PyAV.
    """
    try:
        samples, rate = read_wav(path)
    except (wave.Error, ValueError, EOFError):
        from faster_whisper.audio import decode_audio

        decoded: np.ndarray = decode_audio(str(path), sampling_rate=target)
        return decoded
    return resample(samples, rate, target)


def write_wav(path: Path, samples: np.ndarray, rate: int) -> None:
    data = to_int16(np.asarray(samples).reshape(-1))
    with wave.open(str(path), "wb") as writer:
        writer.setnchannels(1)
        writer.setsampwidth(2)
        writer.setframerate(rate)
        writer.writeframes(data.tobytes())


def rms_level(samples: np.ndarray) -> float:
    """Loudness for a meter: 0.0 at -60 dBFS or below, 1.0 at full scale."""
    if samples.size == 0:
        return 0.0
    rms = float(np.sqrt(np.mean(np.square(samples, dtype=np.float64))))
    if rms <= 1e-6:
        return 0.0
    db = 20.0 * np.log10(rms)
    return float(min(1.0, max(0.0, (db + 60.0) / 60.0)))
