"""Silero voice activity on a live stream, one 32 ms frame at a time.

faster-whisper ships the Silero model but its wrapper scores a whole clip at once and
resets the recurrent state on every call; a live recorder needs the state (and the 64
samples of context the model expects before each frame) carried from frame to frame.
"""

from __future__ import annotations

import os
import threading
from typing import Any

import numpy as np

FRAME = 512  # samples at 16 kHz: 32 ms, the window the model was trained on
CONTEXT = 64

# onnxruntime has no type information: the session is Any
_session: Any = None
_session_lock = threading.Lock()


def _load_session() -> Any:
    global _session
    with _session_lock:
        if _session is None:
            import onnxruntime
            from faster_whisper.utils import get_assets_path

            options = onnxruntime.SessionOptions()
            options.inter_op_num_threads = 1
            options.intra_op_num_threads = 1
            options.log_severity_level = 4
            path = os.path.join(get_assets_path(), "silero_vad_v6.onnx")
            _session = onnxruntime.InferenceSession(path, providers=["CPUExecutionProvider"],
                                                    sess_options=options)
        return _session


class StreamingVad:
    def __init__(self) -> None:
        self._session = _load_session()
        self.reset()

    def reset(self) -> None:
        self._h = np.zeros((1, 1, 128), dtype=np.float32)
        self._c = np.zeros((1, 1, 128), dtype=np.float32)
        self._context = np.zeros(CONTEXT, dtype=np.float32)

    def __call__(self, frame: np.ndarray) -> float:
        """Probability that a 512-sample 16 kHz frame holds speech."""
        frame = np.asarray(frame, dtype=np.float32).reshape(-1)
        window = np.concatenate([self._context, frame]).reshape(1, -1)
        prob, self._h, self._c = self._session.run(
            None, {"input": window, "h": self._h, "c": self._c})
        self._context = frame[-CONTEXT:]
        return float(np.asarray(prob).reshape(-1)[0])
