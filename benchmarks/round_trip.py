"""The spoken round trip: from the talk key that ends a question to the reply's first audio.

    uv run python benchmarks/round_trip.py [--runs N] [--stall S]

The real app (DevAgentApp, headless under Textual's pilot) with its voice controller: the
recorder hears a Piper recording of a question in real time (a WAV source, as
benchmarks/voice_latency.py feeds it), the speech model is the one the app would take on
this machine (agent/voice/choice.py), the turn goes through a real Session and the real
anthropic SDK to the Claude double in its own process, and the speaker plays into a
private PulseAudio null sink whose monitor is recorded. The double's reply has its first
clause in its first delta and the rest after `--stall` seconds, as a model's answer
streams. The talk key is pressed the moment the speech ends.

Each run prints every stage's time since the key: the end-point (the recording stopped),
the transcript the app acts on, the turn started, the request received by the double,
the first text out of the SDK, the first text and the first speakable clause at the
speaker, and the first audio heard on the sink's monitor.

Floor: the plain path with nothing extra, measured in the same run: one whole
transcription of the same clip (on the model's whole-clip decoder) plus Piper's warm
synthesis of the first clause, made whole as Piper itself makes a sentence (the app's
voice makes it a stretch at a time, agent/voice/piper_parts.py), each on the benchmark's
own thread at its own priority (the app's voice runs below the app's priority, as it does
in the app). Targets: the figure at
most the floor, and at most 350 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.common import Row, machine, median, print_rows  # noqa: E402

QUESTION = "Show me the latest commit on the main branch."
FIRST_CLAUSE = "The newest commit on main prunes old checkpoints, "
REST = ("so a long session keeps its own within the limit as each turn begins. "
        "Dana merged it this morning and the tests passed.")
LEAD = 0.5  # seconds of room noise before the speech
# idle seconds before each question: the speaker's stream pauses after 5 s and its voice
# goes cold after 10 s (agent/voice/tts.py), as between a user's questions
GAPS = [3.0, 12.0, 6.0, 20.0, 1.5, 8.0]
GOAL_MS = 350.0

STAGES = [
    ("end-point", "the recording stopped"),
    ("transcript", "the transcript the app acts on"),
    ("ui", "the UI thread took it"),
    ("turn", "the turn started"),
    ("request", "the request received by the double"),
    ("delta", "the first text out of the SDK"),
    ("shown", "the UI thread took the first text"),
    ("fed", "the first text at the speaker"),
    ("clause", "the first speakable clause at the speaker"),
    ("synthesized", "its first audio out of Piper"),
    ("audio", "the first audio on the sink's monitor"),
]


def load_models() -> tuple[Any, Any, Any, str]:
    """The models of the floor and the recording, on this thread at its own priority (the
    app's voice stack loads its own copies): the speech model, the voice that speaks the
    question, and the voice as Piper itself runs it, whole (the floor's)."""
    from agent.voice.choice import choose_model
    from agent.voice.stt import Transcriber
    from agent.voice.synth import Voice, load_piper, resolve_voice

    choice = choose_model()  # what the app would take here, from the user's cache
    transcriber = Transcriber(choice.model).load()
    voice = Voice().load()
    piper = load_piper(*resolve_voice(None))
    for _ in piper.synthesize("Ready."):  # onnxruntime's set-up, as Voice.load does
        pass
    return transcriber, voice, piper, choice.model


def floor_once(whole: Any, piper: Any, clip: Any) -> tuple[float, float]:
    """(seconds of one whole transcription, seconds of Piper's first clause made whole, as
    Piper makes a sentence), warm."""
    from agent.voice.speakable import clean_markdown

    started = time.perf_counter()
    whole.transcribe(clip)
    transcribed = time.perf_counter() - started
    started = time.perf_counter()
    audio = next(iter(piper.synthesize(clean_markdown(FIRST_CLAUSE).rstrip(", ")))).audio_int16_array
    synthesized = time.perf_counter() - started
    assert len(audio), "Piper said nothing"
    return transcribed, synthesized


class Stamps:
    """Monotonic times of the stages of the run under way."""

    def __init__(self) -> None:
        self.times: dict[str, float] = {}
        self.how = ""
        self.first_piece = 0.0  # seconds of speech in the first audio out of Piper

    def mark(self, stage: str, at: float | None = None) -> None:
        self.times.setdefault(stage, time.monotonic() if at is None else at)


def instrumented_stack(model: str, clip: Any, store: Any, stamps: list[Stamps]) -> Any:
    """The app's voice stack (agent/voice/stack.py load_voice), with the recorder fed from
    `clip` and the speaker on the null sink; stage times go to stamps[-1]. Its models load
    as the app's do, on the controller's loading thread (which gives way to the app's, and
    so do the models' thread pools it starts)."""
    from agent.voice.push_to_talk import (
        PttState,
        PushToTalk,
        StateChanged,
        TranscriptConfirmed,
        TranscriptReady,
    )
    from agent.voice.recorder import Recorder, WavSource
    from agent.voice.stack import VoiceStack
    from agent.voice.stt import Transcriber
    from agent.voice.synth import Voice
    from agent.voice.tts import Speaker
    from agent.voice.vocabulary import repository_vocabulary

    class TimedSpeaker(Speaker):
        def feed(self, delta: str) -> None:
            if stamps and delta.strip():
                stamps[-1].mark("fed")
            super().feed(delta)

        def speak(self, text: str) -> None:
            if stamps:
                stamps[-1].mark("clause")
            super().speak(text)

    voice: Any = None

    class TimedVoice:
        """The voice, noting when a reply's first audio comes out of Piper."""

        def __getattr__(self, name: str) -> Any:
            return getattr(voice, name)

        def stream(self, text: str) -> Any:
            for chunk in voice.stream(text):
                if stamps and text != "Ready.":  # not the speaker's warm-up (agent/voice/tts.py)
                    if "synthesized" not in stamps[-1].times:
                        stamps[-1].first_piece = len(chunk) / voice.sample_rate
                    stamps[-1].mark("synthesized")
                yield chunk

    def factory(repo: Path, sink: Any) -> VoiceStack:
        nonlocal voice
        transcriber = Transcriber(model).load()
        voice = Voice().load()
        def timed(event: Any) -> None:
            if stamps:
                run = stamps[-1]
                if isinstance(event, StateChanged) and event.previous is PttState.RECORDING:
                    run.mark("end-point")
                elif isinstance(event, TranscriptReady) and event.text.strip():
                    run.times.pop("tentative", None)
                    if event.tentative:
                        run.mark("tentative")
                    else:
                        run.mark("transcript")
                        run.how = f"heard {event.text!r}" + (", decoded while recording" if event.early else "")
                elif isinstance(event, TranscriptConfirmed) and "tentative" in run.times:
                    # the app acted on the tentative transcript: that is the one
                    run.mark("transcript", run.times["tentative"])
                    run.how = f"heard {event.text!r}, tentative before the key, confirmed by it"
            sink(event)

        recorder = Recorder(WavSource(samples=clip, lead_silence=LEAD, noise=0.002))
        push_to_talk = PushToTalk(recorder, transcriber, timed, vocabulary=repository_vocabulary(repo, store))
        recorder.prepare()
        speaker = TimedSpeaker(TimedVoice(), device="pulse").load()  # type: ignore[arg-type]
        push_to_talk.speaker = speaker
        return VoiceStack(push_to_talk, speaker, None, None, list(push_to_talk.vocabulary), 0.0, transcriber.label)

    return factory


async def until(pilot: Any, condition: Any, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError(f"waited {timeout:.0f} s for {what}")
        await asyncio.sleep(0.002)


def request_times(double: Any, offset: float) -> list[float]:
    """When the double received each messages request, on the monotonic clock."""
    return [entry["time"] - offset for entry in double.requests() if entry.get("path", "").startswith("/v1/messages")
            and not entry["path"].startswith("/v1/messages/count_tokens")]


async def drive(app: Any, double: Any, clip: Any, stamps: list[Stamps], runs: int,
                floor: Any) -> tuple[list[dict[str, float]], list[float], list[float]]:
    from benchmarks.voice_latency import Monitor

    offset = time.time() - time.monotonic()
    results: list[dict[str, float]] = []
    wholes: list[float] = []
    pipers: list[float] = []
    speech_seconds = LEAD + len(clip) / 16000
    monitor = Monitor()
    try:
        async with app.run_test(headless=True, size=(160, 48)) as pilot:
            await until(pilot, lambda: app.voice is not None and app.voice.loaded.is_set() and app.turns.ready.is_set(),
                        120, "the session and the voice to load")
            if app.voice.stack.reason or app.voice.stack.speaker_problem:
                raise RuntimeError(f"voice is off: {app.voice.stack.reason or app.voice.stack.speaker_problem}")
            # the app's own hooks, wrapped to note when each is reached
            start, put = app.turns.start, app.turns.inbox.put

            def timed_start(text: str, *args: Any, **kwargs: Any) -> int:
                stamps[-1].mark("turn")
                return start(text, *args, **kwargs)

            def timed_put(token: int, event: object) -> None:
                if type(event).__name__ == "TextDelta":
                    stamps[-1].mark("delta")
                put(token, event)

            app.turns.start, app.turns.inbox.put = timed_start, timed_put
            # the events are shown by the main screen (the app, before tui.screens.main had them)
            shower = app.main_screen if hasattr(app.main_screen, "show") else app
            submit, show = app.submit_turn, shower.show

            async def timed_submit(text: str, typed: str | None = None) -> bool:
                stamps[-1].mark("ui")
                return await submit(text, typed)

            async def timed_show(token: int, event: object) -> None:
                if type(event).__name__ == "TextDelta":
                    stamps[-1].mark("shown")
                await show(token, event)

            app.submit_turn, shower.show = timed_submit, timed_show
            recorder = app.voice.stack.push_to_talk.recorder
            speaker = app.voice.stack.speaker
            for n in range(runs + 1):  # the first run warms the path up and is not counted
                whole, piper = floor(clip)
                print(f"floor: whole transcription {whole * 1000:.0f} ms, Piper's first clause {piper * 1000:.0f} ms")
                if n:
                    wholes.append(whole)
                    pipers.append(piper)
                await asyncio.sleep(GAPS[n % len(GAPS)])
                seen = len(request_times(double, offset))
                stamps.append(Stamps())
                await pilot.press("f2")
                await until(pilot, lambda: recorder.elapsed >= speech_seconds, 30, "the speech to end")
                key = time.monotonic()
                await pilot.press("f2")
                await until(pilot, lambda: not app.running and "turn" in stamps[-1].times
                            and not speaker.speaking, 60, "the turn and its speech to end")
                run = stamps[-1]
                times = request_times(double, offset)
                if len(times) > seen:
                    run.mark("request", times[seen])
                heard = monitor.first_sound_after(key)
                if heard is not None:
                    run.mark("audio", heard)
                row = {stage: (run.times[stage] - key) * 1000 for stage, _ in STAGES if stage in run.times}
                label = "warm-up" if n == 0 else f"run {n}"
                print(f"{label} (after {GAPS[n % len(GAPS)]:g} s idle): "
                      + ", ".join(f"{stage} {row[stage]:.0f}" for stage, _ in STAGES if stage in row)
                      + f" ms;  {run.how}; Piper's first audio {run.first_piece:.2f} s long", flush=True)
                if n:
                    results.append(row)
    finally:
        monitor.close()
    return results, wholes, pipers


def measure(runs: int, stall: float) -> list[Row]:
    from benchmarks.voice_latency import recording
    from tests.double.server import reply, text
    from tests.tui.scenario import DoubleProcess, build_world
    from tests.voice.pulse import PulseServer

    print(f"machine: {machine()}")
    transcriber, voice, piper, model = load_models()
    clip = recording(voice, [QUESTION])
    whole_decoder = transcriber.whole_decoder()
    print(f"speech model: {model} (the app's choice here); question {QUESTION!r}, {len(clip) / 16000:.1f} s;"
          f" reply: {FIRST_CLAUSE!r} at once, {len(REST)} characters more after {stall:g} s")

    stamps: list[Stamps] = []
    with tempfile.TemporaryDirectory(prefix="devagent-round-trip-") as folder:
        root = Path(folder)
        world = build_world(root / "world")
        script = {"replies": [], "default": reply(text(FIRST_CLAUSE + REST), chunk=len(FIRST_CLAUSE), stall=stall)}
        double = DoubleProcess(script, root / "double")
        server = PulseServer.start(root / "pulse")
        saved = dict(os.environ)
        try:
            world.apply()
            # PortAudio must see the private server before sounddevice is first imported
            os.environ.update(PULSE_SERVER=server.env["PULSE_SERVER"],
                              PULSE_COOKIE=str(root / "pulse" / "home" / ".config" / "pulse" / "cookie"),
                              **double.env)
            from agent.settings.config import AgentConfig
            from agent.voice.controller import VoiceController
            from memory.store import MemoryStore
            from tui.app import DevAgentApp

            store = MemoryStore.for_repository(world.repo)
            factory = instrumented_stack(model, clip, store, stamps)
            app = DevAgentApp(world.repo, AgentConfig.from_env_and_args(repo=world.repo), store=store,
                              voice_factory=lambda: VoiceController(stack_factory=factory))
            results, wholes, pipers = asyncio.run(
                drive(app, double, clip, stamps, runs, lambda c: floor_once(whole_decoder, piper, c)))
        finally:
            os.environ.clear()
            os.environ.update(saved)
            double.stop()
            server.stop()

    print(f"\nstages, milliseconds after the talk key (median of {len(results)}; min-max):")
    for stage, meaning in STAGES:
        values = [r[stage] for r in results if stage in r]
        if values:
            print(f"  {stage:>10}  {median(values):6.0f}   ({min(values):.0f}-{max(values):.0f})   {meaning}")
    print(f"floor: whole transcription {median(wholes) * 1000:.0f} ms + Piper's first clause, warm, "
          f"{median(pipers) * 1000:.0f} ms")
    print(f"machine now: {machine()}")
    audio = [r["audio"] for r in results if "audio" in r]
    figure = median(audio) if len(audio) == len(results) else float("nan")
    floor = (median(wholes) + median(pipers)) * 1000
    note = "" if len(audio) == len(results) else f"{len(results) - len(audio)} of {len(results)} runs never sounded"
    return [Row("talk key -> first audio of the reply", figure, floor, 1.0,
                floor_is="whole transcription + Piper's first clause", note=note,
                extra={"stages": {stage: median([r[stage] for r in results if stage in r]) for stage, _ in STAGES
                                  if any(stage in r for r in results)}}),
            Row("talk key -> first audio of the reply (the goal)", figure, of="figure", limit=GOAL_MS)]


def run() -> list[Row]:
    return measure(runs=5, stall=1.2)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="questions asked (after one that warms up)")
    parser.add_argument("--stall", type=float, default=1.2, help="seconds before the reply's rest streams")
    parser.add_argument("--json", metavar="FILE", help="also write each run's stages to FILE")
    args = parser.parse_args()
    rows = measure(args.runs, args.stall)
    print_rows(rows)
    if args.json:
        Path(args.json).write_text(json.dumps([row.to_dict() for row in rows], indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
