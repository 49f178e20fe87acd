"""The Textual app and the command line. Its front door, `open_app`, opens the app on a
repository with its terminal around it (the log, the crash report, the line that
continues the conversation); the command line (tui.cli) calls it, and imports nothing of
the app until it does."""

from __future__ import annotations

import io
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import argparse

    from agent.voice.controller import VoiceController
    from agent.voice.settings import VoiceSettings


def voice_factory_for(settings: VoiceSettings) -> Callable[[], VoiceController]:
    def make() -> VoiceController:
        from agent.voice.controller import VoiceController
        from agent.voice.settings import key_label

        return VoiceController(stt_model=settings.stt_model, voice=settings.voice, speak=settings.speak,
                               talk_key=key_label(settings.key))

    return make


def resume_hint(session: Any) -> str | None:
    """One line for the terminal once the app has left it; None when nothing was said."""
    from agent.conversation.saved_sessions import session_id

    transcript = getattr(session, "transcript", None)
    if transcript is None or not getattr(session, "turn", 0):
        return None
    return f"devagent --resume {session_id(transcript.path)} continues this conversation."


def open_app(args: argparse.Namespace, *, no_voice: bool) -> int:
    from rich.console import Console

    from agent.settings.config import AgentConfig
    from agent.voice.settings import voice_settings
    from tui.app import DevAgentApp
    from tui.terminal import log_path, start_logging, stderr_to_log

    start_logging()
    repo = Path(getattr(args, "path", ".") or ".").expanduser().resolve()
    if not repo.is_dir():
        print(f"devagent: {repo} is not a folder")
        return 2
    config = AgentConfig.from_env_and_args(args, repo)
    settings = voice_settings()
    if getattr(args, "stt_model", None):
        settings = settings._replace(stt_model=args.stt_model)
    try:
        app = DevAgentApp(
            repo,
            config,
            voice_factory=None if no_voice else voice_factory_for(settings),
            voice_off="turned off (--no-voice)" if no_voice else None,
            talk_key=settings.key,
            resume=getattr(args, "resume", None),
        )
    except Exception as exc:  # the memory folder could not be opened, say
        print(f"devagent: cannot start on {repo}: {exc}")
        return 1
    log = log_path()
    # a crash report is kept until the terminal is back, then printed short
    report = io.StringIO()
    app.error_console = Console(file=report, markup=False, highlight=False, width=100)
    with stderr_to_log(log):
        app.run()
        # closing the audio streams can still make the libraries talk
        app.close_session()
    try:
        hint = resume_hint(app.turns.session)
    except Exception:  # a session that never loaded: nothing to continue
        hint = None
    if hint:
        print(hint)
    if report.getvalue().strip():
        with log.open("a") as out:
            out.write(report.getvalue())
        last = [line for line in report.getvalue().splitlines() if line.strip()]
        print(f"devagent stopped: {last[-1].strip() if last else 'an error'}", file=sys.stderr)
        print(f"The full report is in {log}", file=sys.stderr)
    return app.return_code or 0
