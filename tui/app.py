"""The devagent app: layout, key bindings, and the worker thread that runs the agent.

Start-up paints first: the SDK takes seconds to import, so the session is built in a
background thread while the panes are already usable.
"""

from __future__ import annotations

import gc
import io
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

from rich.console import Console
from textual import work
from textual.worker import get_current_worker
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Footer, Input

from agent.cancel import Cancellation
from agent.config import AgentConfig, api_key_problem
from agent.events import (
    AgentError,
    ShowOnScreen,
    TextDelta,
    ThinkingStarted,
    ToolFinished,
    ToolStarted,
    TurnFinished,
    TurnStarted,
)
from agent.voice.settings import DEFAULT_KEY, key_label, voice_settings
from tui import format as fmt
from tui.inbox import Inbox
from tui.terminal import log_path, stderr_to_log
from tui.widgets.conversation import Conversation, ToolLine
from tui.memory_commands import memory_commands
from tui.widgets.memory_pane import MemoryPane
from tui.widgets.prompt import Prompt
from tui.widgets.screen_pane import ScreenPane
from tui.widgets.status import StatusLine

# below this many columns the screen pane shares the conversation's place instead of its own
WIDE = 140

# side pane widths (cells) the F7/F8 keys step through
MEMORY_WIDTHS = (24, 30, 36, 44, 56, 72)
SCREEN_WIDTHS = ("1fr", "2fr", "3fr", "4fr")


class TurnEvent(Message):
    """An agent event with the token of the turn it ran in."""

    def __init__(self, token: int, event) -> None:
        super().__init__()
        self.token = token
        self.event = event


class EventsWaiting(Message):
    """The inbox has events from the worker thread."""


class TurnEnded(Message):
    def __init__(self, token: int) -> None:
        super().__init__()
        self.token = token


def welcome(talk_key: str) -> str:
    return f"Type a question and press Enter, or press {talk_key} to talk. F1 shows every key."


def welcome_without_key(problem: str) -> str:
    return (
        f"{problem} Until then you can still read, edit and delete what devagent remembers "
        "about this repository in the memory pane; the key is only needed to talk to Claude. "
        "Press F1 for the keys."
    )


class DevAgentApp(App):
    CSS_PATH = "app.tcss"
    TITLE = "devagent"
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (WIDE, "-wide")]

    BINDINGS = [
        Binding("escape", "cancel_turn", "Cancel"),
        Binding("f1", "help", "Help"),
        Binding(DEFAULT_KEY, "push_to_talk", "Talk", priority=True, id="push_to_talk"),
        Binding("f3", "toggle_screen", "Screen"),
        Binding("f4", "toggle_memory", "Memory"),
        Binding("f5", "screen_older", "Older", show=False),
        Binding("f6", "toggle_mute", "Mute", show=False),
        Binding("f7", "resize(-1)", "Narrower", show=False),
        Binding("f8", "resize(1)", "Wider", show=False),
        Binding("ctrl+l", "last_log", "Last log", show=False),
    ]

    def __init__(
        self,
        repo: Path,
        config: AgentConfig,
        *,
        store=None,
        voice=None,
        voice_factory=None,
        probe_voice: bool = True,
        voice_off: str | None = None,
        talk_key: str = DEFAULT_KEY,
    ) -> None:
        super().__init__()
        if talk_key != DEFAULT_KEY:
            self.set_keymap({"push_to_talk": talk_key})
        self.talk_key = key_label(talk_key)
        # voice_off: why there is no voice at all (the user turned it off); nothing is probed
        self.voice_off = voice_off
        self.probe_voice = probe_voice and voice_off is None
        # built after the first frame: the voice stack imports numpy and the audio libraries
        self._voice_factory = voice_factory
        self.repo = repo
        self.config = config
        if store is None:
            from memory.roots import open_memory

            store = open_memory(repo)
        self.store = store
        self.voice = voice
        self.key_problem = api_key_problem()
        self.session = None
        self._session_error: str | None = None
        self._session_ready = threading.Event()
        self._session_loading = False
        self._send_lock = threading.Lock()
        self._token = 0  # the token of the turn whose events are shown; bumps on each turn
        self._live_token: int | None = None
        self._live_turn: int | None = None
        self._cancel: Cancellation | None = None
        self._turn_started_at = 0.0
        self._last_log: ToolLine | None = None
        self._memory_width = 2
        self._screen_width = 0
        self._screen_toggled: bool | None = None  # None: the layout's default for the width
        self.inbox = Inbox(lambda: self.post_message(EventsWaiting()))

    # --- layout -------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        with Horizontal(id="panes"):
            yield Conversation(id="conversation")
            yield ScreenPane(id="screen-pane")
            yield MemoryPane(self.store, self.repo, id="memory-pane")
        yield Prompt(placeholder="Ask about this repository… (Enter sends, Esc cancels, F1 help)", id="prompt")
        yield StatusLine(id="status")
        yield Footer()

    @property
    def conversation(self) -> Conversation:
        return self.query_one(Conversation)

    @property
    def screen_pane(self) -> ScreenPane:
        return self.query_one(ScreenPane)

    @property
    def memory_pane(self) -> MemoryPane:
        return self.query_one(MemoryPane)

    @property
    def status(self) -> StatusLine:
        return self.query_one(StatusLine)

    @property
    def running(self) -> bool:
        return self._live_token is not None

    async def on_mount(self) -> None:
        self.conversation.border_title = "Conversation"
        self.status.update_info(
            repo=self.repo.name,
            model=self.config.model,
            effort=self.config.effort,
            memory_mode=self.config.memory_mode,
            voice=f"voice: off — {self.voice_off}" if self.voice_off else "voice: starting…" if self._voice_factory else "voice: off",
        )
        self.query_one("#prompt", Input).focus()
        self._apply_widths()
        if self.key_problem:
            await self.conversation.add_notice(welcome_without_key(self.key_problem), "setup")
        else:
            await self.conversation.add_notice(welcome(self.talk_key), "welcome")
        self.set_interval(0.25, self._tick_activity)

    def on_ready(self) -> None:
        # The first frame is out. The SDK import and the voice probe are seconds of CPU
        # (and hold import locks the first frame's lazy imports would wait on), so they
        # start only now.
        self.set_timer(0.05, self._start_background)

    def _start_background(self) -> None:
        self._read_branch()
        if not self.key_problem:
            self._start_session_now()
        if self.voice is None and self._voice_factory is not None:
            try:
                self.voice = self._voice_factory()
            except Exception as exc:
                self.set_voice_state(f"voice: off — {one_line_error(exc)}")
                return
        if self.voice is not None:
            self.voice.attach(self)
            self._settle_after_voice()
        elif self.probe_voice:
            self._explain_voice()

    @work(thread=True, group="startup")
    def _read_branch(self) -> None:
        try:
            result = subprocess.run(
                ["git", "-C", str(self.repo), "rev-parse", "--abbrev-ref", "HEAD"],
                capture_output=True,
                text=True,
                timeout=5,
            )
        except (OSError, subprocess.SubprocessError):
            return
        if result.returncode == 0 and result.stdout.strip():
            self.call_from_thread(self.set_branch, result.stdout.strip())

    def set_branch(self, branch: str) -> None:
        for status in self.query(StatusLine):  # none while the app closes
            status.update_info(branch=branch)

    @work(thread=True, group="startup")
    def _settle_after_voice(self) -> None:
        """The voice stack's models are the other large part of the start-up heap."""
        loaded = getattr(self.voice, "loaded", None)
        if loaded is None:
            return
        worker = get_current_worker()
        # short waits, so a quit during loading is not held up by this thread
        while not loaded.wait(timeout=0.2):
            if worker.is_cancelled:
                return
        settle_heap()

    @work(thread=True, group="startup")
    def _explain_voice(self) -> None:
        """Without a controller, still say what would keep voice off here (no device, say)."""
        try:
            from agent.voice.status import voice_unavailable_reason

            reason = voice_unavailable_reason()
        except Exception:
            return
        if reason:
            self.call_from_thread(self.set_voice_state, f"voice: off — {reason}")

    def _start_session_now(self) -> None:
        """Runs on the UI thread, so two callers cannot both start a load."""
        if not self._session_loading:
            self._session_loading = True
            self._load_session()

    @work(thread=True, group="startup")
    def _load_session(self) -> None:
        """Import the SDK and build the session off the UI thread (the import alone takes ~2 s)."""
        try:
            from agent.session import Session

            self.session = Session(self.repo, self.config, store=self.store)
        except Exception as exc:
            self._session_error = f"The agent could not start: {exc}"
            self.call_from_thread(self.conversation.add_notice, self._session_error, "error")
        finally:
            settle_heap()
            self._session_ready.set()

    def close_session(self) -> None:
        """Called after the app has left the terminal: save the transcript (and summary notes)."""
        if self.voice is not None:
            try:
                self.voice.close()
            except Exception:
                pass
        if self._cancel is not None:
            self._cancel.cancel()
        with self._send_lock:
            if self.session is not None:
                try:
                    self.session.close()
                except Exception:
                    pass

    # --- turns --------------------------------------------------------------------------

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id == "prompt":
            self.conversation.typing()

    async def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id != "prompt":
            return
        # Enter while recording ends the recording; the typed text stays where it is
        enter = getattr(self.voice, "enter", None)
        if enter is not None and enter():
            return
        text = event.value.strip()
        if not text:
            return
        if await self.submit_turn(text):
            event.input.value = ""
            if isinstance(event.input, Prompt):
                event.input.remember(text)

    async def submit_turn(self, text: str) -> bool:
        """Start a turn (typed or transcribed). False when one is already running."""
        if self.running:
            self.notify("A turn is still running; Esc cancels it.", severity="warning")
            return False
        await self.conversation.add_user(text)
        if self.key_problem:
            await self.conversation.add_notice(self.key_problem, "error")
            return True
        self._token += 1
        self._live_token = self._token
        self._live_turn = None
        self._cancel = Cancellation()
        self._turn_started_at = time.monotonic()
        await self.conversation.thinking()
        self._run_turn(text, self._token, self._cancel)
        return True

    @work(thread=True, group="turn", exit_on_error=False)
    def _run_turn(self, text: str, token: int, cancel: Cancellation) -> None:
        def sink(event) -> None:
            self.inbox.put(token, event)

        # a cancelled turn may still be winding down in its own thread; the session takes
        # one turn at a time, so the next waits for it here rather than in the UI
        with self._send_lock:
            try:
                if cancel.cancelled:
                    return
                if not self._session_ready.is_set():
                    # a turn sent in the first moments must not wait for the start-up timer
                    self.call_from_thread(self._start_session_now)
                self._session_ready.wait()
                if self.session is None:
                    sink(AgentError(-1, self._session_error or "The agent could not start."))
                    return
                self.session.send(text, sink, cancel)
            except Exception as exc:  # the loop reports its own errors; this is a last guard
                sink(AgentError(-1, f"The turn stopped unexpectedly: {exc}"))
            finally:
                self.post_message(TurnEnded(token))

    async def on_events_waiting(self, message: EventsWaiting) -> None:
        for token, event in self.inbox.take():
            await self.on_turn_event(TurnEvent(token, event))

    async def on_turn_event(self, message: TurnEvent) -> None:
        if message.token != self._live_token:
            return  # from a turn that was cancelled or has ended
        event = message.event
        if isinstance(event, TurnStarted):
            self._live_turn = event.turn
            return
        if self._live_turn is not None and event.turn not in (self._live_turn, -1):
            return
        conversation = self.conversation
        if isinstance(event, TextDelta):
            await conversation.add_text(event.text)
            if self.voice is not None:
                self.voice.reply_delta(event.text)
        elif isinstance(event, ThinkingStarted):
            await conversation.thinking()
        elif isinstance(event, ToolStarted):
            await conversation.tool_started(event.tool_id, event.name, event.summary)
        elif isinstance(event, ToolFinished):
            line = conversation.tool_finished(event.tool_id, event.duration, event.is_error, event.summary, event.log)
            if line is not None and line.tool_log:
                self._last_log = line
        elif isinstance(event, ShowOnScreen):
            await self.screen_pane.show(event.title, event.content, event.format)
            if not self._screen_visible():
                self.notify(f"On screen: {event.title} (F3 shows it)", title="Screen")
        elif isinstance(event, AgentError):
            await conversation.add_notice(event.message, "error")
        elif isinstance(event, TurnFinished):
            await self._end_turn(cancelled=event.cancelled)
            self.status.update_info(usage=event.usage)

    async def on_turn_ended(self, message: TurnEnded) -> None:
        # the worker returned without a TurnFinished (an error before the turn began)
        if message.token == self._live_token:
            await self._end_turn(cancelled=False)

    async def _end_turn(self, cancelled: bool) -> None:
        self._live_token = None
        self._live_turn = None
        await self.conversation.end_turn()
        self.status.update_info(activity="")
        if self.voice is not None:
            self.voice.reply_finished(cancelled)

    def _tick_activity(self) -> None:
        if self.running:
            elapsed = time.monotonic() - self._turn_started_at
            self.status.update_info(activity=f"● working {fmt.duration(elapsed)}")

    async def action_cancel_turn(self) -> None:
        # Esc stops everything at once: a recording, the voice, and the running turn
        if self.voice is not None:
            self.voice.cancel()
        if not self.running:
            return
        cancel = self._cancel
        # killing a tool's process tree or closing the stream must not stall the UI
        threading.Thread(target=cancel.cancel, name="cancel-turn", daemon=True).start()
        await self._end_turn(cancelled=True)
        await self.conversation.add_notice("Cancelled.", "cancelled")

    async def action_quit(self) -> None:
        # a turn's thread blocked in a stream or a build would hold the process open
        if self._cancel is not None:
            threading.Thread(target=self._cancel.cancel, name="cancel-on-quit", daemon=True).start()
        self.exit()

    # --- screen pane and logs -----------------------------------------------------------

    async def on_tool_line_log_requested(self, message: ToolLine.LogRequested) -> None:
        await self._open_log(message.line)

    async def _open_log(self, line: ToolLine) -> None:
        title = f"{line.tool_name} {line.input_summary}".strip() + " — full log"
        # build tools print absolute paths; inside the repository they only cost width
        log = (line.tool_log or "").replace(f"{self.repo}{os.sep}", "")
        await self.screen_pane.show(title, log, "log")
        self._show_screen(True)

    async def action_last_log(self) -> None:
        if self._last_log is None:
            self.notify("No tool has written a log yet.")
            return
        await self._open_log(self._last_log)

    async def action_screen_older(self) -> None:
        self._show_screen(True)
        await self.screen_pane.older()

    # --- panes --------------------------------------------------------------------------

    def _narrow(self) -> bool:
        return self.size.width < WIDE

    def _screen_visible(self) -> bool:
        return self.screen_pane.display

    def _show_screen(self, show: bool) -> None:
        self._screen_toggled = show
        self._apply_widths()

    def action_toggle_screen(self) -> None:
        self._show_screen(not self._screen_visible())

    def action_toggle_memory(self) -> None:
        pane = self.memory_pane
        pane.display = not pane.display
        if not pane.display and pane.has_focus_within:
            self.query_one("#prompt", Input).focus()

    def action_resize(self, step: int) -> None:
        focused = self.focused
        in_screen = focused is not None and self.screen_pane in focused.ancestors_with_self
        if in_screen or (not self.memory_pane.display and self._screen_visible()):
            self._screen_width = max(0, min(len(SCREEN_WIDTHS) - 1, self._screen_width + step))
        else:
            self._memory_width = max(0, min(len(MEMORY_WIDTHS) - 1, self._memory_width + step))
        self._apply_widths()

    def on_resize(self) -> None:
        self.call_after_refresh(self._apply_widths)

    def _apply_widths(self) -> None:
        narrow = self._narrow()
        screen_pane = self.screen_pane
        # on a narrow terminal the screen pane takes the conversation's place when shown
        show_screen = self._screen_toggled if self._screen_toggled is not None else not narrow
        screen_pane.display = show_screen
        self.conversation.display = not (narrow and show_screen)
        screen_pane.set_hint("F3 conversation" if narrow else "")
        screen_pane.styles.width = SCREEN_WIDTHS[self._screen_width]
        memory_width = MEMORY_WIDTHS[self._memory_width]
        if narrow:
            memory_width = min(memory_width, max(20, self.size.width // 3))
        self.memory_pane.styles.width = memory_width

    # --- voice seam ---------------------------------------------------------------------

    def set_voice_state(self, text: str) -> None:
        """The voice controller's line in the status bar ("voice: ready", "● rec 2.1s ▁▃▅")."""
        for status in self.query(StatusLine):  # none while the app closes
            status.update_info(voice=text)

    def action_toggle_mute(self) -> None:
        toggle = getattr(self.voice, "toggle_mute", None)
        if toggle is None or self.status.info.voice.startswith("voice: off"):
            self.notify("Voice is off, so there is nothing to mute.")
            return
        muted = toggle()
        self.notify("Voice muted." if muted else "Voice on.")

    def action_push_to_talk(self) -> None:
        state = self.status.info.voice
        if self.voice is None or state.startswith("voice: off"):
            # a narrow status line shows "voice: off" without its reason; the key says it in full
            reason = state.partition(" — ")[2] or "no voice on this machine"
            self.notify(f"Voice is off: {reason}; type your question instead.", title="Voice")
            return
        self.voice.push_to_talk()

    # --- help and the command palette ---------------------------------------------------

    def action_help(self) -> None:
        from tui.screens.help import HelpScreen

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(self.status.info.voice, self.talk_key))

    def get_system_commands(self, screen):
        yield from super().get_system_commands(screen)
        yield SystemCommand("Help", "Every key devagent knows", self.action_help)
        yield SystemCommand("Cancel turn", "Stop the running turn and its tools", self.action_cancel_turn)
        yield SystemCommand("Toggle screen pane", "Show or hide what the agent put on screen", self.action_toggle_screen)
        yield SystemCommand("Toggle memory pane", "Show or hide the memory folder", self.action_toggle_memory)
        yield SystemCommand("Last tool log", "Open the most recent build or test log", self.action_last_log)
        yield SystemCommand("Older screen item", "Step back through what was shown", self.action_screen_older)
        yield SystemCommand("New memory", "Write a memory for this repository", self.memory_pane.action_new)
        yield SystemCommand("Edit memory", "Edit the memory selected in the pane", self.memory_pane.action_edit)
        yield SystemCommand("Delete memory", "Delete the selected memory (asks first)", self.memory_pane.action_delete)
        yield from memory_commands(self)
        yield SystemCommand("Push to talk", "Start or stop recording a spoken turn", self.action_push_to_talk)
        yield SystemCommand("Mute voice", "Silence or restore the spoken replies", self.action_toggle_mute)


def settle_heap() -> None:
    """Put everything allocated so far out of the garbage collector's reach.

    Start-up leaves a large heap that lives as long as the app (the SDK, the voice stack),
    and every full collection walks all of it: 60-130 ms on a small machine, during which
    typed keys wait. Frozen, it is skipped; collections then only walk what came later.
    """
    gc.freeze()


def voice_factory_for(settings):
    def make():
        from agent.voice.controller import VoiceController

        return VoiceController(stt_model=settings.stt_model, voice=settings.voice, speak=settings.speak,
                               talk_key=key_label(settings.key))

    return make


def one_line_error(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


def run_app(args) -> int:
    repo = Path(getattr(args, "path", ".") or ".").expanduser().resolve()
    if not repo.is_dir():
        print(f"devagent: {repo} is not a folder")
        return 2
    config = AgentConfig.from_env_and_args(args, repo)
    voice_off = os.environ.get("DEVAGENT_VOICE", "").lower() in ("off", "0", "no")
    settings = voice_settings()
    try:
        app = DevAgentApp(
            repo,
            config,
            voice_factory=None if voice_off else voice_factory_for(settings),
            voice_off="turned off (--no-voice)" if voice_off else None,
            talk_key=settings.key,
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
    if report.getvalue().strip():
        with log.open("a") as out:
            out.write(report.getvalue())
        last = [line for line in report.getvalue().splitlines() if line.strip()]
        print(f"devagent stopped: {last[-1].strip() if last else 'an error'}", file=sys.stderr)
        print(f"The full report is in {log}", file=sys.stderr)
    return app.return_code or 0
