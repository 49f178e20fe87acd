"""Per speech model: word error on identifiers and on the whole text, and the end-point
ratio per pause length. Part of benchmarks/voice_latency.py.

- Identifiers: tests/voice/identifiers.py's recordings (identifiers said as people say
  them, Piper at three length scales and espeak-ng at three speeds), the repository's
  vocabulary from the same test repository, memory and build log; one whole decode each,
  scored as the decoder wrote it (hotwords and glossary) and once corrected toward the
  vocabulary (agent/voice/identifier_match.py). For reference, tiny.en missed 25 of 42
  before hotwords and 19 with hotwords alone.
- False rewrites: tests/voice/plain_speech.py's sentences that name no identifier, as
  text and as heard (Piper speech, decoded with the same vocabulary), and as text those
  that say a name's words in plain English: any that the correction changes is a false
  rewrite. Target 0.
- End-pointing: two clauses with a pause of 200, 400 or 600 ms after a word that asks for
  more ("and", "because", half of ComfyUI), a finished question, and a finished sentence
  followed, after a comma-length pause, by another (the speaker goes on after a tentative
  end: the transcript is withdrawn and the whole comes later), each recorded in real time
  through push-to-talk and the recorder's own silence stop. Figure: end of speech to the
  transcript the agent acts on (the first one not withdrawn); floor: one whole decode of
  the same utterance, by the model on CTranslate2's default threads (its fastest whole
  decode: the live pieces are decoded on one thread, which would slow it); target 0.5x.
  Cut short: the transcript acted on came before the speech had ended (the recorder
  stopped, or a tentative transcript stood, while words were still coming); a withdrawal
  and the merged transcript after it is not. Also counted: withdrawals, and transcripts
  acted on that lack the last word of a part.
"""

from __future__ import annotations

import os
import queue
import tempfile
import time
from pathlib import Path

import numpy as np

from benchmarks.common import Row, median
from tests.voice.utterances import spoken_parts
from tests.voice.words import word_error_rate

CLAUSES = [["Open the settings file and", "show me what changed in the build script."],
           ["Run the tests again because", "the last run timed out."],
           ["Go into the folder called comfy", "UI and run the server."]]
QUESTION = ["What did we decide about the database migration?"]
GOES_ON = ["Run the tests.", "Then show me what failed."]  # "log" would be half of LogFolder
PAUSES = (0.2, 0.4, 0.6)
GOES_ON_PAUSE = 0.3  # Piper's pause at a comma: shorter than the grace, longer than the tentative wait


def test_vocabulary() -> list[str]:
    from agent.voice.vocabulary import repository_vocabulary
    from memory.store import MemoryStore
    from tests.voice.identifiers import BUILD_LOG, MEMORY, make_repository

    folder = Path(tempfile.mkdtemp(prefix="voice-bench-"))
    previous = os.environ.get("XDG_DATA_HOME")
    os.environ["XDG_DATA_HOME"] = str(folder / "data")
    try:
        store = MemoryStore(folder / "data" / "memories" / "studio")
        store.run({"command": "create", "path": "/memories/payments.md", "file_text": MEMORY})
        return repository_vocabulary(make_repository(folder / "studio"), store, build_log=BUILD_LOG)
    finally:
        if previous is None:
            os.environ.pop("XDG_DATA_HOME", None)
        else:
            os.environ["XDG_DATA_HOME"] = previous


def identifier_errors(transcriber, clips, vocabulary) -> dict:
    """Identifiers missed and whole-text word error, as decoded ("decoded_...") and
    corrected toward the vocabulary; the correction's time per clip."""
    from agent.voice.identifier_match import restore_identifiers
    from tests.voice.identifiers import identifier_misses

    counts = {"decoded": [0, 0], "corrected": [0, 0]}  # [identifiers missed, word errors]
    identifiers = words = 0
    took = []
    for _name, audio, written, names in clips:
        decoded = transcriber.decode(audio, vocabulary)
        started = time.perf_counter()
        corrected = restore_identifiers(decoded, vocabulary)
        took.append(time.perf_counter() - started)
        for kind, heard in (("decoded", decoded), ("corrected", corrected)):
            counts[kind][0] += identifier_misses(heard, names)
            counts[kind][1] += word_error_rate(written, heard)[0]
        identifiers += len(names)
        words += word_error_rate(written, decoded)[1]
    result: dict = {"correction_ms_max": max(took) * 1000}
    for kind, (missed, wrong) in counts.items():
        prefix = "" if kind == "corrected" else "decoded_"
        result |= {f"{prefix}identifiers": missed / identifiers,
                   f"{prefix}identifier_count": f"{missed}/{identifiers}", f"{prefix}text": wrong / words}
    return result


def false_rewrites(transcriber, voice, vocabulary) -> dict:
    """Sentences with no identifier that the correction changes: as written and as heard."""
    from agent.voice.identifier_match import restore_identifiers
    from tests.voice.plain_speech import NAME_WORDS_SPEECH, PLAIN_SPEECH

    as_text = [line for line in PLAIN_SPEECH + NAME_WORDS_SPEECH if restore_identifiers(line, vocabulary) != line]
    as_heard = []
    for line in PLAIN_SPEECH:
        decoded = transcriber.decode(spoken_parts(voice, [line], 0.0, steady=True), vocabulary)
        corrected = restore_identifiers(decoded, vocabulary)
        if corrected != decoded:
            as_heard.append(f"{decoded!r} -> {corrected!r}")
    return {"sentences": len(PLAIN_SPEECH), "text_sentences": len(PLAIN_SPEECH + NAME_WORDS_SPEECH),
            "text": as_text, "heard": as_heard}


def endpoint_once(transcriber, speech: np.ndarray, vocabulary) -> tuple[float, bool, str, int]:
    """(end of speech -> the transcript acted on in seconds, whether it was cut short, its
    text, how many transcripts were withdrawn)."""
    from agent.voice.push_to_talk import (
        PushToTalk,
        RecordingDiscarded,
        TranscriptConfirmed,
        TranscriptReady,
        TranscriptWithdrawn,
    )
    from agent.voice.recorder import Recorder, WavSource

    events: queue.Queue = queue.Queue()
    recorder = Recorder(WavSource(samples=speech, lead_silence=0.5, noise=0.002))
    ptt = PushToTalk(recorder, transcriber, events.put, vocabulary=vocabulary)
    stops: list[float] = []
    auto_stop = recorder.on_auto_stop
    recorder.on_auto_stop = lambda reason: (stops.append(time.monotonic()), auto_stop(reason))
    started = time.monotonic()
    ptt.toggle()
    end_of_speech = started + 0.5 + len(speech) / 16000
    acted: tuple[float, TranscriptReady] | None = None  # the transcript standing, when it came
    withdrawn = 0
    while True:
        event = events.get(timeout=120)
        if isinstance(event, TranscriptReady):
            acted = (time.monotonic(), event)
            if not event.tentative:
                break
        elif isinstance(event, TranscriptWithdrawn):
            acted, withdrawn = None, withdrawn + 1
        elif isinstance(event, TranscriptConfirmed | RecordingDiscarded):
            break
    if acted is None:
        raise RuntimeError("the recording ended without a transcript")
    at, ready = acted
    short = bool(stops and stops[0] < end_of_speech) or at < end_of_speech
    return at - end_of_speech, short, ready.text, withdrawn


def incomplete(text: str, parts: list[str]) -> bool:
    """Whether the last word of a part is missing from `text`: as a word, or inside a name
    the correction wrote whole ("comfy" in "ComfyUI")."""
    import re

    heard = re.findall(r"[a-z0-9']+", text.lower())
    last = [re.findall(r"[a-z0-9']+", part.lower())[-1] for part in parts]
    return any(word not in heard and not any(w.startswith(word) and len(w) > len(word) for w in heard)
               for word in last)


def model_rows(name: str, voice, clips, vocabulary, runs: int) -> list[Row]:
    from agent.voice.stt import Transcriber

    transcriber = Transcriber(name).load()
    # the floor: a whole decode as fast as the model goes (CTranslate2's own threads), not
    # slowed by the single thread that suits the live transcript's short pieces
    floor = transcriber.whole_decoder()
    errors = identifier_errors(transcriber, clips, vocabulary)
    print(f"{name}: identifiers missed {errors['decoded_identifier_count']} as decoded, "
          f"{errors['identifier_count']} corrected (reference, tiny.en: 25/42 before hotwords, "
          f"19/42 with hotwords alone); whole text {errors['decoded_text']:.2f} -> {errors['text']:.2f}; "
          f"correction at most {errors['correction_ms_max']:.1f} ms a clip")
    plain = false_rewrites(transcriber, voice, vocabulary)
    print(f"  plain sentences rewritten: {len(plain['text'])}/{plain['text_sentences']} as text, "
          f"{len(plain['heard'])}/{plain['sentences']} as heard")
    for line in plain["text"] + plain["heard"]:
        print(f"    {line}")
    # Better than the decoder with hotwords alone (19 of 42 missed on tiny.en), the whole
    # text no worse than as decoded, and plain English left alone.
    rows = [Row(f"{name}: word error on identifiers", errors["identifiers"], None, 19 / 42, of="figure",
                unit="", note=f"as decoded {errors['decoded_identifier_count']}, corrected "
                f"{errors['identifier_count']}; tiny.en before hotwords 25/42, hotwords alone 19/42",
                extra=errors),
            Row(f"{name}: word error on the whole text", errors["text"], None, errors["decoded_text"],
                of="figure", unit="", note=f"as decoded {errors['decoded_text']:.2f}"),
            Row(f"{name}: plain sentences rewritten", len(plain["text"]) + len(plain["heard"]), None, 0,
                of="figure", unit="", note=f"of {plain['text_sentences']} as text, {plain['sentences']} as heard", extra=plain)]
    all_cut = all_runs = all_withdrawn = 0
    cases = [(f"clauses, {pause * 1000:.0f} ms pause", CLAUSES, pause) for pause in PAUSES]
    cases += [("a finished question", [QUESTION], 0.0),
              (f"a sentence, {GOES_ON_PAUSE * 1000:.0f} ms, another", [GOES_ON], GOES_ON_PAUSE)]
    for label, utterances, pause in cases:
        latencies, wholes, cut, withdrawals, lacking = [], [], 0, 0, 0
        # a row of one utterance still takes three samples: a median of one is one outlier
        repeats = max(runs, -(-3 // len(utterances)))
        for parts in utterances:
            speech = spoken_parts(voice, parts, pause, steady=True)
            for _ in range(repeats):
                started = time.perf_counter()
                floor.transcribe(speech, vocabulary)
                wholes.append(time.perf_counter() - started)
                took, short, text, withdrawn = endpoint_once(transcriber, speech, vocabulary)
                latencies.append(took)
                cut += short
                withdrawals += withdrawn
                lacking += incomplete(text, parts)
                if short or incomplete(text, parts):
                    print(f"  {'cut short' if short else 'incomplete'} ({label}): {text!r}")
        all_cut, all_runs, all_withdrawn = all_cut + cut, all_runs + len(latencies), all_withdrawn + withdrawals
        ratio = median(latencies) / median(wholes)
        counts = f"cut short {cut}/{len(latencies)}, withdrawn {withdrawals}, incomplete {lacking}"
        print(f"  {label:>28}: end of speech -> transcript {median(latencies) * 1000:5.0f} ms, "
              f"whole decode {median(wholes) * 1000:5.0f} ms, ratio {ratio:.2f}, {counts}")
        rows.append(Row(f"{name}: end point, {label}", median(latencies) * 1000, median(wholes) * 1000, 0.5,
                        floor_is="one whole decode", note=counts,
                        extra={"cut_short": cut, "runs": len(latencies), "withdrawn": withdrawals,
                               "incomplete": lacking}))
    rows.append(Row(f"{name}: end point, utterances cut short", all_cut, None, 0, of="figure", unit="",
                    note=f"of {all_runs}; {all_withdrawn} withdrawn and merged"))
    return rows


def measure_models(voice, models: list[str], runs: int) -> list[Row]:
    from tests.voice.identifiers import espeak_available, recordings

    if not espeak_available():
        print("espeak-ng is missing (apt install espeak-ng): identifier figures left out")
        return []
    vocabulary = test_vocabulary()
    variation, voice.variation = voice.variation, 0.0  # the clips the test hears
    try:
        clips = recordings(voice)
    finally:
        voice.variation = variation
    rows: list[Row] = []
    for name in models:
        rows += model_rows(name, voice, clips, vocabulary, runs)
    return rows
