"""The devagent app: the turns, the voice, the keys and the palette, around the main screen.

Start-up paints first: the SDK takes seconds to import, so the session is built in a
worker (tui.turns.driver) while the panes are already usable.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

from textual import events, work
from textual.app import App, ComposeResult, SystemCommand
from textual.css.query import NoMatches
from textual.message import Message
from textual.notifications import SeverityLevel
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Static, TextArea

from agent.heap import full_collections_at_pauses, release_collector, settle_heap
from agent.settings.config import AgentConfig, api_key_problem
from agent.voice.settings import DEFAULT_KEY, key_label
from agent.voice.status import VoiceStatus
from tui import format as fmt
from tui.bindings import APP_BINDINGS
from tui.decided import Decided
from tui.instructions_actions import InstructionsActions
from tui.keys import TypingRouter
from tui.palette import COMMANDS
from tui.rewind_actions import RewindActions
from tui.screens.main import MainScreen, TurnEnded
from tui.screens.startup import FIRST_ANSWER_WAIT_SECONDS, welcome, welcome_without_key
from tui.toasts import Repeats
from tui.turns.driver import TurnDriver
from tui.turns.voice import VoiceController, VoiceStart, push_to_talk, toggle_mute
from tui.turns.workers import on_a_daemon_thread
from tui.welcome_actions import WelcomeActions
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
    from tui.widgets.memory.review import AskAgent

W = TypeVar("W", bound=Widget)


class EventsWaiting(Message):
    """The turn driver's inbox has events from a worker."""


class DevAgentApp(RewindActions, InstructionsActions, WelcomeActions, App):
    """The app composes the main screen's widgets, owns the turn driver (tui.turns.driver,
    the state of every turn) and the voice, and hands what a turn reports to the main
    screen, which draws it (tui.screens.main). Widgets post what the user decided up to it
    (`Decided`, `Prompt.Submitted`); it hands it down to the turn. Its keys are a table in
    tui.bindings, its palette entries in tui.palette."""

    CSS_PATH = "app.tcss"
    TITLE = "devagent"
    HORIZONTAL_BREAKPOINTS = BREAKPOINTS

    BINDINGS = APP_BINDINGS
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
        self.voice_factory: Callable[[], VoiceController] | None = voice_factory
        self.repo = repo
        self.config = config
        if store is None:
            from tui.lazy_store import LazyStore

            store = LazyStore(repo)
        self.store: EditableStore = store
        self.voice: VoiceController | None = voice
        self.key_problem = api_key_problem()
        self.turns = TurnDriver(repo, config, store, lambda: self.post_message(EventsWaiting()), self._spawn,
                                loaded=self._session_loaded, resume=resume)
        self.prepare_turn = self.turns.prepare  # the voice's: a spoken question's connection opens while it is said
        self.voice_start = VoiceStart(self.probe_voice, self._spawn)
        self.typing = TypingRouter()
        self.repeats = Repeats()  # a toast still on screen is not stacked again

    # --- the screen ---------------------------------------------------------------------

    def get_default_screen(self) -> Screen:
        screen = MainScreen(self.turns, self.key_problem, id="_default")
        screen.voice = self.voice
        return screen

    def compose(self) -> ComposeResult:
        yield Panes(self.store, self.repo, aging_days=getattr(self.config, "memory_aging_days", 30),
                    settled=self.turns.wait_until_settled, typing_now=self.typing_now, id="panes")
        yield QueuedTurns(id="queued")
        yield Prompt(placeholder="Ask about this repository… Enter sends · Ctrl+J new line · F1 help", id="prompt")
        yield StatusLine(id="status")
        yield Footer()

    # The widgets live on the main screen; an app-level query sees only the top screen, which
    # is a dialog or an editor whenever one is open while a turn streams.

    @property
    def main_screen(self) -> MainScreen:
        # get_default_screen put it at the bottom of the stack
        return cast(MainScreen, self.screen_stack[0])

    def _main(self, kind: type[W], selector: str) -> W:
        return self.main_screen.query_one(selector, kind)

    prompt = property(lambda self: self._main(Prompt, "#prompt"))
    panes = property(lambda self: self._main(Panes, "#panes"))
    conversation = property(lambda self: self._main(Conversation, "#conversation"))
    screen_pane = property(lambda self: self._main(ScreenPane, "#screen-pane"))
    memory_pane = property(lambda self: self._main(MemoryPane, "#memory-pane"))
    queued = property(lambda self: self._main(QueuedTurns, "#queued"))
    status = property(lambda self: self._main(StatusLine, "#status"))

    @property
    def running(self) -> bool:
        return self.turns.running

    def _spawn(self, work: Callable[[], None], name: str) -> None:
        """The turn driver's way off the UI thread: a worker of the app's (tui.turns.workers)."""
        self.run_worker(on_a_daemon_thread(work), name=name, group="turns", exit_on_error=False)

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
        # The first frame is out: what takes seconds of imports starts now, the session
        # first (a typed question needs only it) and the voice once it is up, as side by
        # side each would take about twice as long.
        release_collector()
        full_collections_at_pauses()
        self.main_screen.show_branch(self.repo)
        self.main_screen.settle_code_changes(self.repo)
        self.offer_claude_memory()  # and the instruction files listed, beside the session's load
        if not self.key_problem:
            self.turns.load()
        else:
            self.call_next(self.start_voice)

    def on_unmount(self) -> None:
        self.turns.stop()  # the workers end before the app's threads are joined

    def on_panes_hidden_news(self, message: Panes.HiddenNews) -> None:
        self.status.update_info(hidden=message.text)

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
            super().notify(fmt.sanitize(message), title=fmt.sanitize(title), severity=severity, timeout=timeout, markup=False)

    # --- start-up, after the first frame ------------------------------------------------

    def _session_loaded(self) -> None:
        """On the loading worker, once the session has loaded (or failed to): the first reply's
        Markdown is imported now (see tui.widgets.conversation.reply), after the session rather
        than beside it; then the voice starts. A question waiting for its first answer goes
        first: it shows as plain text until Markdown is in."""
        try:
            self.call_from_thread(self.show_instructions)
        except RuntimeError:
            return  # the app closed while the session loaded
        self.turns.settled.wait(FIRST_ANSWER_WAIT_SECONDS)
        import tui.widgets.conversation.reply  # noqa: F401

        settle_heap()
        try:
            self.call_from_thread(self.start_voice)
        except RuntimeError:
            pass  # the app closed while the session loaded

    def start_voice(self) -> None:
        self.voice = self.voice_start.start(self.voice, self.voice_factory, self)
        self.main_screen.voice = self.voice

    # --- typing and turns ---------------------------------------------------------------

    def on_key(self, event: events.Key) -> None:
        if event.is_printable and self.typing.route(event, self.screen_stack, MainScreen, self.prompt):
            event.stop()
            event.prevent_default()

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        if isinstance(event.text_area, Prompt) and self.screen_stack:
            self.conversation.typing()

    def typing_now(self) -> bool:
        """Whether the user is typing a question: what can wait (the memory's ages) waits."""
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

    async def submit_turn(self, text: str, typed: str | None = None) -> bool:
        """Start a turn (typed or transcribed); while one runs, queue it for when it ends.

        `typed` is the text as the prompt showed it (long pastes folded), for taking back."""
        if not self.running and self.asks_to_rewind(text):
            return True  # "go back to before the rename": the rewind list, on that turn
        await self.main_screen.submit(text, typed, briefing=not self.running and self.asks_whats_new(text))
        return True

    # Spoken questions that may still be taken back: push-to-talk ends a recording
    # tentatively after a finished sentence and listens on; if the speaker goes on, the
    # question is withdrawn and the whole one follows. "Apply" or "no" to what waits cannot
    # be withdrawn, so it is decided once the recording confirms it ("yes, but rename it").

    async def submit_tentative(self, text: str) -> None:
        if self.running and self.main_screen.is_decision(text):
            self.turns.tentative_decision = text
        else:
            await self.submit_turn(text)

    async def confirm_turn(self, text: str) -> None:
        if self.turns.tentative_decision == text:
            self.turns.tentative_decision = None
            await self.submit_turn(text)

    async def withdraw_turn(self, text: str) -> None:
        await self.main_screen.withdraw_turn(text)

    def on_decided(self, message: Decided) -> None:
        self.turns.decide(message.about, message.yes, **message.details)  # down to the turn that asked, or dropped

    async def on_events_waiting(self, message: EventsWaiting) -> None:
        if not self.screen_stack:
            return  # the app is closing: a worker's last events have no screen left to show on
        screen = self.main_screen
        for token, event in self.turns.inbox.take():
            await screen.show(token, event)

    async def action_cancel_turn(self) -> None:
        # Esc stops everything at once: a recording, the voice, and the running turn
        if self.running:
            await self.main_screen.cancel_turn()
        elif not (self.voice is not None and self.voice.cancel()):
            self.escape_while_idle()  # one meaning at a time: an Esc that ended a recording is spent; Esc Esc: rewind

    def on_turn_ended(self, message: TurnEnded) -> None:
        if self.screen_stack:  # not while the app closes
            self.show_instructions()  # the turn read them again

    def action_new_conversation(self) -> None:
        if self.running:
            self.notify("A turn is still running; Esc cancels it first.", severity="warning")
        elif self.turns.session is None:
            self.notify("The agent has not started yet, so there is no conversation to leave.")
        else:
            # a summary-mode session writes its notes first: a model call, off the UI thread
            self.run_worker(self.turns.new_conversation, thread=True, group="turn", exit_on_error=False)

    @work(thread=True, group="undo", exit_on_error=False)
    def undo_code_change(self) -> None:
        """Off the UI thread (the files may be large), through the session's descriptor of the folder when it is open."""
        from agent.loop.root_check import undo_last_change

        undone, said = undo_last_change(self.repo, getattr(self.turns.session, "root", None))
        self.call_from_thread(self.notify, said, title="Undo", severity="information" if undone else "warning")

    def action_undo_code_change(self) -> None:
        if self.running:
            self.notify("A turn is running; undo its changes once it has ended.", severity="warning")
        else:
            self.undo_code_change()

    def action_sessions(self) -> None:
        from tui.screens.sessions import SessionsScreen, session_lines

        self.push_screen(SessionsScreen(session_lines(self.repo)), self._session_chosen)

    async def _session_chosen(self, choice: tuple[str, str] | None) -> None:
        if choice is None:
            return
        action, wanted = choice
        if action == "read":
            from tui.screens.sessions import session_text

            await self.main_screen.show_on_screen(f"Session {wanted}", session_text(self.repo, wanted), "markdown")
        elif self.running:
            self.notify("A turn is running; continue the session once it has ended.", title="Sessions")
        else:
            # closing the current session can spend a summary call: off the UI thread
            self.run_worker(lambda: self.turns.switch_to(wanted), thread=True, group="sessions", exclusive=True)

    async def action_quit(self) -> None:
        from rich.text import Text

        from tui.screens.confirm import Confirm
        from tui.screens.memory_editor import MemoryEditor

        if isinstance(self.screen, Confirm) and self.screen.title_text == "Quit":
            return  # asked already: Ctrl+D or the button, not a second Ctrl+Q
        if any(isinstance(s, MemoryEditor) and s.dirty for s in self.screen_stack):
            question = Text("The memory editor has text that is not saved. Quit and throw it away?")
            self.push_screen(Confirm("Quit", question, yes="Quit, discard"), lambda quit: self._quit_now() if quit else None)
            return
        self._quit_now()

    def _quit_now(self) -> None:
        self.turns.stop()  # a turn's worker blocked in a stream or a build would hold the process open
        self.exit()

    def action_copy(self) -> None:
        self.main_screen.copy()

    def action_help_quit(self) -> None:
        # Ctrl+C with nothing selected: Textual's own says it in markup, which these toasts show as text
        self.notify("Press Ctrl+Q to quit. Ctrl+C copies the selected text.", title="Do you want to quit?")

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

    # --- the voice ----------------------------------------------------------------------

    def set_voice_state(self, status: VoiceStatus) -> None:
        """The voice controller's state on the status line, and down to what invites a spoken answer."""
        from tui.screens.trust import HEARING, TrustPrompt

        try:
            self.status.update_info(voice=status)
        except (IndexError, NoMatches):
            return  # closing: the voice can report after the widgets are gone
        for screen in self.screen_stack:  # the main screen, and a trust dialog over it
            if isinstance(screen, MainScreen | TrustPrompt):
                screen.hears = self.voice is not None and status.state in HEARING
        if status.off and self._welcome is not None:
            # found out after the first line said which key talks (no microphone, say)
            self._welcome.update(welcome(None))

    def action_toggle_mute(self) -> None:
        self.notify(toggle_mute(self.voice, self.status.info.voice))

    def action_push_to_talk(self) -> None:
        self.skip_briefing()
        if said := push_to_talk(self.voice, self.status.info.voice):  # a narrow status line shows "voice: off" without its reason; the key says it in full
            self.notify(said, title="Voice")

    # --- help and the command palette ---------------------------------------------------

    def action_help(self) -> None:
        from tui.screens.help import HelpScreen

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(self.status.info.voice, self.talk_key))

    async def on_ask_agent(self, message: AskAgent) -> None:
        if self.running:
            self.notify("A turn is still running; Esc cancels it.", severity="warning")
        else:
            await self.submit_turn(message.text)

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        targets = {"memory": self.memory_pane, "screen": self.main_screen}
        for title, help, where, action in COMMANDS:
            yield SystemCommand(title, help, partial(targets.get(where, self).run_action, action))
        from tui.widgets.conversation.code_review import change_entry, session_changes

        for change in session_changes(self.repo, self.turns.session):
            yield SystemCommand(*change_entry(change), partial(self.main_screen.show_change, change))
