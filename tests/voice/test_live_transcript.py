"""The transcript made during the recording, piece by piece, with the real Whisper model.

Recordings are the Piper voice saying several sentences with short pauses between them
(shorter than the recorder's silence wait, so the recording goes on), fed to the
recorder through the same callback a microphone uses.
"""

import queue
import time
from types import SimpleNamespace

import numpy as np

from agent.voice.live import LiveTranscript
from agent.voice.push_to_talk import (
    PttState,
    PushToTalk,
    TranscriptConfirmed,
    TranscriptReady,
    TranscriptWithdrawn,
    VoiceUnavailable,
)
from agent.voice.recorder import Recorder, WavSource
from agent.voice.stt import Transcriber
from tests.voice.words import word_error_rate, words

RECORDINGS = [
    ["Open the settings file.", "Then show me what changed in the build script.",
     "After that run the tests and tell me which ones failed."],
    ["What did we decide about the database migration on Friday?",
     "I think we said to wait for the review.", "Check the notes and remind me."],
    ["Read the README.", "Is the memory pane documented?",
     "If it is not then write a short section about it."],
    ["Fix warning CS1591 in the ReviewOrchestrator class.", "Then build it again."],
]
VOCABULARY = ["ReviewOrchestrator", "CS1591", "README"]
PAUSE = 0.15


def trimmed(clip: np.ndarray) -> np.ndarray:
    loud = np.nonzero(np.abs(clip) > 0.01)[0]
    return clip[loud[0]:loud[-1] + 1]


def recording(speech, sentences: list[str]) -> np.ndarray:
    gap = np.zeros(int(PAUSE * 16000), np.float32)
    parts = []
    for sentence in sentences:
        parts += [trimmed(speech(sentence)), gap]
    return np.concatenate(parts[:-1])


class CountingTranscriber(Transcriber):
    """The real model; remembers when each piece went to the decoder and how long it was."""

    def __init__(self, model) -> None:
        super().__init__()
        self._model = model._model
        self.device_used = model.device_used
        self.calls: list[tuple[float, float]] = []  # (monotonic start, seconds of audio)

    def transcribe_segment(self, audio, vocabulary=()):
        # a piece that falls back to the whole pipeline is still one piece
        self.calls.append((time.monotonic(), len(audio) / 16000))
        return super().transcribe_segment(audio, vocabulary)


def listen(transcriber, audio, *, speed=4.0, vocabulary=(), stop_at=None, auto_stop=True):
    """Record `audio` through push-to-talk; (TranscriptReady, the live transcript's `tail` and
    `pieces_decoded` as they were when it came, when the recording stopped).

    A tentative transcript (an early end while the recorder listens on) is the answer only
    once it is confirmed: speech after it withdraws it, and the recording goes on."""
    events: queue.Queue = queue.Queue()
    recorder = Recorder(WavSource(samples=audio, speed=speed, lead_silence=0.3, noise=0.002), auto_stop=auto_stop)
    ptt = PushToTalk(recorder, transcriber, events.put, vocabulary=vocabulary)
    ptt.toggle()
    stopped = None
    if stop_at is not None:
        while recorder.elapsed < stop_at:
            time.sleep(0.005)
        ptt.toggle()
    held = None
    while True:
        event = events.get(timeout=120)
        if stopped is None and getattr(event, "state", None) is PttState.TRANSCRIBING:
            stopped = time.monotonic()
        if isinstance(event, TranscriptReady):
            live = SimpleNamespace(tail=ptt.live.tail, pieces_decoded=ptt.live.pieces_decoded)
            if not event.tentative:
                return event, live, stopped
            held = event, live
        elif isinstance(event, TranscriptWithdrawn):
            held = None
        elif isinstance(event, TranscriptConfirmed) and held is not None:
            return held[0], held[1], stopped


def test_the_live_transcript_says_what_one_whole_transcription_says(speech, transcriber):
    against_whole = against_script = whole_against_script = total = 0
    for sentences in RECORDINGS:
        audio = recording(speech, sentences)
        whole = transcriber.transcribe(audio, VOCABULARY)
        ready, live, _ = listen(transcriber, audio, vocabulary=VOCABULARY)
        assert ready.stopped_by == "silence" and ready.early
        assert live.pieces_decoded >= 2, "the recording was decoded whole, not in pieces"
        wrong, count = word_error_rate(whole, ready.text)
        assert wrong <= 4, (ready.text, whole)
        against_whole += wrong
        total += count
        script = " ".join(sentences)
        against_script += word_error_rate(script, ready.text)[0]
        whole_against_script += word_error_rate(script, whole)[0]
    # the words differ from one whole transcription in a few places at most...
    assert against_whole / total <= 0.08, f"word error rate {against_whole}/{total} against whole transcriptions"
    # ...and where they differ, the pieces are not the worse hearing of what was said
    assert against_script <= whole_against_script + 1, (against_script, whole_against_script)


def test_after_the_speech_ends_only_the_last_sentence_is_left_to_decode(speech, transcriber):
    sentences = RECORDINGS[0]
    audio = recording(speech, sentences)
    last = len(trimmed(speech(sentences[-1]))) / 16000
    whole = transcriber.transcribe(audio)
    # the talk key the moment the speech ends: the last sentence had no pause after it yet
    # (no stop by silence here: the last word's fading end could end it as the key comes)
    ready, live, _ = listen(transcriber, audio, stop_at=0.3 + len(audio) / 16000, auto_stop=False)
    assert ready.stopped_by == "key"
    # where the pieces were cut depends on the machine's load, and a cut can change a word's
    # ending ("tests", "test"): a few words of twenty, never a lost sentence
    assert word_error_rate(whole, ready.text)[0] <= 3, (ready.text, whole)
    assert 0 < live.tail / 16000 <= last + 0.3
    # stopped by the silence wait, the last piece was on its way at the first short pause
    ready, live, _ = listen(transcriber, audio)
    assert ready.stopped_by == "silence"
    assert word_error_rate(whole, ready.text)[0] <= 3, (ready.text, whole)
    assert live.tail == 0 and live.pieces_decoded >= 2


def test_the_talk_key_in_mid_sentence_keeps_every_word_heard(speech, transcriber):
    sentences = RECORDINGS[1]
    audio = recording(speech, sentences)
    # stop during the third sentence: the first two were committed, the tail is decoded now
    cut = len(recording(speech, sentences[:2])) / 16000 + 0.3 + 0.8
    ready, _live, _ = listen(transcriber, audio, stop_at=cut)
    assert ready.stopped_by == "key" and ready.early
    heard = ready.text
    whole = transcriber.transcribe(audio[:int((cut - 0.3) * 16000)])
    wrong, count = word_error_rate(whole, heard)
    assert wrong <= 2, (heard, whole)
    assert words(heard)[:len(words(sentences[0]))] == words(sentences[0])
    assert "check" in words(heard) or "notes" in words(heard) or len(words(heard)) > 15


def test_a_discarded_recording_leaves_nothing_in_the_next(speech, transcriber):
    events: queue.Queue = queue.Queue()
    first = recording(speech, RECORDINGS[0])
    second = recording(speech, ["Show me the latest commit.", "Only the title please."])
    recorder = Recorder(WavSource(samples=first, speed=4.0, lead_silence=0.3, noise=0.002))
    ptt = PushToTalk(recorder, transcriber, events.put)
    ptt.toggle()
    while ptt.live.pieces_decoded == 0:  # a piece of the first recording is in
        time.sleep(0.01)
    assert ptt.escape()
    recorder.source = WavSource(samples=second, speed=4.0, lead_silence=0.3, noise=0.002)
    ptt.toggle()
    while True:
        event = events.get(timeout=120)
        if isinstance(event, TranscriptReady):
            break
    assert words(event.text) == words("Show me the latest commit. Only the title please.")


class BrokenTranscriber(Transcriber):
    def __init__(self, model) -> None:
        super().__init__()
        self._model = model._model

    def transcribe_segment(self, audio, vocabulary=()):
        raise RuntimeError("the decoder ran out of memory")


def test_a_failing_decoder_turns_voice_off_with_a_reason(speech, transcriber):
    events: queue.Queue = queue.Queue()
    audio = recording(speech, RECORDINGS[2])
    recorder = Recorder(WavSource(samples=audio, speed=4.0, lead_silence=0.3, noise=0.002))
    ptt = PushToTalk(recorder, BrokenTranscriber(transcriber), events.put)
    ptt.toggle()
    while True:
        event = events.get(timeout=120)
        if isinstance(event, VoiceUnavailable):
            break
        assert not isinstance(event, TranscriptReady)
    assert event.reason.startswith("speech recognition failed")
    assert "out of memory" in event.reason
    assert ptt.state is PttState.UNAVAILABLE and ptt.wait_idle(5)


def test_a_piece_decodes_like_a_whole_clip(speech, transcriber):
    for sentence in ["Open the settings file.", "Yes.", "Then show me what changed in the build script.",
                     "After that run the tests and tell me which ones failed."]:
        clip = speech(sentence)
        piece, whole = transcriber.transcribe_segment(clip), transcriber.transcribe(clip)
        assert word_error_rate(whole, piece)[0] <= 2, (piece, whole)  # "ones" for "one's": 2 words
    assert transcriber.transcribe_segment(np.zeros(16000, np.float32)) == ""
    # past the 30 s window it is the ordinary transcription
    long = np.concatenate([speech("Open the settings file."), np.zeros(30 * 16000, np.float32)])
    assert words(transcriber.transcribe_segment(long)) == words("Open the settings file.")


def test_pieces_wait_for_a_second_of_speech_and_a_busy_decoder_merges_them(speech, transcriber):
    counting = CountingTranscriber(transcriber)
    live = LiveTranscript(counting)
    live.start()
    sentences = RECORDINGS[0]
    audio = recording(speech, sentences)
    gap = int(PAUSE * 16000)
    first = len(trimmed(speech(sentences[0]))) + gap // 2
    second = len(recording(speech, sentences[:2])) + gap // 2
    live.pause(8000, audio)          # half a second in: too short to be a piece alone
    assert not live.began
    live.pause(first, audio)         # the first sentence goes to the decoder
    assert live.began
    while not counting.calls:
        time.sleep(0.001)
    live.pause(second, audio)        # while it decodes, the second pause and the end
    text = live.finish(audio)        # arrive: they make one piece, not two
    assert [round(seconds * 16000) for _, seconds in counting.calls] == [first, len(audio) - first]
    assert word_error_rate(transcriber.transcribe(audio), text)[0] <= 2, text
    assert live.finish(audio) == text  # nothing left: no decoding, the same text
    assert len(counting.calls) == 2


def test_a_piece_without_speech_is_not_decoded(speech, transcriber):
    counting = CountingTranscriber(transcriber)
    audio = recording(speech, RECORDINGS[3])
    # the recorder heard speech only in the first two seconds
    live = LiveTranscript(counting, speech_frames=lambda start, end: 40 if start < 32000 else 1)
    live.start()
    live.pause(32000, audio)
    while not counting.calls:
        time.sleep(0.001)
    text = live.finish(audio)
    assert [round(seconds * 16000) for _, seconds in counting.calls] == [32000]
    assert words(text) == words(transcriber.transcribe_segment(audio[:32000]))


def test_a_peek_at_the_first_quiet_frame_is_the_piece_when_the_pause_follows(speech, transcriber):
    # The last piece is decoded from the first silent frame on, so the end-pointer has its
    # text sooner; the pause that follows takes that decode as the piece
    counting = CountingTranscriber(transcriber)
    said = trimmed(speech("Open the settings file and show me what changed."))
    audio = np.concatenate([said, np.zeros(8000, np.float32)])
    end = len(said)
    live = LiveTranscript(counting, speech_frames=lambda start, stop: 40 if start < end else 0)
    live.start()
    live.peek(end + 512, audio)
    while not counting.calls:
        time.sleep(0.001)
    live.pause(end + 3 * 512, audio)      # the silence lasted: a pause
    deadline = time.monotonic() + 20
    while live.heard_until(end + 3 * 512)[0] is None:
        assert time.monotonic() < deadline
        time.sleep(0.005)
    text, _decoding = live.heard_until(end + 3 * 512)
    assert len(counting.calls) == 1  # the peek was the piece: nothing decoded twice
    assert words(text) == words("Open the settings file and show me what changed.")
    assert live.finish(audio, end + 3 * 512) == text and len(counting.calls) == 1


def test_a_peek_that_speech_followed_is_thrown_away(speech, transcriber):
    # A silent frame inside the sentence: decoded aside, but the speech after it means the
    # piece must not end there
    counting = CountingTranscriber(transcriber)
    first = trimmed(speech("Open the settings file"))
    rest = trimmed(speech("and show me what changed."))
    audio = np.concatenate([first, np.zeros(1600, np.float32), rest, np.zeros(8000, np.float32)])
    gap, end = len(first), len(first) + 1600 + len(rest)
    live = LiveTranscript(counting, speech_frames=lambda start, stop: 40 if start < end else 0)
    live.start()
    live.peek(gap + 512, audio)
    while not counting.calls:
        time.sleep(0.001)
    live.pause(end + 3 * 512, audio)
    text = live.finish(audio, end + 3 * 512)
    assert [round(seconds * 16000) for _, seconds in counting.calls][-1] >= end  # decoded anew, whole
    assert "changed" in words(text) and words(text).count("settings") == 1, text


def test_the_live_transcript_says_when_a_piece_has_been_decoded(speech, transcriber):
    """on_decoded comes once the text is there to read, so the end-pointer can ask at once."""
    audio = trimmed(speech("Open the settings file."))
    audio = np.concatenate([np.zeros(4800, np.float32), audio, np.zeros(4800, np.float32)])
    heard: list[tuple[str | None, bool]] = []
    live = LiveTranscript(transcriber)
    live.on_decoded = lambda: heard.append(live.heard_until(len(audio) - 4800))
    live.start()
    live.pause(len(audio) - 4800, audio, settled=True)
    assert words(live.finish(audio, len(audio) - 4800)) == words("Open the settings file.")
    deadline = time.monotonic() + 5
    while not heard and time.monotonic() < deadline:
        time.sleep(0.01)
    assert heard and words(heard[0][0] or "") == words("Open the settings file."), heard


def test_a_peek_the_speaker_overtook_does_not_hold_up_the_next(speech, transcriber):
    """A peek cannot be stopped once it runs; when speech came after where it ends, the
    next peek starts beside it (two CTranslate2 workers), and the pause takes the later."""
    first = trimmed(speech("Show me what changed in the build"))
    rest = trimmed(speech("script."))
    gap = np.zeros(1600, np.float32)
    audio = np.concatenate([np.zeros(4800, np.float32), first, gap, rest, np.zeros(4800, np.float32)])
    mark1 = 4800 + len(first) + 512          # the first silent frame, in the gap
    mark2 = mark1 - 512 + len(gap) + len(rest) + 512
    spans = [(4800, 4800 + len(first)), (mark1 - 512 + len(gap), mark2 - 512)]

    def speech_frames(start: int, end: int) -> int:
        return sum(max(0, min(end, b) - max(start, a)) // 512 for a, b in spans)

    assert transcriber.parallel, "tiny.en decodes on one thread, two at a time"
    timed = CountingTranscriber(transcriber)
    timed.parallel = True
    spans_run: list[tuple[float, float]] = []
    segment = timed.transcribe_segment

    def timed_segment(piece, vocabulary=()):
        began = time.monotonic()
        try:
            return segment(piece, vocabulary)
        finally:
            spans_run.append((began, time.monotonic()))

    timed.transcribe_segment = timed_segment
    live = LiveTranscript(timed, speech_frames=speech_frames)
    live.start()
    live.peek(mark1, audio[:mark1])
    time.sleep(0.02)  # the first peek is decoding
    live.peek(mark2, audio[:mark2])
    live.pause(mark2, audio[:mark2], settled=True)
    text = live.finish(audio, mark2)
    assert words(text) == words("Show me what changed in the build script."), text
    assert len(spans_run) == 2, spans_run
    (a_start, a_end), (b_start, b_end) = sorted(spans_run)
    assert b_start < a_end, "the second peek waited for the first to end"
    assert live.pieces_decoded == 1 and live.peeks == 2
