"""The real Whisper and Piper models from their wheels, on speech the voice makes."""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from agent.voice.audio import resample
from agent.voice.stt import vocabulary_prompt
from tests.voice.words import words

PLAIN = "Please open the settings file and show me what changed."
JARGON = "The ReviewOrchestrator class still raises warning CS1591."


def test_the_voice_speaks_at_its_own_rate(voice):
    audio, rate = voice.synthesize(PLAIN)
    assert audio.dtype == np.int16 and rate == 22050
    assert 1.5 < len(audio) / rate < 8
    assert np.abs(audio).max() > 3000  # audible, not silence


def test_resampled_speech_is_heard_word_for_word(voice, transcriber):
    audio, rate = voice.synthesize(PLAIN)
    heard = transcriber.transcribe(resample(audio, rate, 16000))
    assert words(heard) == words(PLAIN)


@pytest.mark.parametrize("rate", [8000, 44100, 48000])
def test_other_sample_rates_survive_the_trip(speech, transcriber, rate):
    there = resample(speech(PLAIN), 16000, rate)
    back = resample(there, rate, 16000)
    assert abs(len(back) - len(speech(PLAIN))) < 200
    assert words(transcriber.transcribe(back)) == words(PLAIN)


def test_jargon_without_vocabulary_is_heard_as_plain_words(speech, transcriber):
    heard = transcriber.transcribe(speech(JARGON))
    # The recognizer gets the sounds right but not the spelling: this is the gap the
    # repository vocabulary closes.
    assert "ReviewOrchestrator" not in heard
    assert "review" in heard.lower() and "orchestrator" in heard.lower()


def test_jargon_with_vocabulary_is_exact(speech, transcriber):
    vocabulary = ["DiffParser", "ReviewOrchestrator", "PromptBuilder", "CS1591", "IDE0005"]
    heard = transcriber.transcribe(speech(JARGON), vocabulary)
    assert "ReviewOrchestrator" in heard.split()
    assert "CS1591" in heard.replace(".", " ").replace(",", " ").split()
    assert [w for w in words(heard)] == words(JARGON)


def test_silence_is_heard_as_nothing(transcriber):
    assert transcriber.transcribe(np.zeros(16000, dtype=np.float32)) == ""
    assert transcriber.transcribe(np.zeros(800, dtype=np.float32)) == ""


def test_the_vocabulary_prompt_is_bounded():
    prompt = vocabulary_prompt([f"Term{n}Name" for n in range(500)] + ["", "term0name"])
    assert prompt.startswith("Glossary: Term0Name, Term1Name")
    assert len(prompt) <= 420
    assert vocabulary_prompt([]) is None


def test_a_missing_model_fails_to_load_with_a_plain_message(tmp_path):
    from agent.voice.status import model_problem
    from agent.voice.stt import Transcriber
    from agent.voice.synth import Voice

    problem = model_problem(("speech model", Transcriber(str(tmp_path / "nowhere")).load))
    assert problem == f"the speech model would not load: no speech model at {tmp_path / 'nowhere'}"
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "model.bin").write_bytes(b"not a model")
    problem = model_problem(("speech model", Transcriber(str(broken)).load))
    assert problem.startswith("the speech model would not load: ") and "\n" not in problem
    problem = model_problem(("voice", Voice(str(tmp_path / "nobody.onnx")).load))
    assert problem == f"the voice would not load: no Piper voice at {tmp_path / 'nobody.onnx'}"


def test_wav_files_of_any_rate_width_and_channels_load_as_16k_mono(speech, transcriber, tmp_path):
    import wave

    from agent.voice.audio import load_audio, to_int16

    clip = resample(speech(PLAIN), 16000, 44100)
    stereo = np.stack([to_int16(clip), to_int16(clip * 0.5)], axis=1)
    path = tmp_path / "stereo.wav"
    with wave.open(str(path), "wb") as writer:
        writer.setnchannels(2)
        writer.setsampwidth(2)
        writer.setframerate(44100)
        writer.writeframes(stereo.tobytes())
    audio = load_audio(path)
    assert audio.dtype == np.float32 and audio.ndim == 1
    assert abs(len(audio) - len(speech(PLAIN))) < 200
    assert words(transcriber.transcribe(audio)) == words(PLAIN)

    wide = tmp_path / "24bit.wav"
    samples = (np.clip(clip, -1, 1) * (2**23 - 1)).astype("<i4")
    raw = b"".join(int(v).to_bytes(3, "little", signed=True) for v in samples[:4410])
    with wave.open(str(wide), "wb") as writer:
        writer.setnchannels(1)
        writer.setsampwidth(3)
        writer.setframerate(44100)
        writer.writeframes(raw)
    loaded = load_audio(wide)
    expected = resample(clip[:4410], 44100, 16000)
    assert len(loaded) == len(expected)
    assert np.allclose(loaded, expected, atol=1e-3)


MEMORY_PROBE = """
import json
from agent.heap import trim
from agent.voice.synth import Voice

def rss_mb():
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024

voice = Voice().load()
sizes = []
# each sentence longer than any before it, as a session's replies come
for words in range(2, 40, 3):
    voice.synthesize(" ".join(["build"] * words) + ".")
    trim()
    sizes.append(rss_mb())
sessions = [voice.parts.encoder, voice.parts.flow, voice.parts.vocoder] if voice.parts else [voice._piper.session]
print(json.dumps([any(s.get_session_options().enable_cpu_mem_arena for s in sessions), sizes]))
"""


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads RSS from /proc")
@pytest.mark.audio
def test_ever_longer_sentences_do_not_grow_the_voice_for_good():
    result = subprocess.run([sys.executable, "-c", MEMORY_PROBE], cwd=Path(__file__).resolve().parents[2],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    arena, sizes = json.loads(result.stdout.strip().splitlines()[-1])
    assert arena is False  # onnxruntime's arena would keep the longest sentence's buffers
    assert sizes[-1] - sizes[1] < 8, sizes  # MB: what a sentence needed is given back after it


LOAD_AND_MEASURE = """
import sys
from agent.voice.stt import Transcriber

def rss_mb():
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024

before = rss_mb()
transcriber = Transcriber(sys.argv[1]).load()  # kept: measured while loaded
print(rss_mb() - before)
"""


def test_base_from_its_packages_takes_no_more_memory_than_from_a_folder(tmp_path):
    """Its model.bin comes in two parts; CTranslate2 handed them joined in memory keeps a
    copy of all of it (135 MB) for as long as the model is loaded."""
    import os

    from agent.voice.models import BASE, _data_folders
    from tests.voice.conftest import run_python

    folder = tmp_path / "base"
    folder.mkdir()
    first, second = _data_folders(BASE)
    with open(folder / "model.bin", "wb") as joined:
        joined.write((first / "model.bin.part1").read_bytes())
        joined.write((second / "model.bin.part2").read_bytes())
    for name in ("config.json", "tokenizer.json", "vocabulary.json"):
        (folder / name).write_bytes((second / name).read_bytes())
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "cache"))

    def growth(model: str) -> float:
        result = run_python(LOAD_AND_MEASURE, env=env, args=[model])
        assert result.returncode == 0, result.stderr[-2000:]
        return float(result.stdout.split()[-1])

    from_folder, from_packages = growth(str(folder)), growth(BASE)
    assert from_packages < from_folder + 40, (from_packages, from_folder)
    # the test's own cache: one joined folder, nothing half-written beside it
    cache = tmp_path / "cache" / "devagent" / "models"
    assert [path.name.split("-")[:2] for path in cache.iterdir()] == [["whisper", "base"]]
    assert growth(BASE) < from_folder + 40  # and again, from the folder the first load made


def test_packaged_models_decode_pieces_on_one_thread_and_their_yardstick_on_the_default(speech):
    """The packaged models decode short pieces on one thread, two at a time
    (agent/voice/models.py); a measurement's whole decode takes CTranslate2's default, the
    same words either way; a model folder of the user's keeps the default."""
    from agent.voice.models import BASE, TINY, decode_threads
    from agent.voice.stt import Transcriber

    assert decode_threads(TINY) == 1 and decode_threads(BASE) == 1
    assert decode_threads("/models/whisper-small") == 0
    live = Transcriber(TINY).load()
    whole = live.whole_decoder()
    assert live.threads == 1 and live.parallel and whole.threads == 0 and not whole.parallel
    assert whole is not live
    clip = speech("Show me what changed in the build script.")
    assert live.transcribe(clip) == whole.transcribe(clip)
    assert whole.whole_decoder() is whole
    assert Transcriber(TINY, cpu_threads=2).load().threads == 2
