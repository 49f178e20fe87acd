"""What the app starts once its first frame is out: the pieces that take seconds, off the UI thread.

The SDK import and the voice probe are seconds of CPU (and hold import locks the first
frame's lazy imports would wait on), so none of this runs before the first paint. Each
piece runs in a worker thread of the app and reports through the app's thread-safe calls.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from textual.worker import get_current_worker

from agent.heap import settle_heap
from agent.voice.status import voice_off
from memory.git.reading import head

if TYPE_CHECKING:
    from tui.host import StartupHost


def start_background(app: StartupHost) -> None:
    """The branch, the session (when there is a key) and the voice, each in the background.

    The voice starts once the session is up: both are seconds of imports in one interpreter,
    and run side by side each takes about twice as long, so a question typed at once would
    wait for the voice's share too. A typed question needs only the session."""
    app.run_worker(partial(show_branch, app), thread=True, group="startup")
    app.run_worker(partial(settle_code_changes, app), thread=True, group="startup")
    app.offer_claude_memory()  # once per repository, when Claude Code's auto memory knows it
    if not app.key_problem:
        app.turns.load()
    else:
        start_voice(app)


def settle_code_changes(app: StartupHost) -> None:
    """A change set a killed devagent left half written is finished or rolled back
    (agent.tools.editor.journal.recover) as the app starts, and the user is told how."""
    from agent.tools.editor.journal import recover

    for note in recover(app.repo):
        try:
            app.call_from_thread(app.notify, note, title="Code change", severity="warning", timeout=30)
        except RuntimeError:
            return  # the app closed meanwhile


def start_voice(app: StartupHost) -> None:
    if app.voice is None and app.voice_factory is not None:
        try:
            app.voice = app.voice_factory()
        except Exception as exc:
            app.set_voice_state(voice_off(one_line_error(exc)))
            return
    if app.voice is not None:
        app.voice.attach(app)
        app.run_worker(partial(settle_after_voice, app), thread=True, group="startup")
    elif app.probe_voice:
        app.run_worker(partial(explain_voice, app), thread=True, group="startup")


# how long the loading thread waits for a question asked at launch to get its first answer
# before it imports Markdown and starts the voice anyway
FIRST_ANSWER_WAIT_SECONDS = 20


def session_loaded(app: StartupHost) -> None:
    """On the loading thread, once the session has loaded (or failed to): the first reply's
    Markdown is imported now (see tui.widgets.conversation.reply), after the session rather than beside
    it, so a question asked at once does not wait for both; then the voice starts. If such
    a question is waiting, both wait for its first answer (it shows as plain text until
    Markdown is in): they are seconds of imports that would share the interpreter with it."""
    try:
        app.call_from_thread(app.show_instructions)
    except RuntimeError:
        return  # the app closed while the session loaded
    app.turns.settled.wait(FIRST_ANSWER_WAIT_SECONDS)
    import tui.widgets.conversation.reply  # noqa: F401

    settle_heap()
    try:
        app.call_from_thread(start_voice, app)
    except RuntimeError:
        pass  # the app closed while the session loaded


def show_branch(app: StartupHost) -> None:
    branch = read_branch(app.repo)
    if branch:
        app.call_from_thread(app.update_status, branch=branch)


def settle_after_voice(app: StartupHost) -> None:
    """The voice stack's models are the other large part of the start-up heap."""
    worker = get_current_worker()
    # short waits, so a quit during loading is not held up by this thread
    voice = app.voice
    if voice is None:
        return
    while not voice.loaded.wait(timeout=0.2):
        if worker.is_cancelled:
            return
    settle_heap()


def explain_voice(app: StartupHost) -> None:
    """Without a controller, still say what would keep voice off here (no device, say)."""
    try:
        from agent.voice.status import voice_unavailable_reason

        reason = voice_unavailable_reason()
    except Exception:
        return
    if reason:
        app.call_from_thread(app.set_voice_state, voice_off(reason))


def read_branch(repo: Path) -> str | None:
    """The checked-out branch ("HEAD" when detached), or None outside a repository (or when
    the read is slow or fails)."""
    return head(repo, timeout=5)["branch"]


def one_line_error(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


def welcome(talk_key: str | None) -> str:
    """The first line; `talk_key` None when voice is off (no talk key to offer)."""
    if talk_key is None:
        return "Type a question and press Enter. F1 shows every key."
    return f"Type a question and press Enter, or press {talk_key} to talk. F1 shows every key."


def welcome_without_key(problem: str) -> str:
    return (
        f"{problem} Until then you can still read, edit and delete what devagent remembers "
        "about this repository in the memory pane; the key is only needed to talk to Claude. "
        "Press F1 for the keys."
    )
