"""Which key talks, which model listens and which voice speaks.

From the user's config file (the one agent.settings.config reads), the environment winning:

    [voice]
    key = "f9"                    # DEVAGENT_TALK_KEY; a Textual key name: "f9", "ctrl+t"
    stt_model = "base"            # DEVAGENT_STT_MODEL (or `model`); "tiny.en" or "base" (packaged),
                                  # a model folder, or "auto": measured at the first start
    voice = "/voices/amy.onnx"    # DEVAGENT_TTS_VOICE; a Piper voice name or .onnx path
    speak = false                 # replies stay silent; push-to-talk still works
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any, NamedTuple

DEFAULT_KEY = "f2"


# A NamedTuple, not a frozen dataclass: the app imports this before its first frame,
# and a dataclass's generated methods are compiled as it is imported.
class VoiceSettings(NamedTuple):
    """The voice's settings from config.toml: the talk key, the speech model, the voice, whether it speaks."""

    key: str = DEFAULT_KEY
    stt_model: str | None = None
    voice: str | None = None
    speak: bool = True


def voice_settings(environ: Mapping[str, str] | None = None, file: dict[str, Any] | None = None) -> VoiceSettings:
    """Never raises: a value of the wrong kind is ignored and the default stays."""
    if file is None:
        from agent.settings.config import load_user_config

        file = load_user_config()
    environ = os.environ if environ is None else environ
    table = file.get("voice")
    table = table if isinstance(table, dict) else {}

    def key() -> str:
        from agent.settings.config_file import talk_key

        # the file's value was checked as it was read; the environment's is checked here
        good, _ = talk_key(environ.get("DEVAGENT_TALK_KEY") or table.get("key") or DEFAULT_KEY)
        return good or DEFAULT_KEY

    def text(env: str, name: str) -> str | None:
        value = environ.get(env) or table.get(name)
        return value.strip() if isinstance(value, str) and value.strip() else None

    speak = table.get("speak", True)
    return VoiceSettings(
        key=key(),
        stt_model=text("DEVAGENT_STT_MODEL", "stt_model") or text("DEVAGENT_STT_MODEL", "model"),
        voice=text("DEVAGENT_TTS_VOICE", "voice"),
        speak=speak if isinstance(speak, bool) else True,
    )


def key_label(key: str) -> str:
    """'f9' -> 'F9', 'ctrl+t' -> 'Ctrl+T', as the help and the first line name keys."""
    def label(part: str) -> str:
        function_key = part[:1] == "f" and part[1:].isdigit()
        return part.upper() if len(part) == 1 or function_key else part.capitalize()

    return "+".join(label(part) for part in key.split("+"))
