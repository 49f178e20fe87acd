"""Everything voice needs, brought up in one call from a background worker.

The app paints first, then calls load_voice() on a worker thread; the result says
whether push-to-talk and the speaker work and, if not, the one line why.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from agent.voice.audio import Device
from agent.voice.push_to_talk import PttEvent, PushToTalk

if TYPE_CHECKING:
    from agent.voice.tts import Speaker
    from memory.seam import Store


@dataclass
class VoiceStack:
    push_to_talk: PushToTalk
    speaker: Speaker | None           # None when it is silent
    reason: str | None                # why push-to-talk is off; None when it works
    speaker_problem: str | None = None  # why the voice is silent while hearing works
    vocabulary: list[str] = field(default_factory=list)
    load_seconds: float = 0.0
    model: str | None = None          # the speech model, as the status line names it


def load_voice(repo: Path, sink: Callable[[PttEvent], None], *, store: Store | None = None,
               stt_model: str | None = None, voice: str | None = None,
               input_device: Device = None, output_device: Device = None, max_seconds: float = 30.0,
               speak: bool = True) -> VoiceStack:
    """Check the machine, load the models, wire push-to-talk; never raises."""
    started = time.perf_counter()
    from agent.voice.recorder import DeviceSource, Recorder
    from agent.voice.status import describe_error, voice_unavailable_reason
    from agent.voice.stt import Transcriber
    from agent.voice.vocabulary import repository_vocabulary

    if stt_model in (None, "auto"):
        from agent.voice.choice import choose_model
        from agent.voice.status import input_device_problem, portaudio_problem

        # Measured at the first start (seconds of decoding), then read from the cache; not
        # worth measuring where there is no microphone to hear.
        no_device = portaudio_problem() or input_device_problem(input_device)
        stt_model = None if no_device else choose_model().model
    transcriber = Transcriber(stt_model)
    recorder = Recorder(DeviceSource(device=input_device), max_seconds=max_seconds)
    vocabulary = repository_vocabulary(repo, store)
    push_to_talk = PushToTalk(recorder, transcriber, sink, vocabulary=vocabulary)
    reason = voice_unavailable_reason(device=input_device, transcriber=transcriber)
    if reason is None:
        try:
            recorder.prepare()
        except Exception as error:
            reason = describe_error(error, "the voice-activity model would not load")
    speaker: Speaker | None = None
    speaker_problem: str | None = None
    if reason is None and speak:
        try:
            from agent.voice.synth import Voice
            from agent.voice.tts import Speaker

            speaker = Speaker(Voice(voice), device=output_device).load()
            push_to_talk.speaker = speaker
        except Exception as error:
            # Hearing still works without a voice.
            speaker, speaker_problem = None, describe_error(error, "the voice would not load")
    if reason is not None:
        push_to_talk.set_unavailable(reason)
    return VoiceStack(push_to_talk, speaker, reason, speaker_problem, vocabulary,
                      time.perf_counter() - started, transcriber.label)
