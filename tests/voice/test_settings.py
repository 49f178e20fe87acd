"""The talk key, the speech model and the voice come from config.toml or the environment."""

from agent.voice.settings import VoiceSettings, key_label, voice_settings


def test_defaults_without_a_config():
    assert voice_settings({}, {}) == VoiceSettings("f2", None, None, True)


def test_the_config_file_sets_them_and_the_environment_wins():
    file = {"voice": {"key": "F9", "stt_model": "small.en", "voice": "/voices/amy.onnx", "speak": False}}
    assert voice_settings({}, file) == VoiceSettings("f9", "small.en", "/voices/amy.onnx", False)
    environ = {"DEVAGENT_TALK_KEY": "ctrl+t", "DEVAGENT_STT_MODEL": "/models/tiny", "DEVAGENT_TTS_VOICE": "joe"}
    assert voice_settings(environ, file) == VoiceSettings("ctrl+t", "/models/tiny", "joe", False)


def test_values_of_the_wrong_kind_keep_the_defaults():
    assert voice_settings({}, {"voice": {"key": 9, "speak": "no", "stt_model": ""}}) == VoiceSettings()
    # a key no terminal sends, or one that already has a meaning, from the environment too
    assert voice_settings({"DEVAGENT_TALK_KEY": "f99"}, {}).key == "f2"
    assert voice_settings({"DEVAGENT_TALK_KEY": "a"}, {}).key == "f2"
    assert voice_settings({}, {"voice": "f9"}) == VoiceSettings()


def test_the_file_is_read_from_the_users_config_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    for name in ("DEVAGENT_TALK_KEY", "DEVAGENT_STT_MODEL", "DEVAGENT_TTS_VOICE"):
        monkeypatch.delenv(name, raising=False)
    (tmp_path / "devagent").mkdir()
    (tmp_path / "devagent" / "config.toml").write_text('[voice]\nkey = "f9"\n')
    assert voice_settings().key == "f9"


def test_key_labels():
    assert [key_label(k) for k in ("f2", "f12", "ctrl+t", "ctrl+space")] == ["F2", "F12", "Ctrl+T", "Ctrl+Space"]
