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
from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:  # the controller's module loads the audio stack; the app starts without it
    from agent.voice.controller import VoiceApp


@runtime_checkable
class VoiceController(Protocol):
    loaded: threading.Event
    """Set once the models have loaded (or failed to); the app then freezes its start-up heap."""

    def attach(self, app: VoiceApp) -> None:
        """Called once the app has painted; load models in the background from here."""

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
