"""Why voice is off: one line, no traceback, in the environments where it is off."""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.system_packages import needs
from tests.voice.conftest import REPO_ROOT, no_audio_env, run_python

REASON = ("from agent.voice.status import voice_unavailable_reason as r;"
          " print(repr(r()))")


def _portaudio_library() -> Path:
    import ctypes.util

    name = ctypes.util.find_library("portaudio")
    assert name, "libportaudio2 is needed for these tests"
    for folder in ("/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib"):
        candidate = Path(folder) / name
        if candidate.exists():
            return candidate.resolve()
    pytest.fail(f"cannot locate {name}")


@needs("portaudio")
def test_without_portaudio(tmp_path):
    if shutil.which("unshare") is None or os.geteuid() != 0:
        pytest.skip("hiding a system library needs root and unshare")
    library = _portaudio_library()
    empty = tmp_path / "empty.so"
    empty.write_bytes(b"")
    # A private mount namespace: the library disappears for this one process tree only.
    script = (f"mount --bind {empty} {library} && "
              f"exec {os.sys.executable} -c \"{REASON}\"")
    result = subprocess.run(["unshare", "-m", "sh", "-c", script], cwd=REPO_ROOT,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "'no PortAudio: install libportaudio2'"
    assert "Traceback" not in result.stderr
    assert library.stat().st_size > 0  # the real library is untouched outside


@needs("portaudio")  # without it, the reason given is the missing library
def test_without_an_audio_device(tmp_path):
    result = run_python(REASON, env=no_audio_env(tmp_path))
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "'no audio input device'"
    assert "Traceback" not in result.stderr


def test_with_a_device_and_models_voice_is_on(pulse):
    code = ("from agent.voice.status import voice_unavailable_reason as r;"
            "from agent.voice.stt import Transcriber; from agent.voice.synth import Voice;"
            "print(repr(r(transcriber=Transcriber(), voice=Voice())))")
    result = run_python(code, env=pulse.env)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "None"


def test_a_model_that_will_not_load_is_named(pulse, tmp_path):
    code = ("import sys; from agent.voice.status import voice_unavailable_reason as r;"
            "from agent.voice.stt import Transcriber;"
            "print(repr(r(transcriber=Transcriber(sys.argv[1]))))")
    result = run_python(code, env=pulse.env, args=[str(tmp_path / "missing-model")])
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == repr(
        f"the speech model would not load: no speech model at {tmp_path / 'missing-model'}")


STACK = """
import json, sys
from pathlib import Path
from agent.voice.push_to_talk import PttState
from agent.voice.stack import load_voice
events = []
stack = load_voice(Path(sys.argv[1]), events.append, voice=sys.argv[2] or None)
pressed = stack.push_to_talk.toggle()
if pressed:
    stack.push_to_talk.escape()
print(json.dumps({"reason": stack.reason, "speaker_problem": stack.speaker_problem,
                  "pressed": pressed, "state": stack.push_to_talk.state.value,
                  "events": [type(e).__name__ for e in events],
                  "speaker": stack.speaker is not None, "vocabulary": stack.vocabulary[:3]}))
"""


def _stack(env, repo, voice=""):
    import json

    result = run_python(STACK, env=env, args=[str(repo), voice])
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_the_stack_comes_up_on_a_machine_with_a_device(pulse, tmp_path):
    (tmp_path / "App.cs").write_text("class ReviewOrchestrator {}")
    state = _stack(pulse.env, tmp_path)
    assert state["reason"] is None and state["speaker"] and state["pressed"]
    assert state["vocabulary"] == ["ReviewOrchestrator"]
    assert state["events"][0] == "StateChanged" and state["events"][-1] == "RecordingDiscarded"
    assert state["state"] == "idle"


@needs("portaudio")
def test_the_stack_without_a_device_keeps_typing_and_says_why(tmp_path):
    state = _stack(no_audio_env(tmp_path), tmp_path)
    assert state["reason"] == "no audio input device"
    assert not state["pressed"] and state["state"] == "unavailable"
    assert state["events"] == ["StateChanged", "VoiceUnavailable", "VoiceUnavailable"]


def test_a_voice_that_will_not_load_leaves_hearing_on(pulse, tmp_path):
    state = _stack(pulse.env, tmp_path, voice=str(tmp_path / "nobody.onnx"))
    assert state["reason"] is None and not state["speaker"]
    assert state["speaker_problem"] == f"the voice would not load: no Piper voice at {tmp_path / 'nobody.onnx'}"
