"""The speaker with the real voice, playing in real time into memory instead of a card.

The same callback path as a sounddevice stream; the device round trip itself is in
test_device.py.
"""

import functools
import time

import numpy as np
import pytest

from agent.voice.audio import resample
from agent.voice.speakable import ON_SCREEN
from agent.voice.tts import Speaker, open_buffer_stream
from tests.voice.words import word_error_rate, words

SENTENCE = "Run the build again and tell me about the warnings."


@pytest.fixture
def speaker(voice):
    speaker = Speaker(voice, open_stream=open_buffer_stream).load()
    yield speaker
    speaker.close()


@pytest.fixture
def fast_speaker(voice):
    """Plays three times faster than real time, for tests about what is said, not when."""
    speaker = Speaker(voice, open_stream=functools.partial(open_buffer_stream, speed=3.0)).load()
    yield speaker
    speaker.close()


def heard(speaker, transcriber, start: int = 0) -> str:
    audio = speaker.stream.audio[start:]
    return transcriber.transcribe(resample(audio, speaker.stream.rate, 16000))


def wait_until(predicate, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.005)


def loud_lately(audio: np.ndarray) -> bool:
    """Whether the last 2048 samples played hold speech, not the silence before it."""
    return len(audio) >= 2048 and np.abs(audio[-2048:]).max() > 1000


def test_what_is_spoken_can_be_understood(fast_speaker, transcriber):
    speaker = fast_speaker
    speaker.speak(SENTENCE)
    assert speaker.speaking
    assert speaker.wait(30)
    assert words(heard(speaker, transcriber)) == words(SENTENCE)


def test_speech_starts_with_the_first_finished_sentence(speaker, transcriber):
    speaker.feed("On it")
    time.sleep(0.3)
    assert speaker.started_at is None  # "On it" might go on: nothing to say yet
    speaker.feed(". Let me look at the")
    wait_until(lambda: speaker.started_at is not None)
    # The reply is still streaming and its second sentence unfinished.
    speaker.feed(" build output.")
    speaker.flush()
    assert speaker.wait(30)
    assert words(heard(speaker, transcriber)) == words("On it. Let me look at the build output.")


def test_a_reply_starts_at_its_first_clause_while_the_sentence_streams(speaker, transcriber):
    speaker.feed("I checked the tests on the main branch, and one")
    # the sentence is far from its end, but its first clause is complete: it is said now
    wait_until(lambda: speaker.started_at is not None)
    speaker.feed(" of them failed. Run the build again, and tell me.")
    speaker.flush()
    assert speaker.wait(30)
    said = "I checked the tests on the main branch, and one of them failed. Run the build again, and tell me."
    text = heard(speaker, transcriber)
    assert word_error_rate(said, text)[0] <= 2, text  # all of it, in order (Whisper slips on a word)


def test_a_first_clause_in_code_or_a_table_stays_on_the_screen(fast_speaker, transcriber):
    speaker = fast_speaker
    for delta in ["| Test, result | time |\n|---|---|\n| orders, cart | 2 s |\n",
                  "```\nassert total, message\n```\n", "The build failed again, and the last test is red."]:
        speaker.feed(delta)
    speaker.flush()
    assert speaker.wait(30)
    text = heard(speaker, transcriber)
    assert not {"result", "cart", "assert", "message"} & set(words(text)), text
    assert word_error_rate(f"The build failed again, and the last test is red. {ON_SCREEN}", text)[0] <= 2, text


def test_stop_silences_at_once_and_drops_the_queue(speaker):
    speaker.speak("This answer is long. It has several sentences. Each one takes a while. "
                  "None of them should be heard after the stop.")
    wait_until(lambda: speaker.started_at is not None)
    wait_until(lambda: loud_lately(speaker.stream.audio))
    stopped = time.monotonic()
    speaker.stop()
    assert not speaker.speaking
    time.sleep(1.0)
    audio = speaker.stream.audio
    cut = speaker.stream.position_at(stopped)
    assert np.abs(audio[cut - 2048:cut]).max() > 1000  # it was talking
    # At most the block being played when stop() came; nothing after it.
    assert not np.any(audio[cut + 2 * speaker.blocksize:])


def test_a_reply_talked_over_stays_silent_but_the_next_one_is_spoken(speaker, transcriber):
    speaker.feed("First reply, first sentence. And")
    wait_until(lambda: speaker.started_at is not None)
    speaker.stop()
    start = len(speaker.stream.audio)
    speaker.feed(" still the first reply. It goes on.")
    speaker.flush()
    time.sleep(0.8)
    assert not speaker.speaking
    assert not np.any(speaker.stream.audio[start + 2 * speaker.blocksize:])
    start = len(speaker.stream.audio)
    speaker.feed("Second reply. ")
    speaker.flush()
    assert speaker.wait(30)
    assert words(heard(speaker, transcriber, start)) == words("Second reply.")


def test_muted_says_nothing_and_muting_stops_speech(speaker):
    speaker.speak("This is a sentence that takes a couple of seconds to say.")
    wait_until(lambda: speaker.started_at is not None)
    assert speaker.toggle_mute() is True
    assert not speaker.speaking
    speaker.speak("Nobody hears this.")
    assert not speaker.speaking
    start = len(speaker.stream.audio)
    time.sleep(0.5)
    assert not np.any(speaker.stream.audio[start + 2 * speaker.blocksize:])
    assert speaker.toggle_mute() is False
    speaker.speak("Back.")
    assert speaker.speaking and speaker.wait(20)


def test_code_goes_to_the_screen_not_the_speaker(fast_speaker, transcriber):
    speaker = fast_speaker
    for delta in ["Here is ", "the fix:\n```py", "thon\nrun_migrations(database)\n```\n",
                  "It passes now."]:
        speaker.feed(delta)
    speaker.flush()
    assert speaker.wait(30)
    text = heard(speaker, transcriber)
    assert "migration" not in text.lower()
    assert words(text) == words(f"Here is the fix: It passes now. {ON_SCREEN}")


def test_an_output_that_will_not_open_never_raises_into_the_caller(voice):
    def broken(*args, **kwargs):
        raise OSError("Error querying device -1")

    speaker = Speaker(voice, open_stream=broken)
    speaker.speak("Hello.")
    speaker.feed("Hello. There")
    speaker.flush()
    assert speaker.error == "the speaker would not open: Error querying device -1"
    assert not speaker.speaking
    with pytest.raises(OSError):
        speaker.load()  # a loader running in a worker does hear about it
