"""The larger packaged model: loaded from its PyPI packages without the hub, chosen by a
measurement made once and kept, and named in the status line."""

from __future__ import annotations

import json

import pytest

from agent.voice.choice import TARGET_RATIO, choose_model, machine_key
from agent.voice.models import BASE, TINY, installed, model_source
from tests.voice.words import words

PLAIN = "Please open the settings file and show me what changed."


def test_both_packaged_models_are_installed(monkeypatch, tmp_path):
    from pathlib import Path

    assert installed(TINY) and installed(BASE)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    source = model_source(BASE)
    # the two halves of the split model.bin, joined: Whisper base is 72.6 M parameters
    folder = Path(source.path)
    assert source.files is None and folder.is_relative_to(tmp_path)
    assert (folder / "model.bin").stat().st_size > 140_000_000
    assert all((folder / name).is_file() for name in ("config.json", "vocabulary.json", "tokenizer.json"))
    assert model_source(BASE) == source  # joined once
    # a cache that cannot be written: joined in memory instead
    monkeypatch.setenv("XDG_CACHE_HOME", "/proc/no-cache-here")
    source = model_source(BASE)
    assert source.files is not None and len(source.files["model.bin"]) > 140_000_000
    assert {"config.json", "vocabulary.json", "tokenizer.json"} <= set(source.files)


def test_the_base_model_loads_from_its_packages_and_hears(speech, monkeypatch, tmp_path):
    from agent.voice.stt import Transcriber

    # no hub: a download would need these, and a cache in a fresh folder
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    base = Transcriber(BASE).load()
    assert base.label == "base"
    assert words(base.transcribe(speech(PLAIN))) == words(PLAIN)
    assert words(base.transcribe_segment(speech(PLAIN))) == words(PLAIN)
    assert not (tmp_path / "hf").exists()


def test_the_choice_is_measured_once_then_read(tmp_path, voice):
    from agent.voice.stt import Transcriber

    loaded: list[str] = []

    def make(name):
        loaded.append(name)
        return Transcriber(name)

    path = tmp_path / "cache" / "speech-model.json"
    first = choose_model(make, lambda: voice, path=path)
    assert first.measured_now and loaded[0] == TINY
    assert set(first.ratios) <= {TINY, BASE} and TINY in first.ratios
    # the largest within the ratio, tiny.en when none is
    within = [name for name in (TINY, BASE) if first.ratios.get(name, 9) <= TARGET_RATIO]
    assert first.model == (within[-1] if within else TINY)
    saved = json.loads(path.read_text())
    assert saved["key"] == machine_key() and saved["model"] == first.model

    loaded.clear()
    again = choose_model(make, lambda: voice, path=path)
    assert not again.measured_now and loaded == [] and again.model == first.model

    # another machine (or another version of the decoder) measures again
    path.write_text(json.dumps({**saved, "key": "v0 cpus=64"}))
    assert choose_model(make, lambda: voice, path=path).measured_now


@pytest.mark.anyio
async def test_the_status_line_names_the_model(tmp_path, transcriber, monkeypatch):
    from agent.settings.config import AgentConfig
    from agent.voice.controller import VoiceController
    from agent.voice.push_to_talk import PushToTalk
    from agent.voice.recorder import Recorder, WavSource
    from agent.voice.stack import VoiceStack
    from memory.store import MemoryStore
    from tests.voice.test_controller import voice_line, wait_for
    from tui.app import DevAgentApp

    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    repo = tmp_path / "repo"
    repo.mkdir()

    def factory(repo_path, sink):
        import numpy as np

        recorder = Recorder(WavSource(samples=np.zeros(1600, np.float32)))
        return VoiceStack(PushToTalk(recorder, transcriber, sink), None, None, model="base")

    app = DevAgentApp(repo, AgentConfig(thinking="off"), store=MemoryStore.for_repository(repo),
                      voice=VoiceController(stack_factory=factory))
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: voice_line(app) == "voice: ready (F2) base", what="voice to load")


@pytest.fixture
def anyio_backend():
    return "asyncio"


def test_the_model_setting_and_its_other_name():
    from agent.voice.settings import voice_settings

    assert voice_settings({}, {"voice": {"model": "base"}}).stt_model == "base"
    assert voice_settings({}, {"voice": {"stt_model": "tiny.en", "model": "base"}}).stt_model == "tiny.en"
    assert voice_settings({"DEVAGENT_STT_MODEL": "base"}, {"voice": {"model": "tiny.en"}}).stt_model == "base"


def test_the_command_line_chooses_the_model():
    from tui.cli import app_parser

    assert app_parser().parse_args(["--stt-model", "base"]).stt_model == "base"
    assert app_parser().parse_args([]).stt_model is None
