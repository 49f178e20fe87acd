"""The voice made a stretch at a time (agent/voice/piper_parts.py): the same sentence as
Piper makes it whole, its first words out before the rest is made, and a voice whose
stretches would differ made whole."""

import itertools
import time

import numpy as np
import pytest

import agent.voice.piper_parts as piper_parts
from agent.voice.synth import FIRST_FRAMES, Voice, default_voice, load_piper
from agent.voice.tts import INAUDIBLE, LEAD_KEPT, Speaker, open_buffer_stream, without_lead

REPLY = "The newest commit on main prunes old checkpoints. Dana merged it this morning!"


@pytest.fixture(scope="module")
def whole_piper():
    """The default voice as Piper loads it: one session, the sentence made in one run."""
    return load_piper(*default_voice())


def piper_whole(piper, text: str, normalize: bool) -> list[np.ndarray]:
    from piper import SynthesisConfig

    config = SynthesisConfig(noise_scale=0.0, noise_w_scale=0.0, normalize_audio=normalize)
    return [chunk.audio_float_array for chunk in piper.synthesize(text, syn_config=config)]


def test_a_sentence_made_a_stretch_at_a_time_is_the_sentence_made_whole(voice, whole_piper):
    assert voice.parts is not None  # the default voice cuts
    pieces = list(voice.stream(REPLY))
    hop = voice.parts.hop
    assert len(pieces[0]) < len(piper_whole(whole_piper, "The newest commit on main prunes old checkpoints.", False)[0])
    made = np.concatenate(pieces).astype(np.float32)
    # every sentence at one gain, so none is louder for a quiet peak of its own
    whole = np.concatenate([np.clip(audio * voice.gain, -1, 1) * 32767
                            for audio in piper_whole(whole_piper, REPLY, False)])
    assert made.shape == whole.shape and len(made) % hop == 0
    assert np.max(np.abs(made - whole)) <= 2, np.max(np.abs(made - whole))  # int16 steps: rounding only
    assert 0.5 * 32767 < np.max(np.abs(made)) < 32767  # loud, and not clipped


def test_a_recording_of_the_voice_is_as_piper_makes_it(voice, whole_piper):
    """Files and test recordings keep each sentence at full scale, as Piper makes them."""
    audio, rate = voice.synthesize(REPLY)
    expected = np.concatenate([np.clip(a * 32767, -32767, 32767) for a in piper_whole(whole_piper, REPLY, True)])
    assert rate == 22050 and audio.shape == expected.shape
    assert np.max(np.abs(audio.astype(np.float32) - expected)) <= 2


class Clock:
    """Each stretch takes `step` seconds to make, whatever this machine does."""

    def __init__(self, step: float) -> None:
        self.ticks = itertools.count()
        self.step = step

    def __call__(self) -> float:
        return next(self.ticks) * self.step  # read before and after each stretch


def test_the_first_words_go_out_when_the_rest_can_follow_without_a_gap(voice):
    sentence = "The newest commit on main prunes old checkpoints"
    voice.clock = Clock(0.001)  # 0.28 s of speech in 1 ms
    try:
        pieces = list(voice.stream(sentence))
    finally:
        voice.clock = time.perf_counter
    assert len(pieces[0]) == FIRST_FRAMES * voice.parts.hop  # 0.28 s, the rest made meanwhile
    assert len(pieces) > 2


def test_on_a_slow_machine_more_of_the_sentence_is_made_before_it_plays(voice):
    sentence = "The newest commit on main prunes old checkpoints"
    everything = sum(len(piece) for piece in voice.stream(sentence))
    voice.clock = Clock(0.2)  # 0.28 s of speech in 0.2 s: the rest would come too late
    try:
        pieces = list(voice.stream(sentence))
    finally:
        voice.clock = time.perf_counter
    assert len(pieces[0]) > FIRST_FRAMES * voice.parts.hop
    assert sum(len(piece) for piece in pieces) == everything


def test_a_voice_whose_stretches_would_differ_is_made_whole(monkeypatch, whole_piper):
    monkeypatch.setattr(piper_parts, "FLOW_CONTEXT", 1)  # too little context: the check at load fails
    monkeypatch.setattr(piper_parts, "VOCODER_CONTEXT", 1)
    voice = Voice(variation=0.0).load()
    assert voice.parts is None
    pieces = list(voice.stream(REPLY))
    expected = piper_whole(whole_piper, REPLY, True)  # Piper's own: each sentence at full scale
    assert len(pieces) == len(expected) == 2
    for piece, audio in zip(pieces, expected):
        assert np.max(np.abs(piece.astype(np.float32) - np.clip(audio * 32767, -32767, 32767))) <= 2


def played_since(speaker, start: int = 0) -> np.ndarray:
    """What the speaker played from sample `start` on, from its first sound to its last."""
    played = speaker.stream.audio[start:]
    loud = np.nonzero(played)[0]
    return played[loud[0]:loud[-1] + 1]


def between_sounds(audio: np.ndarray) -> np.ndarray:
    inside = np.nonzero(audio)[0]
    return audio[inside[0]:inside[-1] + 1]


def test_the_speaker_plays_the_stretches_back_to_back(voice):
    """What is heard is the sentence as made, sample for sample: no gap where one stretch
    ends and the next begins."""
    speaker = Speaker(voice, open_stream=open_buffer_stream).load()
    try:
        sentence = "The newest commit on main prunes old checkpoints, so the limit holds."
        made = np.concatenate(list(voice.stream(sentence)))
        speaker.speak(sentence)
        assert speaker.wait(30)
        assert np.array_equal(played_since(speaker), between_sounds(without_lead(made, voice.sample_rate)))
    finally:
        speaker.close()


def test_speech_starts_at_its_first_sound_and_a_pause_between_sentences_stays(voice):
    """Piper begins each sentence with 30-35 ms of silence: dead air when the voice starts
    from silence, the pause between two sentences when one follows another."""
    rate = voice.sample_rate
    first, second = "The build is green.", "Dana merged it this morning."
    made_first = np.concatenate(list(voice.stream(first)))
    made_second = np.concatenate(list(voice.stream(second)))
    lead = np.flatnonzero(np.abs(made_first.astype(np.int32)) > INAUDIBLE)[0]
    assert lead > 0.025 * rate  # what there is to leave out
    speaker = Speaker(voice, open_stream=open_buffer_stream).load()
    try:
        start = len(speaker.stream.audio)
        speaker.speak(f"{first} {second}")
        assert speaker.wait(30)
        heard = played_since(speaker, start)
    finally:
        speaker.close()
    kept = made_first[lead - int(LEAD_KEPT * rate):]
    assert np.array_equal(heard, between_sounds(np.concatenate([kept, made_second])))
    # the first sound is at most LEAD_KEPT after the speech begins
    assert np.flatnonzero(np.abs(heard.astype(np.int32)) > INAUDIBLE)[0] <= LEAD_KEPT * rate + 1


def test_audio_with_nothing_audible_has_nothing_to_play():
    silence = np.zeros(2205, dtype=np.int16) + 3
    assert len(without_lead(silence, 22050)) == 0
    click = silence.copy()
    click[1000] = 2000
    assert len(without_lead(click, 22050)) == 2205 - 1000 + 220


def test_the_cut_is_made_once_and_read_from_the_cache_after(tmp_path, monkeypatch):
    import agent.voice.models as models

    monkeypatch.setattr(models, "joined_models_dir", lambda: tmp_path / "models")
    first = Voice(variation=0.0).load()
    assert first.parts is not None
    (folder,) = (tmp_path / "models").iterdir()
    assert sorted(path.name for path in folder.iterdir()) == ["encoder.onnx", "flow.onnx", "names.json", "vocoder.onnx"]

    def no_cutting(model):
        raise AssertionError("cut again")

    monkeypatch.setattr(piper_parts, "_cut", no_cutting)
    again = Voice(variation=0.0).load()
    assert again.parts is not None and again.gain == first.gain
    assert np.array_equal(np.concatenate(list(again.stream(REPLY))), np.concatenate(list(first.stream(REPLY))))


def test_where_the_cache_cannot_be_written_the_voice_is_cut_in_memory(tmp_path, monkeypatch):
    import agent.voice.models as models

    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")  # no folder can be made under it, whoever runs this
    monkeypatch.setattr(models, "joined_models_dir", lambda: blocked / "models")
    voice = Voice(variation=0.0).load()
    assert voice.parts is not None
    assert blocked.read_text() == "not a folder"
    assert len(np.concatenate(list(voice.stream("On it.")))) > 0
