"""The devagent app: the screen, the keys, and what each agent event shows.

Start-up paints first: the SDK takes seconds to import, so the session is built in the
background (tui.turns) while the panes are already usable.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

from textual import events
from textual.app import App, ComposeResult, SystemCommand
from textual.css.query import NoMatches
from textual.message import Message
from textual.notifications import SeverityLevel
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Static, TextArea

from agent.heap import full_collections_at_pauses, release_collector
from agent.settings.config import AgentConfig, api_key_problem
from agent.voice.settings import DEFAULT_KEY, key_label
from agent.voice.status import VoiceStatus
from tui import agent_events, copying, leaving, spoken_turns, voice_keys
from tui import format as fmt
from tui.activity import ActivityClock
from tui.code_commands import code_commands
from tui.code_commands import undo as code_commands_undo
from tui.command_actions import CommandActions
from tui.decided import Decided
from tui.heap_pause import tidy_heap
from tui.instructions_actions import InstructionsActions
from tui.keys import TypingRouter
from tui.memory_commands import memory_commands
from tui.palette import APP_BINDINGS, app_commands
from tui.rewind_actions import RewindActions
from tui.screens import trust as trust_prompt
from tui.screens.main import MainScreen
from tui.startup import session_loaded, start_background, welcome, welcome_without_key
from tui.toasts import Repeats
from tui.turns import TurnDriver
from tui.voice_seam import VoiceController
from tui.widgets.conversation import code_review
from tui.widgets.conversation.pane import Conversation
from tui.widgets.footer import Footer
from tui.widgets.memory.pane import MemoryPane
from tui.widgets.panes import BREAKPOINTS, Panes
from tui.widgets.prompt import Prompt
from tui.widgets.queued import QueuedTurns
from tui.widgets.screen.pane import ScreenPane
from tui.widgets.status import StatusLine

if TYPE_CHECKING:
    from memory.seam import EditableStore

W = TypeVar("W", bound=Widget)


class EventsWaiting(Message):
    """The turn driver's inbox has events from a worker thread."""


class DevAgentApp(RewindActions, InstructionsActions, CommandActions, App):
    """The app owns the screen and the keys: it composes the panes (their layout is the
    Panes widget's), routes typed keys to the prompt (tui.keys), asks the turn driver
    (tui.turns) to load the session and to start and cancel turns, shows each agent
    event the driver hands back, queues questions sent while a turn runs, and is the
    voice controller's way to the status line and the prompt (tui.voice_seam). Its keys
    and palette entries are tables in tui.palette; memory editing lives in the memory
    pane; the command line and the terminal in the tui.cli package."""

    CSS_PATH = "app.tcss"
    TITLE = "devagent"
    HORIZONTAL_BREAKPOINTS = BREAKPOINTS

    BINDINGS = APP_BINDINGS
    said_error = False  # the live turn showed an error: it ends without an answer, and says why
    tentative_decision: str | None = None  # a spoken "apply"/"no" waiting for its recording to end
    _welcome: Static | None = None  # the first line, which names the talk key while voice may work

    def __init__(self, repo: Path, config: AgentConfig, *, store: EditableStore | None = None, voice: VoiceController | None = None,
                 voice_factory: Any = None, probe_voice: bool = True, voice_off: str | None = None,
                 talk_key: str = DEFAULT_KEY, resume: str | None = None) -> None:
        """`resume`: None starts a new session, "" continues the latest saved one, an id that one."""
        super().__init__()
        if talk_key != DEFAULT_KEY:
            self.set_keymap({"push_to_talk": talk_key})
        self.talk_key = key_label(talk_key)
        # voice_off: why there is no voice at all (the user turned it off); nothing is probed
        self.voice_off = voice_off
        self.probe_voice = probe_voice and voice_off is None
        # built after the first frame: the voice stack imports numpy and the audio libraries
        self.voice_factory = voice_factory
        self.repo = repo
        self.config = config
        if store is None:
            from tui.lazy_store import LazyStore

            store = LazyStore(repo)
        self.store: EditableStore = store
        self.voice: VoiceController | None = voice
        self.key_problem = api_key_problem()
        self.activity = ActivityClock(self)
        self.turns = TurnDriver(repo, config, store, lambda: self.post_message(EventsWaiting()), loaded=lambda: session_loaded(self),
                                resume=resume)
        self.typing = TypingRouter()
        self.repeats = Repeats()  # a toast still on screen is not stacked again

    # --- the screen ---------------------------------------------------------------------

    def get_default_screen(self) -> Screen:
        return MainScreen(id="_default")

    def compose(self) -> ComposeResult:
        yield Panes(self.store, self.repo, id="panes")
        yield QueuedTurns(id="queued")
        yield Prompt(placeholder="Ask about this repository… Enter sends · Ctrl+J new line · F1 help", id="prompt")
        yield StatusLine(id="status")
        yield Footer()

    # The panes live on the main screen; an app-level query sees only the top screen, which
    # is a dialog or an editor whenever one is open while a turn streams.

    @property
    def main_screen(self) -> MainScreen:
        # get_default_screen put it at the bottom of the stack
        return cast(MainScreen, self.screen_stack[0])

    def _main(self, kind: type[W], selector: str | None = None) -> W:
        screen = self.main_screen
        return screen.query_one(selector, kind) if selector else screen.query_one(kind)

    @property
    def prompt(self) -> Prompt:
        return self._main(Prompt, "#prompt")

    @property
    def panes(self) -> Panes:
        return self._main(Panes)

    @property
    def conversation(self) -> Conversation:
        return self._main(Conversation)

    @property
    def screen_pane(self) -> ScreenPane:
        return self._main(ScreenPane)

    @property
    def memory_pane(self) -> MemoryPane:
        return self._main(MemoryPane)

    @property
    def queued(self) -> QueuedTurns:
        return self._main(QueuedTurns)

    @property
    def status(self) -> StatusLine:
        return self._main(StatusLine)

    @property
    def running(self) -> bool:
        return self.turns.running

    async def on_mount(self) -> None:
        self.conversation.border_title = "Conversation"
        starting = self.voice_factory is not None and not self.voice_off
        voice = VoiceStatus("starting") if starting else VoiceStatus("off", self.voice_off or "")
        self.status.update_info(repo=self.repo.name, model=self.config.model, effort=self.config.effort,
                                memory_mode=self.config.memory_mode, voice=voice)
        self.prompt.focus()
        if self.key_problem:
            await self.conversation.add_notice(welcome_without_key(self.key_problem), "setup")
        else:
            self._welcome = await self.conversation.add_notice(welcome(None if self.voice_off else self.talk_key), "welcome")
        if self.config.notice:  # a broken config.toml: started with defaults, and says so
            await self.conversation.add_notice(self.config.notice, "error")

    def on_ready(self) -> None:
        # The first frame is out. The SDK import and the voice probe are seconds of CPU
        # (and hold import locks the first frame's lazy imports would wait on), so they
        # start only now.
        release_collector()
        full_collections_at_pauses()
        self.call_next(self._start_background)

    def _start_background(self) -> None:
        start_background(self)

    def update_status(self, **changes: Any) -> None:
        """The status line, from any part of the app (nothing while the app closes)."""
        try:
            status = self.status
        except (IndexError, NoMatches):
            # closing: a start-up thread (the branch, the voice) can report after the
            # main screen's widgets are gone
            return
        status.update_info(**changes)

    def close_session(self) -> None:
        """Called after the app has left the terminal: save the transcript (and summary notes)."""
        if self.voice is not None:
            try:
                self.voice.close()
            except Exception:
                pass
        self.turns.close()

    def notify(self, message: str, *, title: str = "", severity: SeverityLevel = "information", timeout: float | None = None,
               markup: bool = False) -> None:
        """Toasts quote memory names, paths and errors: shown as text, never as markup."""
        if self.repeats.new(message, title, severity, self.NOTIFICATION_TIMEOUT if timeout is None else timeout):
            super().notify(fmt.sanitize(message), title=fmt.sanitize(title), severity=severity, timeout=timeout, markup=markup)

    # --- typing -------------------------------------------------------------------------

    def on_key(self, event: events.Key) -> None:
        if self.typing.route(self, event, MainScreen):
            event.stop()
            event.prevent_default()

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        if isinstance(event.text_area, Prompt) and self.screen_stack:
            self.conversation.typing()

    def typing_now(self) -> bool:
        """Whether the user is typing a question: what can wait (the reply's next words,
        the status clock, the memory ages) waits for the pause."""
        return self.conversation.typing_now()

    async def on_prompt_submitted(self, event: Prompt.Submitted) -> None:
        # Enter while recording ends the recording; the typed text stays where it is
        if self.voice is not None and self.voice.enter():
            if event.value:
                event.prompt.restore(event.value)
            return
        text = event.text.strip()
        if text:
            await self.submit_turn(text, typed=event.value.strip())

    # --- turns --------------------------------------------------------------------------

    async def submit_turn(self, text: str, typed: str | None = None) -> bool:
        """Start a turn (typed or transcribed); while one runs, queue it for when it ends.

        `typed` is the text as the prompt showed it (long pastes folded), for taking back."""
        if self.running and (code_review.answer(self, text) or trust_prompt.answer(self, text) or self.answer_command(text)):
            return True  # "apply" or "no" to a change that waits, "yes" or "no" to the trust dialog or the command bar
        if self.asks_to_rewind(text):
            return True  # "go back to before the rename": the rewind list, on that turn
        if self.running:
            self.queued.push(text, typed)
            return True
        await self.conversation.add_user(text)
        if self.key_problem:
            await self.conversation.add_notice(self.key_problem, "error")
            return True
        self.turns.start(text)
        self.refresh_bindings()  # Esc Cancel takes its place in a narrow footer
        if self.voice is not None:
            self.voice.turn_started()  # the voice warms while the model thinks
        await self.conversation.thinking()
        self.activity.start()
        return True

    # spoken questions that may still be taken back (tui/spoken_turns.py)
    async def submit_tentative(self, text: str) -> None:
        await spoken_turns.submit_tentative(self, text)

    async def confirm_turn(self, text: str) -> None:
        await spoken_turns.confirm(self, text)

    async def withdraw_turn(self, text: str) -> None:
        await spoken_turns.withdraw(self, text)

    def voice_hears(self) -> bool:
        return trust_prompt.voice_hears(self)

    def on_decided(self, message: Decided) -> None:
        self.turns.decide(message.about, message.yes, edited=message.edited, always=message.always,
                          network=message.network)  # down to the turn that asked; a stale answer is dropped

    async def on_events_waiting(self, message: EventsWaiting) -> None:
        for token, event in self.turns.inbox.take():
            await self.show(token, event)

    async def show(self, token: int, event: object) -> None:
        """One event from the driver: shown when it belongs to the live turn (tui.agent_events)."""
        await agent_events.show(self, token, event)

    async def end_turn(self, cancelled: bool) -> None:
        trust_prompt.close_undecided(self)  # a turn gone while it asked: nothing waits for it now
        self.close_command_undecided(cancelled)
        self.turns.finish()  # what waited goes after the refresh that draws this (show)
        await self.conversation.end_turn()
        self.activity.stop()
        if self.voice is not None:
            self.voice.reply_finished(cancelled)
        following = self.queued.pop_next()
        if following is not None:
            await self.submit_turn(following)
        else:
            tidy_heap(self.conversation)
            self.refresh_bindings()  # Esc Cancel gives its place back in a narrow footer
        self.show_instructions()  # the turn read them again

    async def action_cancel_turn(self) -> None:
        # One meaning at a time: a recording stops (and only that), else the running turn or
        # command is cancelled (the voice falls silent with it), else Esc Esc opens the rewind list
        recording = self.voice is not None and self.status.info.voice.state == "recording"
        stopped = self.voice is not None and self.voice.cancel()
        if not self.running or (recording and stopped):
            if not stopped:  # an Esc that ended a recording is spent
                self.escape_while_idle()  # Esc Esc: the rewind list
            return
        if code_review.decide(self, False):
            return
        if self.queued.take_back_into(self.prompt):
            # the newest action goes first: the queued questions come back, the turn runs on
            self.notify("Back in the prompt, not sent. Esc again cancels the running turn.", title="Queued")
            return
        # killing a tool's process tree or closing the stream must not stall the UI
        self.turns.cancel()
        await self.end_turn(cancelled=True)
        await self.conversation.add_notice("Cancelled.", "cancelled")

    def action_new_conversation(self) -> None:
        if self.running:
            self.notify("A turn is still running; Esc cancels it first.", severity="warning")
        elif self.turns.session is None:
            self.notify("The agent has not started yet, so there is no conversation to leave.")
        else:
            # a summary-mode session writes its notes first: a model call, off the UI thread
            self.run_worker(self.turns.new_conversation, thread=True, group="turn", exit_on_error=False)

    def action_undo_code_change(self) -> None:
        code_commands_undo(self)

    def action_sessions(self) -> None:
        from tui.screens.sessions import show_sessions

        show_sessions(self)

    async def action_quit(self) -> None:
        leaving.quit_app(self)

    def action_copy(self) -> None:
        copying.copy(self)

    def action_help_quit(self) -> None:
        leaving.how_to_quit(self)

    # --- panes, the screen pane and logs ------------------------------------------------

    def action_conversation_end(self) -> None:
        self.conversation.action_follow()

    def action_conversation_page(self, step: int) -> None:
        (self.conversation.scroll_page_up if step < 0 else self.conversation.scroll_page_down)(animate=False)

    async def action_last_log(self) -> None:
        if not await self.panes.open_log(None):
            self.notify("No tool has written a log yet.")

    async def action_screen_older(self) -> None:
        self.panes.screen_choice = True
        await self.screen_pane.older()

    def action_toggle_screen(self, go: bool = True) -> None:
        self.panes.screen_key(self.prompt, go)

    def action_toggle_memory(self, go: bool = True) -> None:
        self.panes.memory_key(self.prompt, go)

    def action_focus_conversation(self) -> None:
        self.panes.conversation_key(self.prompt)

    async def action_leave_conversation(self) -> None:
        """Esc on the conversation: what Esc stops elsewhere while there is something to stop
        (a turn), else back to the prompt."""
        if self.running:
            await self.action_cancel_turn()
            return
        if self.voice is not None:
            self.voice.cancel()
        self.prompt.focus()

    def action_resize(self, step: int) -> None:
        why = self.panes.resize(step, self.panes.focus_in(self.screen_pane))
        if why:
            self.notify(why, title="Width")

    # --- voice seam ---------------------------------------------------------------------

    def set_voice_state(self, status: VoiceStatus) -> None:
        """The voice controller's state on the status line."""
        self.update_status(voice=status)
        if status.off and self._welcome is not None:
            # found out after the first line said which key talks (no microphone, say)
            self._welcome.update(welcome(None))

    def action_toggle_mute(self) -> None:
        voice_keys.toggle_mute(self)

    def action_push_to_talk(self) -> None:
        voice_keys.push_to_talk(self)

    # --- help and the command palette ---------------------------------------------------

    def action_help(self) -> None:
        from tui.screens.help import HelpScreen

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(self.status.info.voice, self.talk_key))

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        yield from app_commands(self)
        yield from memory_commands(self)
        yield from code_commands(self)

