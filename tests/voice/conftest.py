"""Real models, loaded once per test session, and speech the tests make with them."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.system_packages import need
from tests.voice.pulse import PulseServer
from tests.voice.words import word_error_rate

REPO_ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def runtime_dir(tmp_path_factory, monkeypatch) -> Path:
    """Without XDG_RUNTIME_DIR, libpulse (under PortAudio) makes /tmp/pulse-XXXX folders
    that outlive the test."""
    folder = tmp_path_factory.mktemp("run")
    folder.chmod(0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(folder))
    return folder


@pytest.fixture(scope="session")
def voice():
    """The default voice without sampling noise: the same words give the same audio in
    every run, so a test that fails has a reason."""
    from agent.voice.synth import Voice

    return Voice(variation=0.0).load()


@pytest.fixture(scope="session")
def transcriber():
    from agent.voice.stt import Transcriber

    return Transcriber().load()


@pytest.fixture(scope="session")
def speech(voice):
    """speech(text) -> 16 kHz float32 audio of the default voice saying it (memoized)."""
    from agent.voice.audio import resample

    cache: dict[str, np.ndarray] = {}

    def make(text: str) -> np.ndarray:
        if text not in cache:
            audio, rate = voice.synthesize(text)
            cache[text] = resample(audio, rate, 16000)
        return cache[text]

    return make


@pytest.fixture(scope="session")
def speech_wav(speech, tmp_path_factory):
    """speech_wav(text) -> path of a 16 kHz WAV file of it."""
    from agent.voice.audio import write_wav

    folder = tmp_path_factory.mktemp("speech")
    made: dict[str, Path] = {}

    def make(text: str) -> Path:
        if text not in made:
            path = folder / f"clip{len(made)}.wav"
            write_wav(path, speech(text), 16000)
            made[text] = path
        return made[text]

    return make


@pytest.fixture
def pulse():
    """A private PulseAudio server with a 16 kHz null sink; stopped by its PID afterwards."""
    need("portaudio", "pulseaudio")
    # Not under tmp_path: a unix socket path is limited to 108 bytes, and past that
    # PulseAudio quietly moves its socket into a pulse-XXXX folder in /tmp.
    server = PulseServer.start()
    pid = server.pid
    yield server
    server.stop()
    assert not Path(f"/proc/{pid}").exists() or _zombie(pid), "PulseAudio outlived its test"
    assert not server.root.exists()


def _zombie(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] == "Z"
    except OSError:
        return True


def heard_as_said(heard: str, said: str, slack: int = 1) -> bool:
    """The same words, but for at most `slack` (a word edit): audio through a sound server
    on a loaded machine can drop a few milliseconds, and "branch" comes back "brand"."""
    return word_error_rate(said, heard)[0] <= slack


def run_python(code: str, *, env: dict[str, str] | None = None, timeout: float = 120,
               args: list[str] | None = None) -> subprocess.CompletedProcess:
    """Run code in a fresh interpreter so PortAudio sees the environment it is given."""
    return subprocess.run([sys.executable, "-c", code, *(args or [])], cwd=REPO_ROOT,
                          env=env if env is not None else dict(os.environ),
                          capture_output=True, text=True, timeout=timeout)


def no_audio_env(folder: Path) -> dict[str, str]:
    """An environment with no sound server: libpulse keeps its runtime folder in `folder`
    instead of making /tmp/pulse-XXXX, and finds nothing to connect to."""
    return dict(os.environ, HOME=str(folder), XDG_RUNTIME_DIR=str(folder), TMPDIR=str(folder),
                PULSE_SERVER=f"unix:{folder}/no-server")
