"""Voice latency on this machine: prints, does not assert.

    uv run python benchmarks/voice_latency.py [--runs N]

Measures model load times, end of speech to transcript (push-to-talk, recorder fed in
real time through its audio callback), reply text to first audio and barge-in to
silence (the speaker playing into a private PulseAudio null sink whose monitor is
recorded). Targets on 2 cores: transcript within 0.6 s of the end of speech, first
audio within 150 ms of a short first sentence, silence within 50 ms of barge-in.
"""

from __future__ import annotations

import argparse
import os
import queue
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.voice.pulse import PulseServer  # noqa: E402

COMMAND = "Show me the latest commit on the main branch."


def summary(values: list[float], unit: str = "ms", scale: float = 1000.0) -> str:
    values = [v * scale for v in values]
    if not values:
        return "no measurements"
    return (f"median {statistics.median(values):6.0f} {unit}   min {min(values):6.0f}   "
            f"max {max(values):6.0f}   (n={len(values)})")


def load_times() -> tuple:
    from agent.voice.recorder import Recorder, WavSource
    from agent.voice.stt import Transcriber
    from agent.voice.tts import Voice

    transcriber = Transcriber().load()
    voice = Voice().load()
    started = time.perf_counter()
    Recorder(WavSource(samples=np.zeros(16000, np.float32))).prepare()
    vad_seconds = time.perf_counter() - started
    print(f"model load: whisper tiny.en {transcriber.load_seconds * 1000:.0f} ms "
          f"({transcriber.device_used}), piper joe-medium {voice.load_seconds * 1000:.0f} ms "
          f"(with one warm-up sentence), silero vad {vad_seconds * 1000:.0f} ms")
    return transcriber, voice


def end_of_speech_to_transcript(transcriber, voice, runs: int, early: bool = True) -> None:
    from agent.voice.audio import resample
    from agent.voice.push_to_talk import PushToTalk, TranscriptReady
    from agent.voice.recorder import Recorder, WavSource

    variation, voice.variation = voice.variation, 0.0  # the same clip in every run
    audio, rate = voice.synthesize(COMMAND)
    voice.variation = variation
    speech = resample(audio, rate, 16000)
    # Piper ends a clip with a little silence; the end of speech is the last loud sample,
    # and the recorder's source keeps delivering quiet room noise after it.
    loud = np.nonzero(np.abs(speech) > 0.01)[0]
    speech = speech[:loud[-1] + 1]
    lead = 0.5
    totals, transcribe_times, words_ok, early_count, misheard = [], [], 0, 0, []
    for _ in range(runs):
        events: queue.Queue = queue.Queue()
        source = WavSource(samples=speech, speed=1.0, lead_silence=lead, noise=0.002)
        # pause_ms at the silence wait switches early transcription off.
        recorder = Recorder(source) if early else Recorder(source, pause_ms=300.0)
        ptt = PushToTalk(recorder, transcriber, events.put)
        started = time.monotonic()
        ptt.toggle()
        while True:
            event = events.get(timeout=60)
            if isinstance(event, TranscriptReady):
                break
        done = time.monotonic()
        end_of_speech = started + lead + len(speech) / 16000
        totals.append(done - end_of_speech)
        transcribe_times.append(event.transcribe_seconds)
        early_count += event.early
        if event.text.strip() == COMMAND:
            words_ok += 1
        else:
            misheard.append(event.text)
    label = "end of speech -> transcript:" if early else "  same, early start disabled:"
    print(f"{label:<31}{summary(totals)}   [{words_ok}/{runs} exact, {early_count}/{runs} early]")
    for text in misheard:
        print(f"  heard instead: {text!r}")
    if not early:
        return
    print(f"  wait after the recorder stopped: {summary(transcribe_times)}")
    plain = []
    for _ in range(runs):
        started = time.perf_counter()
        transcriber.transcribe(speech)
        plain.append(time.perf_counter() - started)
    print(f"  one whole transcription:     {summary(plain)}")


def speaker_figures(voice, runs: int) -> None:
    import sounddevice

    from agent.voice.tts import Speaker

    synth = []
    for _ in range(runs):
        started = time.perf_counter()
        voice.synthesize("On it.")
        synth.append(time.perf_counter() - started)
    speaker = Speaker(voice, device="pulse").load()
    captured: list[tuple[float, np.ndarray]] = []

    def on_input(indata, frames, time_info, status):
        # Capture time of the block's first sample on the monotonic clock.
        lag = max(0.0, time_info.currentTime - time_info.inputBufferAdcTime)
        captured.append((time.monotonic() - lag, indata[:, 0].copy()))

    rate = 16000
    monitor = sounddevice.InputStream(samplerate=rate, channels=1, dtype="float32",
                                      blocksize=160, latency="low", callback=on_input)
    monitor.start()
    time.sleep(0.5)

    def first_sound_after(t0: float, threshold: float = 0.01) -> float | None:
        for t, block in list(captured):
            if t + len(block) / rate < t0:
                continue
            loud = np.nonzero(np.abs(block) > threshold)[0]
            if len(loud):
                return t + loud[0] / rate
        return None

    def silence_after(t0: float, threshold: float = 0.01) -> float | None:
        last_loud = None
        for t, block in list(captured):
            loud = np.nonzero(np.abs(block) > threshold)[0]
            if len(loud) and t + loud[-1] / rate >= t0:
                last_loud = t + loud[-1] / rate
        return last_loud

    first_callback, first_heard, long_first, failures = [], [], [], []
    for _ in range(runs):
        for text_runs, store in ((["On it.", " Let me look"], (first_callback, first_heard)),
                                 (["I found two warnings in the review orchestrator class.",
                                   " Fixing"], (long_first, None))):
            speaker.stop()
            speaker.flush()  # the previous reply is over; this one is spoken again
            time.sleep(0.3)
            speaker.started_at = None
            speaker.feed(text_runs[0])
            t0 = time.monotonic()
            speaker.feed(text_runs[1])  # the sentence is complete once the next word shows
            while speaker.started_at is None and time.monotonic() < t0 + 5:
                time.sleep(0.001)
            estimated = speaker.started_at
            time.sleep(0.4)
            if estimated is None:
                failures.append(speaker.error or "no audio within 5 s")
                continue
            if store[1] is not None:
                store[0].append(estimated - t0)
                heard = first_sound_after(t0)
                if heard is not None:
                    store[1].append(heard - t0)
            else:
                store[0].append(estimated - t0)
            speaker.stop()
    print("reply text -> first audio (short first sentence 'On it.'):")
    print(f"  speaker's estimate:          {summary(first_callback)}")
    if first_heard:
        print(f"  heard on the sink monitor:   {summary(first_heard)}")
    print(f"  of which Piper synthesis:    {summary(synth)}")
    print(f"  long first sentence (9 words), estimate: {summary(long_first)}")
    print(f"  output latency of the stream: {speaker._stream.latency * 1000:.0f} ms")

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
            failures.append(speaker.error or "no audio within 5 s")
            continue
        time.sleep(0.8 + 0.05 * n)
        t_stop = time.monotonic()
        speaker.stop()
        time.sleep(0.5)
        if speaker.silent_at is not None:
            estimated.append(speaker.silent_at - t_stop)
        last = silence_after(t_stop - 0.5)
        if last is not None:
            heard.append(max(0.0, last - t_stop))
    print("barge-in -> silence:")
    print(f"  speaker's estimate:          {summary(estimated)}")
    if heard:
        print(f"  last sound on the monitor:   {summary(heard)}")
    if failures:
        print(f"  runs without audio: {len(failures)} ({failures[0]})")
    monitor.stop()
    monitor.close()
    speaker.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    print(f"cores: {os.cpu_count()}   load average: {os.getloadavg()[0]:.2f}")
    transcriber, voice = load_times()
    end_of_speech_to_transcript(transcriber, voice, args.runs)
    end_of_speech_to_transcript(transcriber, voice, args.runs, early=False)
    server = PulseServer.start()
    try:
        # PortAudio must see the private server: set the environment before sounddevice
        # is imported (it is, lazily, inside speaker_figures).
        os.environ.update({k: server.env[k] for k in
                           ("HOME", "XDG_RUNTIME_DIR", "XDG_CONFIG_HOME", "PULSE_SERVER")})
        speaker_figures(voice, args.runs)
    finally:
        server.stop()
    print(f"load average now: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
