"""The end-pointer: a finished sentence ends the recording sooner, a half-said one waits,
on real speech through the real recorder, VAD and model in real time."""

from __future__ import annotations

import queue
import time

import numpy as np
import pytest

from agent.voice.endpoint import MID_SENTENCE_MS, SENTENCE_END_MS, silence_wait
from tests.voice.words import word_error_rate

VOCABULARY = ["ComfyUIServer", "ComfyUI"]


@pytest.mark.parametrize("text, wait", [
    ("What did we decide about the database migration?", SENTENCE_END_MS),
    ("Open the settings file.", SENTENCE_END_MS),
    ("What is this?", SENTENCE_END_MS),
    ("Open the settings file and", MID_SENTENCE_MS),
    ("Open the settings file and.", MID_SENTENCE_MS),      # Whisper's stop after a trailing word
    ("Run the tests again because.", MID_SENTENCE_MS),
    ("Open the settings file in.", MID_SENTENCE_MS),
    ("Check the notes from Friday, then...", MID_SENTENCE_MS),
    ("Look in the folder,", MID_SENTENCE_MS),
    ("Go into the folder called comfy.", MID_SENTENCE_MS),  # half of ComfyUIServer
    ("Open the ComfyUIServer class.", SENTENCE_END_MS),
    ("show me the commit", 300.0),                          # no telling: the recorder's own
    (None, 300.0),
    ("", 300.0),
])
def test_the_wait_follows_how_the_transcript_ends(text, wait):
    assert silence_wait(text, VOCABULARY, 300.0) == wait


def said(voice, parts: list[str], pause: float) -> np.ndarray:
    from agent.voice.audio import resample

    clips = []
    for part in parts:
        audio, rate = voice.synthesize(part)
        clip = resample(audio, rate, 16000)
        loud = np.nonzero(np.abs(clip) > 0.01)[0]
        clips += [clip[loud[0]:loud[-1] + 1], np.zeros(int(pause * 16000), np.float32)]
    return np.concatenate(clips[:-1])


def record(transcriber, speech: np.ndarray):
    """(the transcript, seconds from the end of speech to the recorder's own stop)."""
    from agent.voice.push_to_talk import PushToTalk, TranscriptReady
    from agent.voice.recorder import Recorder, WavSource

    events: queue.Queue = queue.Queue()
    recorder = Recorder(WavSource(samples=speech, lead_silence=0.5, noise=0.002))
    ptt = PushToTalk(recorder, transcriber, events.put, vocabulary=VOCABULARY)
    stopped: list[float] = []
    auto_stop = recorder.on_auto_stop
    recorder.on_auto_stop = lambda reason: (stopped.append(time.monotonic()), auto_stop(reason))
    started = time.monotonic()
    ptt.toggle()
    end_of_speech = started + 0.5 + len(speech) / 16000
    while True:
        event = events.get(timeout=60)
        if isinstance(event, TranscriptReady):
            assert recorder.stopped_by == "silence"
            return event.text, stopped[0] - end_of_speech


@pytest.mark.parametrize("parts", [
    ["Open the settings file and", "show me what changed in the build script."],
    ["Run the tests again because", "the last run timed out."],
    ["Go into the folder called comfy", "UI and run the server."],
])
def test_a_pause_to_think_mid_sentence_does_not_end_the_recording(voice, transcriber, parts):
    # 600 ms, twice the old fixed wait: the recording went on only past pauses under 300 ms
    text, _stop = record(transcriber, said(voice, parts, 0.6))
    wrong, count = word_error_rate(" ".join(parts), text)
    assert wrong <= 1, text  # "and" is heard "in" at times; the second clause must be there
    assert "".join(parts[1].split()[-2:]).lower().strip(".") in "".join(text.lower().split()).replace(".", "")


def test_the_pause_at_a_comma_does_not_end_the_recording(voice, transcriber):
    # Piper pauses 340 ms at this comma, and Whisper writes the clause before it with a
    # full stop: the wait after a finished sentence has to outlast it
    sentence = "Look in the comfy UI folder, then run the tests."
    text, _stop = record(transcriber, said(voice, [sentence], 0.0))
    assert "tests" in text.lower(), text


def test_a_finished_question_ends_sooner_than_a_pause_to_think(voice, transcriber):
    question = said(voice, ["What did we decide about the database migration?"], 0.0)
    text, stop = record(transcriber, question)
    assert word_error_rate("What did we decide about the database migration?", text)[0] == 0
    # the wait after a finished sentence, and the VAD's lag; not the mid-sentence wait
    assert stop < (SENTENCE_END_MS + MID_SENTENCE_MS) / 2000, stop
