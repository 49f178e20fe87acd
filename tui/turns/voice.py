"""What the app expects of push-to-talk, so voice can plug in without touching the layout.

The app owns the keys and the status line; a controller owns the microphone, the speech
models and the speaker (agent.voice.controller.VoiceController is the real one). The app
calls the controller from the UI thread; the controller talks back through the app's
thread-safe methods:

- `app.call_from_thread(app.set_voice_state, VoiceStatus("ready", detail="(F2)"))`,
- `app.call_from_thread(app.submit_turn, transcript)` when speech became text,
- `app.call_from_thread(app.withdraw_turn, transcript)` when that text was only the first
  part: the speaker went on after a pause the end-pointer took for the end.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:  # the controller's module loads the audio stack; the app starts without it
    from agent.voice.controller import VoiceApp
    from agent.voice.status import VoiceStatus


@runtime_checkable
class VoiceController(Protocol):
    loaded: threading.Event
    """Set once the models have loaded (or failed to); the app then freezes its start-up heap."""

    def attach(self, ui: VoiceApp) -> None:
        """Called once the app has painted, with what the controller reports to (the app); load models in the background from here."""

    def push_to_talk(self) -> None:
        """F2: start recording, or stop and transcribe when already recording."""

    def enter(self) -> bool:
        """Enter in the prompt; True when it ended a recording (the key is used up)."""

    def cancel(self) -> bool:
        """Esc: drop a recording or silence speech; True when there was something to stop."""

    def toggle_mute(self) -> bool:
        """F6; True when the voice is now muted."""

    def turn_started(self) -> None:
        """A question went to the model (typed or spoken): get the voice ready for the reply."""

    def reply_delta(self, text: str) -> None:
        """A piece of the reply being streamed (speak finished sentences)."""

    def progress(self, sentence: str) -> None:
        """One sentence of the model's progress note between tool calls (say it if quiet)."""

    def reply_finished(self, cancelled: bool) -> None:
        """The turn is over; speak what is left unless it was cancelled."""

    def build_finished(self, log: str) -> None:
        """A build or test log: its diagnostic codes lead the vocabulary of the next recording."""

    def close(self) -> None:
        """The app is quitting."""


class VoiceStart:
    """The voice, built once the app has painted and the session is up (or at once without
    a key): the controller from a factory, attached to what it reports to, its models
    loaded in the background. Without one, `probe` still finds out why there is no voice
    here (no device, say). The waits run in `spawn` (the app's thread workers); what the
    status line should say goes to what the voice reports to (`set_voice_state`)."""

    def __init__(self, probe: bool, spawn: Callable[[Callable[[], None], str], object]) -> None:
        self.probe = probe
        self.spawn = spawn

    def start(self, voice: VoiceController | None, factory: Callable[[], VoiceController] | None,
              ui: VoiceApp) -> VoiceController | None:
        """On the UI thread: `voice`, or the one `factory` builds, attached to `ui`; None
        when there is none (and the status line says why)."""
        from agent.voice.status import voice_off
        from tui.screens.startup import one_line_error

        if voice is None and factory is not None:
            try:
                voice = factory()
            except Exception as exc:
                ui.set_voice_state(voice_off(one_line_error(exc)))
                return None
        if voice is not None:
            voice.attach(ui)
            self.spawn(lambda: self._settle_after(voice), "voice-settle")
        elif self.probe:
            self.spawn(lambda: self._explain(ui), "voice-probe")
        return voice

    def _settle_after(self, voice: VoiceController) -> None:
        """The voice stack's models are the other large part of the start-up heap: the heap
        settles once they are in. Short waits, so a quit during loading is not held up."""
        from textual.worker import get_current_worker

        from agent.heap import settle_heap

        worker = get_current_worker()
        while not voice.loaded.wait(timeout=0.2):
            if worker.is_cancelled:
                return
        settle_heap()

    def _explain(self, ui: VoiceApp) -> None:
        try:
            from agent.voice.status import voice_off, voice_unavailable_reason

            reason = voice_unavailable_reason()
        except Exception:
            return
        if reason:
            ui.call_from_thread(ui.set_voice_state, voice_off(reason))


def toggle_mute(voice: VoiceController | None, status: VoiceStatus) -> str:
    """F6: what to say once the voice is muted or back on (or why there is nothing to mute)."""
    if voice is None or status.off:
        return "Voice is off, so there is nothing to mute."
    return "Voice muted." if voice.toggle_mute() else "Voice on."


def push_to_talk(voice: VoiceController | None, status: VoiceStatus) -> str | None:
    """The talk key: recording starts or stops; or why it cannot, to say."""
    if voice is None or status.off:
        return f"Voice is off: {status.reason or 'no voice on this machine'}; type your question instead."
    voice.push_to_talk()
    return None
