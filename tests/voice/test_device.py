"""A real audio device: a private PulseAudio null sink, its monitor as the microphone."""

import json

import pytest

from tests.voice.conftest import heard_as_said, run_python

SENTENCE = "Show me the latest commit on the main branch."


def scenario(pulse, name: str, *args: str) -> dict:
    result = run_python("import runpy, sys; sys.argv[0] = 'device_check';"
                        " runpy.run_module('tests.voice.device_check', run_name='__main__')",
                        env=pulse.env, args=[name, *args], timeout=180)
    assert result.returncode == 0, result.stderr[-2000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


@pytest.fixture
def spoken_command(speech, tmp_path):
    """The command with half a second of quiet first, as a user takes a moment after
    pressing the key; a player's start-up hiccup then lands in silence, not on "Show"."""
    import numpy as np

    from agent.voice.audio import write_wav

    path = tmp_path / "command.wav"
    write_wav(path, np.concatenate([np.zeros(8000, np.float32), speech(SENTENCE)]), 16000)
    return path


def test_the_devices_are_visible_to_portaudio(pulse):
    result = run_python("import sounddevice as sd; d = sd.query_devices(kind='input');"
                        " print(d['name'], d['max_input_channels'])", env=pulse.env)
    assert result.returncode == 0, result.stderr
    assert int(result.stdout.split()[-1]) >= 1


def test_speech_played_into_the_device_is_recorded_and_transcribed(pulse, spoken_command):
    result = scenario(pulse, "record_played_file", str(spoken_command))
    assert result["auto_stopped"] and result["stopped_by"] == "silence", result
    assert heard_as_said(result["text"], SENTENCE), result


def test_the_speaker_is_heard_and_falls_silent_on_stop(pulse):
    long_text = ("This is a long answer that goes on for quite a while. It explains the build "
                 "in detail. It lists every warning one by one. Then it reads them all again.")
    result = scenario(pulse, "speaker_round_trip", SENTENCE, long_text)
    assert result["finished"] and result["error"] is None
    assert heard_as_said(result["text"], SENTENCE), result
    assert result["loud_before_stop"] > 0.02
    assert result["loud_after_stop"] < 0.002
    assert not result["speaking_after_stop"]


def test_a_loaded_speaker_plays_at_once(pulse):
    """A stream just started on an idle PulseAudio sink takes a few blocks, then none
    until the sink wakes (up to 2 s later); a first sentence spoken then waited for it."""
    result = scenario(pulse, "speaker_plays_once_loaded")
    assert result["error"] is None and result["callbacks"] > 10, result
    assert result["longest_gap"] < 0.2, result


def test_the_talk_key_silences_the_voice_and_records_the_user(pulse, spoken_command):
    long_text = ("Here is a long explanation of the build that nobody wants to hear to the end. "
                 "It goes on and on about every project in the solution.")
    result = scenario(pulse, "talk_over_the_speaker", str(spoken_command), long_text)
    assert result["was_speaking"] and result["stopped_speaking"], result
    assert 0 <= result["quiet_after_toggle"] < 0.01, result
    assert heard_as_said(result["text"] or "", SENTENCE), result
    assert result["idle"], result
    assert not result["muted_speaking"] and result["unmuted_speaking"], result


SOURCE = "class ReviewOrchestrator {}\n"


@pytest.fixture
def spoken_decision(speech, tmp_path):
    """spoken_decision(words) -> (WAV of them after half a second of quiet, a repository
    with the file the scripted change renames in)."""
    import numpy as np

    from agent.voice.audio import write_wav

    def make(words: str):
        path = tmp_path / "decision.wav"
        write_wav(path, np.concatenate([np.zeros(8000, np.float32), speech(words)]), 16000)
        repo = tmp_path / "repo"
        repo.mkdir()
        (repo / "Review.cs").write_text(SOURCE)
        return path, repo

    return make


def test_apply_spoken_into_the_device_applies_the_held_change(pulse, spoken_decision):
    wav, repo = spoken_decision("Apply.")
    result = scenario(pulse, "spoken_apply", str(wav), str(repo))
    assert result["error"] is None and result["held"] and result["recording"], result
    assert result["text_while_held"] == SOURCE, result
    assert result["turn_ended"] and not result["queued"], result
    assert result["text_after"] == "class ReviewCoordinator {}\n", result
    assert (repo / "Review.cs").read_text() == "class ReviewCoordinator {}\n"
    assert result["tool_result"].startswith("The user applied"), result


def test_no_spoken_into_the_device_keeps_the_file(pulse, spoken_decision):
    wav, repo = spoken_decision("No.")
    result = scenario(pulse, "spoken_apply", str(wav), str(repo))
    assert result["error"] is None and result["held"] and result["recording"], result
    assert result["turn_ended"] and not result["queued"], result
    assert result["text_after"] == SOURCE, result
    assert result["is_error"] and "kept" in result["tool_result"], result
