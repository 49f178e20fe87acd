"""Voice latency on this machine, each figure against a floor measured in the same run.

    uv run python benchmarks/voice_latency.py [--runs N] [--sentences N] [--models tiny.en,base]
                                              [--only-models | --only-speaker]

- End of speech to transcript (push-to-talk, the recorder fed in real time through its
  audio callback, Piper recordings of one and of several sentences with pauses). Floor:
  one whole transcription of the same utterance (`Transcriber.transcribe`, the call
  the live transcript must agree with), on CTranslate2's default threads
  (`Transcriber.whole_decoder`). Target: at most 0.5x, once when the recorder
  stops by itself after its silence wait and once when the talk key is pressed the moment
  the speech ends. Also prints the word error rate of the final text against the whole
  transcription. The transcript is the one acted on: a tentative one unless it is
  withdrawn (agent/voice/push_to_talk.py), else the whole utterance's that follows.
- Reply text to first audio for a short first sentence, spoken after idle gaps of up to
  20 s (the speaker plays into a private PulseAudio null sink whose monitor is
  recorded). Floor: the median of the series; figure: its p95. Target: at most 2x.
- Per speech model (benchmarks/voice_models.py): word error on identifiers said as people
  say them and on the whole text, as decoded and corrected toward the vocabulary, plain
  sentences the correction rewrote, and the end-point ratio per pause between clauses.
- Model loads and barge-in to silence, printed for reference.
"""

from __future__ import annotations

import argparse
import os
import queue
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.common import Row, machine, median, percentile, print_rows  # noqa: E402
from tests.voice.pulse import PulseServer  # noqa: E402
from tests.voice.words import word_error_rate  # noqa: E402

COMMAND = "Show me the latest commit on the main branch."
# Several sentences, said with the short pauses people leave between them (each shorter
# than the recorder's silence wait, so the recording goes on).
UTTERANCES = [
    [COMMAND],
    ["Open the settings file.", "Then show me what changed in the build script.",
     "After that run the tests and tell me which ones failed."],
    ["What did we decide about the database migration on Friday?",
     "I think we said to wait for the review.", "Check the notes and remind me."],
]
PAUSE = 0.2  # seconds of silence between sentences
GAPS = [0.3, 2.0, 5.0, 10.0, 1.0, 20.0, 0.5, 8.0]  # idle seconds before each first sentence


def summary(values: list[float], unit: str = "ms", scale: float = 1000.0) -> str:
    values = [v * scale for v in values]
    if not values:
        return "no measurements"
    return (f"median {median(values):6.0f} {unit}   min {min(values):6.0f}   "
            f"max {max(values):6.0f}   (n={len(values)})")


def load_models() -> tuple:
    from agent.voice.choice import choose_model
    from agent.voice.recorder import Recorder, WavSource
    from agent.voice.stt import Transcriber
    from agent.voice.synth import Voice

    # the model the app would take here: measured once, then read from the user's cache
    choice = choose_model()
    print(f"speech model: {choice.model} (ratios measured {'now' if choice.measured_now else 'before'}: "
          f"{', '.join(f'{k} {v:.2f}' for k, v in choice.ratios.items())})")
    transcriber = Transcriber(choice.model).load()
    voice = Voice().load()
    started = time.perf_counter()
    Recorder(WavSource(samples=np.zeros(16000, np.float32))).prepare()
    vad_seconds = time.perf_counter() - started
    print(f"model load: whisper {transcriber.label} {transcriber.load_seconds * 1000:.0f} ms "
          f"({transcriber.device_used}), piper joe-medium {voice.load_seconds * 1000:.0f} ms "
          f"(with one warm-up sentence), silero vad {vad_seconds * 1000:.0f} ms")
    return transcriber, voice


def recording(voice, sentences: list[str]) -> np.ndarray:
    """16 kHz speech of the sentences with PAUSE between them, trimmed to the last loud
    sample: that sample is the end of speech; the same clip in every run."""
    from tests.voice.utterances import spoken_parts

    return spoken_parts(voice, sentences, PAUSE, steady=True)


def one_transcript(transcriber, speech: np.ndarray, stop: str, lead: float = 0.5):
    """(seconds from the end of speech to the transcript acted on, the event)."""
    from agent.voice.push_to_talk import PushToTalk, TranscriptConfirmed, TranscriptReady, TranscriptWithdrawn
    from agent.voice.recorder import Recorder, WavSource

    events: queue.Queue = queue.Queue()
    source = WavSource(samples=speech, speed=1.0, lead_silence=lead, noise=0.002)
    recorder = Recorder(source)
    ptt = PushToTalk(recorder, transcriber, events.put)
    started = time.monotonic()
    ptt.toggle()
    end_of_speech = started + lead + len(speech) / 16000
    if stop == "key":
        # the user presses the talk key the moment they stop talking
        while recorder.elapsed < lead + len(speech) / 16000:
            time.sleep(0.002)
        end_of_speech = time.monotonic()
        ptt.toggle()
    standing = None  # a tentative transcript, with when it came: acted on unless withdrawn
    while True:
        event = events.get(timeout=60)
        if isinstance(event, TranscriptReady) and not event.tentative:
            return time.monotonic() - end_of_speech, event
        if isinstance(event, TranscriptReady):
            standing = (time.monotonic() - end_of_speech, event)
        elif isinstance(event, TranscriptWithdrawn):
            standing = None
        elif isinstance(event, TranscriptConfirmed) and standing is not None:
            return standing


def transcripts(transcriber, voice, runs: int) -> list[Row]:
    rows: list[Row] = []
    clips = [recording(voice, sentences) for sentences in UTTERANCES]
    print(f"utterances: {', '.join(f'{len(c) / 16000:.1f} s' for c in clips)}"
          f" ({', '.join(str(len(s)) for s in UTTERANCES)} sentences, {PAUSE * 1000:.0f} ms pauses)")
    floor = transcriber.whole_decoder()  # as fast as the model decodes a whole clip
    for stop in ("silence", "key"):
        latencies, wholes, errors, reference_words, live = [], [], 0, 0, 0
        for clip in clips:
            mine, theirs = [], []
            for _ in range(runs):
                # interleaved, so load drifts hit the floor and the figure alike
                started = time.perf_counter()
                whole = floor.transcribe(clip)
                theirs.append(time.perf_counter() - started)
                took, event = one_transcript(transcriber, clip, stop)
                mine.append(took)
                wrong, count = word_error_rate(whole, event.text)
                errors, reference_words = errors + wrong, reference_words + count
                live += bool(event.early)
                if wrong:
                    print(f"  heard {event.text!r}\n  whole {whole!r}")
            print(f"{stop:>7} stop, {len(clip) / 16000:4.1f} s: end of speech -> transcript "
                  f"{summary(mine)};  whole transcription {summary(theirs)}")
            latencies += mine
            wholes += theirs
        print(f"  word error rate against the whole transcription: {errors}/{reference_words}"
              f" = {errors / max(reference_words, 1):.3f}; decoded while recording: {live}/{len(latencies)}")
        label = "after the silence wait" if stop == "silence" else "talk key at the end"
        rows.append(Row(f"end of speech -> transcript ({label})", median(latencies) * 1000,
                        median(wholes) * 1000, 0.5, floor_is="one whole transcription",
                        extra={"wer": errors / max(reference_words, 1)}))
    return rows


class Monitor:
    """Records the null sink's monitor with capture times on the monotonic clock."""

    rate = 16000

    def __init__(self) -> None:
        import sounddevice

        self.captured: list[tuple[float, np.ndarray]] = []

        def on_input(indata, frames, time_info, status):
            lag = max(0.0, time_info.currentTime - time_info.inputBufferAdcTime)
            self.captured.append((time.monotonic() - lag, indata[:, 0].copy()))

        self.stream = sounddevice.InputStream(samplerate=self.rate, channels=1, dtype="float32",
                                              blocksize=160, latency="low", callback=on_input)
        self.stream.start()
        time.sleep(0.5)

    def first_sound_after(self, t0: float, threshold: float = 0.01) -> float | None:
        for t, block in list(self.captured):
            if t + len(block) / self.rate < t0:
                continue
            loud = np.nonzero(np.abs(block) > threshold)[0]
            if len(loud):
                return t + loud[0] / self.rate
        return None

    def last_sound_after(self, t0: float, threshold: float = 0.01) -> float | None:
        last = None
        for t, block in list(self.captured):
            loud = np.nonzero(np.abs(block) > threshold)[0]
            if len(loud) and t + loud[-1] / self.rate >= t0:
                last = t + loud[-1] / self.rate
        return last

    def close(self) -> None:
        self.stream.stop()
        self.stream.close()
        self.captured.clear()


def first_audio(speaker, monitor: Monitor, sentences: int) -> Row:
    """Short first sentences after idle gaps: a reply starts, the first sentence is
    complete once the next word shows, and it is heard on the sink monitor."""
    estimated, heard, failures = [], [], []
    for n in range(sentences):
        speaker.flush()  # the previous reply is over; this one is spoken again
        time.sleep(GAPS[n % len(GAPS)])
        speaker.started_at = None
        speaker.feed("On it.")
        t0 = time.monotonic()
        speaker.feed(" Let me")
        while speaker.started_at is None and time.monotonic() < t0 + 5:
            time.sleep(0.001)
        time.sleep(0.4)
        speaker.stop()
        if speaker.started_at is None:
            failures.append(speaker.error or "no audio within 5 s")
            continue
        estimated.append(speaker.started_at - t0)
        sound = monitor.first_sound_after(t0)
        if sound is not None:
            heard.append(sound - t0)
    print(f"reply text -> first audio, 'On it.' after idle gaps of {', '.join(f'{g:g}' for g in GAPS)} s:")
    print(f"  heard on the sink monitor:   {summary(heard)}   p95 {percentile(heard, 95) * 1000:.0f} ms")
    print(f"  speaker's estimate:          {summary(estimated)}")
    print(f"  each heard: {', '.join(f'{h * 1000:.0f}' for h in heard)}")
    if failures:
        print(f"  runs without audio: {len(failures)} ({failures[0]})")
    figures = heard if len(heard) == len(estimated) and heard else estimated
    return Row("reply text -> first audio, p95 after idle gaps", percentile(figures, 95) * 1000,
               median(figures) * 1000, 2.0, floor_is="median of the series",
               note=f"{len(failures)} of {sentences} sentences never sounded" if failures else "")


def barge_in(speaker, monitor: Monitor, runs: int) -> None:
    estimated, heard = [], []
    long_text = ("This is a long answer that goes on for a while. It explains the build in "
                 "detail and lists every warning one by one.")
    for n in range(runs):
        speaker.stop()
        time.sleep(0.3)
        speaker.started_at = None
        speaker.speak(long_text)
        deadline = time.monotonic() + 5
        while speaker.started_at is None and time.monotonic() < deadline:
            time.sleep(0.001)
        if speaker.started_at is None:
            continue
        time.sleep(0.8 + 0.05 * n)
        t_stop = time.monotonic()
        speaker.stop()
        time.sleep(0.5)
        if speaker.silent_at is not None:
            estimated.append(speaker.silent_at - t_stop)
        last = monitor.last_sound_after(t_stop - 0.5)
        if last is not None:
            heard.append(max(0.0, last - t_stop))
    print("barge-in -> silence:")
    print(f"  speaker's estimate:          {summary(estimated)}")
    print(f"  last sound on the monitor:   {summary(heard)}")


def speaker_figures(voice, runs: int, sentences: int) -> list[Row]:
    from agent.voice.tts import Speaker

    synth = []
    for _ in range(runs):
        started = time.perf_counter()
        voice.synthesize("On it.")
        synth.append(time.perf_counter() - started)
    print(f"Piper synthesis of 'On it.', warm: {summary(synth)}")
    speaker = Speaker(voice, device="pulse").load()
    monitor = Monitor()
    try:
        row = first_audio(speaker, monitor, sentences)
        print(f"  output latency of the stream: {speaker.stream.latency * 1000:.0f} ms")
        barge_in(speaker, monitor, runs)
    finally:
        monitor.close()
        speaker.close()
    return [row]


def measure(runs: int, sentences: int, models: list[str] | None = None,
            speaker_only: bool = False) -> list[Row]:
    from benchmarks.voice_models import measure_models

    print(f"machine: {machine()}")
    transcriber, voice = load_models()  # loaded either way: the app has both in memory
    rows: list[Row] = []
    if not speaker_only:
        rows += transcripts(transcriber, voice, runs)
        rows += measure_models(voice, models or ["tiny.en", "base"], max(1, runs // 2))
    server = PulseServer.start()
    try:
        # PortAudio must see the private server: set the environment before sounddevice
        # is imported (it is, lazily, inside speaker_figures).
        os.environ.update({k: server.env[k] for k in
                           ("HOME", "XDG_RUNTIME_DIR", "XDG_CONFIG_HOME", "PULSE_SERVER")})
        rows += speaker_figures(voice, runs, sentences)
    finally:
        server.stop()
    print(f"machine now: {machine()}")
    return rows


def run() -> list[Row]:
    return measure(runs=3, sentences=24)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="runs per utterance and stop")
    parser.add_argument("--sentences", type=int, default=24, help="first sentences after idle gaps")
    parser.add_argument("--models", default="tiny.en,base", help="speech models to compare, by name")
    parser.add_argument("--only-models", action="store_true",
                        help="only the per-model figures (no speaker, no null sink)")
    parser.add_argument("--only-speaker", action="store_true",
                        help="only first audio and barge-in (the speaker on the null sink)")
    args = parser.parse_args()
    models = [name.strip() for name in args.models.split(",") if name.strip()]
    if args.only_models:
        from agent.voice.synth import Voice
        from benchmarks.voice_models import measure_models

        print(f"machine: {machine()}")
        print_rows(measure_models(Voice().load(), models, max(1, args.runs // 2)))
        return 0
    print_rows(measure(args.runs, args.sentences, models, speaker_only=args.only_speaker))
    return 0


if __name__ == "__main__":
    sys.exit(main())
