"""The app's voice keys when voice may be off: F6 mutes, the talk key records."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tui.host import VoiceHost


def toggle_mute(app: VoiceHost) -> None:
    if app.voice is None or app.status.info.voice.off:
        app.notify("Voice is off, so there is nothing to mute.")
        return
    app.notify("Voice muted." if app.voice.toggle_mute() else "Voice on.")


def push_to_talk(app: VoiceHost) -> None:
    status = app.status.info.voice
    if app.voice is None or status.off:
        # a narrow status line shows "voice: off" without its reason; the key says it in full
        app.notify(f"Voice is off: {status.reason or 'no voice on this machine'}; type your question instead.",
                   title="Voice")
        return
    app.voice.push_to_talk()
