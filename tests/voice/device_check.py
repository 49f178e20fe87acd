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


if __name__ == "__main__":
    scenario = sys.argv[1]
    result = globals()[scenario](*sys.argv[2:])
    print(json.dumps(result))
