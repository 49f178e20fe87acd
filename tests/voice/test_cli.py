"""`devagent say` and `devagent transcribe` as scripts use them: separate processes."""

import os
import subprocess
import sys
import wave

import pytest

from tests.voice.conftest import REPO_ROOT
from tests.voice.words import words

# Each command loads a real model in a process of its own.
pytestmark = pytest.mark.audio


def devagent(*args: str, env=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tui.cli", *args], cwd=REPO_ROOT,
                          capture_output=True, text=True, timeout=120,
                          env=env if env is not None else dict(os.environ))


def test_say_then_transcribe_round_trips(tmp_path):
    out = tmp_path / "nested" / "said.wav"
    text = "Please open the settings file and show me what changed."
    said = devagent("say", text, "-o", str(out), "--variation", "0")
    assert said.returncode == 0, said.stderr
    with wave.open(str(out)) as reader:
        assert reader.getframerate() == 22050 and reader.getnchannels() == 1
        assert reader.getnframes() > 22050
    heard = devagent("transcribe", str(out))
    assert heard.returncode == 0, heard.stderr
    assert words(heard.stdout) == words(text)


def test_transcribe_takes_any_rate_and_the_vocabulary(tmp_path):
    out = tmp_path / "jargon48k.wav"
    text = "The ReviewOrchestrator class still raises warning CS1591."
    assert devagent("say", text, "-o", str(out), "--rate", "48000",
                    "--variation", "0").returncode == 0
    with wave.open(str(out)) as reader:
        assert reader.getframerate() == 48000
    heard = devagent("transcribe", str(out), "--vocabulary", "ReviewOrchestrator, CS1591")
    assert heard.returncode == 0, heard.stderr
    assert "ReviewOrchestrator" in heard.stdout and "CS1591" in heard.stdout


def test_transcribe_takes_the_repository_vocabulary(tmp_path):
    repo = tmp_path / "repo"
    (repo / "src").mkdir(parents=True)
    (repo / "src" / "Review.cs").write_text("public sealed class ReviewOrchestrator { }\n")
    out = tmp_path / "jargon.wav"
    assert devagent("say", "Open the ReviewOrchestrator class.", "-o", str(out),
                    "--variation", "0").returncode == 0
    heard = devagent("transcribe", str(out), "--repo", str(repo))
    assert heard.returncode == 0, heard.stderr
    assert "ReviewOrchestrator" in heard.stdout


def test_problems_are_one_line_without_a_traceback(tmp_path):
    missing = devagent("transcribe", str(tmp_path / "nothing.wav"))
    assert missing.returncode == 1
    assert missing.stderr.strip() == f"devagent transcribe: no such file: {tmp_path / 'nothing.wav'}"

    garbage = tmp_path / "garbage.wav"
    garbage.write_bytes(b"RIFF not really a wave file")
    broken = devagent("transcribe", str(garbage))
    assert broken.returncode == 1
    assert "Traceback" not in broken.stderr and len(broken.stderr.strip().splitlines()) == 1
    assert broken.stderr.startswith(f"devagent transcribe: cannot read {garbage} as audio: ")
    assert "Errno" not in broken.stderr

    no_model = devagent("transcribe", str(garbage), "--model", str(tmp_path / "no-model"))
    assert no_model.returncode == 1 and "Traceback" not in no_model.stderr

    voice = devagent("say", "hello", "-o", str(tmp_path / "x.wav"), "--voice",
                     str(tmp_path / "nobody.onnx"))
    assert voice.returncode == 1
    assert voice.stderr.strip() == (
        f"devagent say: failed: no Piper voice at {tmp_path / 'nobody.onnx'}")
    assert not (tmp_path / "x.wav").exists()


def test_variation_zero_says_the_same_thing_the_same_way(tmp_path):
    for name in ("one.wav", "two.wav"):
        assert devagent("say", "On it.", "-o", str(tmp_path / name), "--variation", "0").returncode == 0
    assert (tmp_path / "one.wav").read_bytes() == (tmp_path / "two.wav").read_bytes()


def test_the_app_switch_devagent_voice_off_is_not_taken_for_a_voice_name(tmp_path):
    # DEVAGENT_VOICE=off turns the app's voice off; the Piper voice is DEVAGENT_TTS_VOICE
    out = tmp_path / "said.wav"
    said = devagent("say", "On it.", "-o", str(out), env={**os.environ, "DEVAGENT_VOICE": "off"})
    assert said.returncode == 0, said.stderr
    assert out.stat().st_size > 1000
