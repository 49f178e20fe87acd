"""The voice made a stretch at a time (agent/voice/piper_parts.py): the same sentence as
Piper makes it whole, its first words out before the rest is made, and a voice whose
stretches would differ made whole."""

import itertools
import time

import numpy as np
import pytest

import agent.voice.piper_parts as piper_parts
from agent.voice.synth import FIRST_FRAMES, Voice, default_voice, load_piper
from agent.voice.tts import Speaker, open_buffer_stream

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


def test_the_speaker_plays_the_stretches_back_to_back(voice):
    """What is heard is the sentence as made, sample for sample: no gap where one stretch
    ends and the next begins."""
    speaker = Speaker(voice, open_stream=open_buffer_stream).load()
    try:
        sentence = "The newest commit on main prunes old checkpoints, so the limit holds."
        made = np.concatenate(list(voice.stream(sentence)))
        speaker.speak(sentence)
        assert speaker.wait(30)
        played = speaker.stream.audio
    finally:
        speaker.close()
    loud = np.nonzero(played)[0]
    heard = played[loud[0]:loud[-1] + 1]
    inside = np.nonzero(made)[0]
    assert np.array_equal(heard, made[inside[0]:inside[-1] + 1])
