"""Audio-device scenarios, run in a fresh interpreter inside a PulseAudio test server.

PortAudio reads the device list once, when sounddevice is imported, so each scenario
runs in its own process started with the server's environment. It prints one JSON
object on its last line.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from pathlib import Path

import numpy as np


def play_into_the_sink(wav: str):
    """Start playing a WAV file into the null sink; returns the output stream.

    Through sounddevice rather than paplay: paplay leaves a pulse-XXXX folder in /tmp
    whatever TMPDIR says.
    """
    import sounddevice

    from agent.voice.audio import read_wav

    audio, rate = read_wav(wav)
    sounddevice.play(audio, rate, device="pulse")
    return sounddevice


def record_played_file(wav: str) -> dict:
    """The user's words go into the sink; the push-to-talk recorder hears its monitor."""
    from agent.voice.recorder import DeviceSource, Recorder
    from agent.voice.stt import Transcriber

    transcriber = Transcriber().load()
    stopped = threading.Event()
    recorder = Recorder(DeviceSource(), max_seconds=20.0,
                        on_auto_stop=lambda reason: stopped.set())
    recorder.start()
    time.sleep(0.3)
    player = play_into_the_sink(wav)
    heard = stopped.wait(30)
    audio = recorder.stop()
    player.wait()
    return {"auto_stopped": heard, "stopped_by": recorder.stopped_by,
            "seconds": len(audio) / 16000, "overflows": recorder.overflows,
            "text": Transcriber.transcribe(transcriber, audio)}


def speaker_round_trip(sentence: str, long_text: str) -> dict:
    """The speaker talks into the sink; the recorder hears it; stop() silences it."""
    from agent.voice.recorder import DeviceSource, Recorder
    from agent.voice.stt import Transcriber
    from agent.voice.synth import Voice
    from agent.voice.tts import Speaker

    transcriber = Transcriber().load()
    speaker = Speaker(Voice(variation=0.0), device="pulse").load()

    recorder = Recorder(DeviceSource(), auto_stop=False, max_seconds=30.0)
    recorder.start()
    time.sleep(0.3)
    speaker.feed(sentence[: len(sentence) // 2])
    speaker.feed(sentence[len(sentence) // 2:])
    speaker.flush()
    finished = speaker.wait(20)
    time.sleep(0.4)
    text = transcriber.transcribe(recorder.stop())

    recorder.start()
    time.sleep(0.3)
    speaker.started_at = None
    speaker.speak(long_text)
    while speaker.started_at is None or time.monotonic() < speaker.started_at + 1.0:
        time.sleep(0.01)
    before_stop = recorder.elapsed
    speaker.stop()
    stopped_at = recorder.elapsed
    time.sleep(0.8)
    audio = recorder.stop()
    speaking_after = speaker.speaking
    speaker.close()

    def loudness(a: float, b: float) -> float:
        part = audio[int(a * 16000):int(b * 16000)]
        return float(np.sqrt(np.mean(np.square(part)))) if len(part) else 0.0

    return {"finished": finished, "text": text,
            "loud_before_stop": loudness(before_stop - 0.5, before_stop),
            "loud_after_stop": loudness(stopped_at + 0.2, len(audio) / 16000),
            "speaking_after_stop": speaking_after, "error": speaker.error}


def speaker_plays_once_loaded() -> dict:
    """How long the output stream goes without calling back in the second after load(),
    on a sink just made: an idle null sink wakes every 2 s."""
    import subprocess

    from agent.voice.synth import Voice
    from agent.voice.tts import Speaker, open_output_stream

    voice = Voice().load()
    for command in (["load-module", "module-null-sink", "sink_name=fresh", "rate=16000", "channels=1"],
                    ["set-default-sink", "fresh"]):
        subprocess.run(["pactl", *command], check=True, capture_output=True, timeout=10)
    calls: list[float] = []

    def open_stream(rate, callback, **options):
        def counted(outdata, frames, time_info, status):
            calls.append(time.monotonic())
            callback(outdata, frames, time_info, status)

        return open_output_stream(rate, counted, **options)

    started = time.monotonic()
    speaker = Speaker(voice, device="pulse", open_stream=open_stream).load()
    loaded = time.monotonic()
    time.sleep(1.0)
    after = [t for t in calls if t >= loaded]
    speaker.close()
    gaps = [b - a for a, b in zip([loaded, *after], after)]
    return {"longest_gap": max(gaps, default=None), "callbacks": len(after), "error": speaker.error,
            "load_seconds": loaded - started}


def talk_over_the_speaker(wav: str, long_text: str) -> dict:
    """The user presses the talk key while the voice is speaking: it stops, the user's
    words (played into the same sink) are recorded and transcribed, and muting works."""
    import queue

    from agent.voice.push_to_talk import PttState, PushToTalk, TranscriptReady
    from agent.voice.recorder import DeviceSource, Recorder
    from agent.voice.stt import Transcriber
    from agent.voice.synth import Voice
    from agent.voice.tts import Speaker

    transcriber = Transcriber().load()
    speaker = Speaker(Voice(variation=0.0), device="pulse").load()
    events: queue.Queue = queue.Queue()
    ptt = PushToTalk(Recorder(DeviceSource()), transcriber, events.put, speaker=speaker)

    speaker.speak(long_text)
    while speaker.started_at is None:
        time.sleep(0.01)
    time.sleep(0.8)
    was_speaking = speaker.speaking
    ptt.toggle()
    stopped_speaking = not speaker.speaking
    # Wait for half a second of recording rather than half a second of wall time: on a
    # loaded machine the input stream can take longer than that to deliver its first block.
    recorder = ptt.recorder
    deadline = time.monotonic() + 10
    while len(recorder.snapshot()) < int(0.5 * 16000) and time.monotonic() < deadline:
        time.sleep(0.02)
    heard = recorder.snapshot()[int(0.2 * 16000):]
    quiet_after_toggle = float(np.abs(heard).max()) if len(heard) else -1.0
    player = play_into_the_sink(wav)
    ready = None
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            event = events.get(timeout=1)
        except queue.Empty:
            continue
        if isinstance(event, TranscriptReady):
            ready = event
            break
    player.wait()
    # a tentative transcript: the recorder listens on through its grace window first
    ptt.wait_idle(10)

    speaker.muted = True
    speaker.speak("This must not be heard.")
    muted_speaking = speaker.speaking
    speaker.muted = False
    speaker.speak("Back.")
    unmuted_speaking = speaker.speaking
    speaker.wait(10)
    speaker.close()
    return {"was_speaking": was_speaking, "stopped_speaking": stopped_speaking,
            "quiet_after_toggle": quiet_after_toggle,
            "text": ready.text if ready else None, "state": ptt.state.value,
            "muted_speaking": muted_speaking, "unmuted_speaking": unmuted_speaking,
            "idle": ptt.state is PttState.IDLE}


def spoken_apply(wav: str, repo: str) -> dict:
    """The whole app over the device: a turn's change waits, the user presses the talk key
    and speaks into the sink, and the transcript decides the change, the way a user at a
    microphone does. The product's own voice stack (load_voice) hears the sink's monitor;
    the speaker is off, so nothing but the user's words reaches it."""
    import asyncio
    import os
    import tempfile

    from agent.tools.text_editor import EDITOR_NAME
    from tests.double.server import ClaudeDouble, tool_use

    folders = tempfile.TemporaryDirectory()
    for name in ("XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
        os.environ[name] = str(Path(folders.name) / name.lower())
        Path(os.environ[name]).mkdir()
    for name in ("DEVAGENT_MODEL", "DEVAGENT_EFFORT", "DEVAGENT_MEMORY", "ANTHROPIC_AUTH_TOKEN"):
        os.environ.pop(name, None)
    double = ClaudeDouble().start()
    # Before the app builds its client, which reads them once.
    os.environ["ANTHROPIC_BASE_URL"] = double.url
    os.environ["ANTHROPIC_API_KEY"] = "sk-ant-test-double-key"
    double.add(tool_use(EDITOR_NAME, {"command": "str_replace", "path": "Review.cs",
                                      "old_str": "ReviewOrchestrator", "new_str": "ReviewCoordinator"}))
    double.add("Renamed.")
    try:
        result = asyncio.run(_apply_by_voice(Path(wav), Path(repo)))
        requests = double.messages_requests()
        results = requests[1].tool_results() if len(requests) > 1 else []
        result.update(requests=len(requests),
                      tool_result=results[0].get("content") if results else None,
                      is_error=bool(results and results[0].get("is_error")))
        return result
    finally:
        double.stop()
        folders.cleanup()


async def _apply_by_voice(wav: Path, repo: Path) -> dict:
    from agent.settings.config import AgentConfig
    from agent.voice.controller import VoiceController
    from agent.voice.models import TINY
    from agent.voice.push_to_talk import PttState
    from memory.store import MemoryStore
    from tui.app import DevAgentApp
    from tui.widgets.conversation.code_review import CodeReviewBar

    # The packaged model named, not "auto": choosing one measures decoding for seconds.
    controller = VoiceController(stt_model=TINY, speak=False)
    app = DevAgentApp(repo, AgentConfig(thinking="off"), store=MemoryStore.for_repository(repo),
                      voice=controller)
    source = repo / "Review.cs"

    async def wait_for(pilot, predicate, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while not predicate():
            if time.monotonic() > deadline:
                return False
            await pilot.pause(0.05)
        return True

    async with app.run_test(size=(120, 40)) as pilot:
        loaded = await wait_for(pilot, controller.loaded.is_set, 90)
        stack = controller.stack
        if not loaded or stack is None or stack.reason:
            return {"error": f"voice did not start: {stack.reason if stack else 'not loaded'}"}
        app.prompt.value = "Finish the rename."
        await pilot.press("enter")
        held = await wait_for(pilot, lambda: bool(app.main_screen.query(CodeReviewBar)), 30)
        text_while_held = source.read_text()
        await pilot.press("f2")
        # Half a second of recording, not of wall time: a loaded machine's input stream can
        # take longer than that to deliver its first block, and the words must not be cut.
        recorder = stack.push_to_talk.recorder
        recording = await wait_for(pilot, lambda: controller.state is PttState.RECORDING
                                   and len(recorder.snapshot()) >= 8000, 10)
        player = play_into_the_sink(str(wav))
        ended = await wait_for(pilot, lambda: not app.running, 45)
        player.wait()
        return {"held": held, "text_while_held": text_while_held, "recording": recording,
                "turn_ended": ended, "text_after": source.read_text(),
                "queued": list(app.queued.texts), "error": None}


if __name__ == "__main__":
    scenario = sys.argv[1]
    result = globals()[scenario](*sys.argv[2:])
    print(json.dumps(result))
