"""What voice is doing, and why it is off, in one line a status bar can show, never a traceback."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Literal, NamedTuple

if TYPE_CHECKING:  # the app imports this module at start: no numpy or models here
    from agent.voice.audio import Device
    from agent.voice.stt import Transcriber
    from agent.voice.synth import Voice

VoiceState = Literal["off", "starting", "loading", "ready", "recording", "transcribing"]


# A NamedTuple, not a frozen dataclass: the app imports this before its first frame,
# and a dataclass's generated methods are compiled as it is imported.
class VoiceStatus(NamedTuple):
    """The voice's state for the status line.

    `reason` says why something does not work (why voice is off, why replies are silent)
    or what just happened ("heard nothing"); a narrow status line drops it and the help
    screen shows it whole. `detail` belongs to the state: the talk key and "muted" when
    ready, the elapsed time and level meter while recording, "still" while loading.
    """

    state: VoiceState
    reason: str = ""
    detail: str = ""

    @property
    def off(self) -> bool:
        return self.state == "off"

    def short(self) -> str:
        """The line without its reason."""
        if self.state == "recording":
            return f"● rec {self.detail}".rstrip()
        if self.state == "transcribing":
            return "◌ transcribing…"
        if self.state in ("starting", "loading"):
            return f"voice: {self.detail + ' ' if self.detail else ''}{self.state}…"
        return f"voice: {self.state}{' ' + self.detail if self.detail else ''}"

    def line(self) -> str:
        return f"{self.short()} — {self.reason}" if self.reason else self.short()

    def __str__(self) -> str:
        return self.line()


def voice_off(reason: str = "") -> VoiceStatus:
    return VoiceStatus("off", reason)


def describe_error(error: BaseException, context: str) -> str:
    """First line of an exception, prefixed with what was being attempted."""
    text = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
    if len(text) > 120:
        text = text[:117] + "..."
    return f"{context}: {text}"


def portaudio_problem() -> str | None:
    try:
        import sounddevice  # noqa: F401  (loading it loads PortAudio)
    except OSError:
        return "no PortAudio: install libportaudio2"
    except ImportError:
        return "sounddevice is not installed"
    return None


def input_device_problem(device: Device = None) -> str | None:
    import sounddevice

    from agent.voice.alsa import quiet_alsa_errors

    quiet_alsa_errors()  # probing a missing device makes ALSA complain on stderr

    try:
        info = sounddevice.query_devices(device, kind="input")
    except Exception:
        return "no audio input device"
    if not info or int(info.get("max_input_channels", 0)) < 1:
        return "no audio input device"
    try:
        sounddevice.check_input_settings(device=device, channels=1, dtype="float32",
                                         samplerate=16000)
    except Exception as error:
        return describe_error(error, "the audio input device will not record")
    return None


def model_problem(*loaders: tuple[str, Callable[[], object]]) -> str | None:
    """Load each model; the first failure as one line."""
    for name, load in loaders:
        try:
            load()
        except Exception as error:
            return describe_error(error, f"the {name} would not load")
    return None


def voice_unavailable_reason(
    *, device: Device = None, transcriber: Transcriber | None = None, voice: Voice | None = None
) -> str | None:
    """None when push-to-talk can work here; otherwise the one line saying why not.

    Passing a Transcriber and/or Voice also loads them, so a broken model is reported
    the same way as a missing device (call it from a worker thread: loading takes a
    second).
    """
    try:
        problem = portaudio_problem() or input_device_problem(device)
        if problem:
            return problem
        loaders: list[tuple[str, Callable[[], object]]] = []
        if transcriber is not None:
            loaders.append(("speech model", transcriber.load))
        if voice is not None:
            loaders.append(("voice", voice.load))
        return model_problem(*loaders)
    except Exception as error:  # whatever went wrong, the app keeps going with typing
        return describe_error(error, "voice is off")
