"""What the app's helper modules need of it, as Protocols: each module the app hands itself
to names one of these instead of importing tui.app, which imports it (the way a Textual
command Provider reaches the app through `self.app`). DevAgentApp is every one of them;
mypy checks it where the app passes itself.

The pieces: `Toasts`, `Workers` and `Screens` are Textual's own App calls a helper uses;
`MainWidgets` are the main screen's widgets. A helper's Protocol adds what only it needs.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from textual.screen import Screen
    from textual.widget import Widget

    from agent.settings.config import AgentConfig
    from agent.voice.status import VoiceStatus
    from memory.seam import EditableStore
    from tui.screens.main import MainScreen
    from tui.turns import TurnDriver
    from tui.voice_seam import VoiceController
    from tui.widgets.conversation.pane import Conversation
    from tui.widgets.memory.pane import MemoryPane
    from tui.widgets.panes import Panes
    from tui.widgets.prompt import Prompt
    from tui.widgets.queued import QueuedTurns
    from tui.widgets.screen.pane import ScreenPane
    from tui.widgets.status import StatusLine


class Toasts(Protocol):
    def notify(self, message: str, *args: Any, **kwargs: Any) -> None: ...


class Workers(Protocol):
    """Work off the UI thread, and the way back onto it."""

    def run_worker(self, work: Any, *args: Any, **kwargs: Any) -> Any: ...

    def call_from_thread(self, callback: Callable[..., Any], *args: Any, **kwargs: Any) -> Any: ...

    def call_later(self, callback: Callable[..., Any], *args: Any, **kwargs: Any) -> bool: ...


class Screens(Protocol):
    """Textual's screen stack: the dialogs and editors open over the main screen."""

    @property
    def screen(self) -> Screen[Any]: ...

    @property
    def screen_stack(self) -> list[Screen[Any]]: ...

    def push_screen(self, screen: Any, *args: Any, **kwargs: Any) -> Any: ...


class MainWidgets(Protocol):
    """The main screen's widgets, found there whatever dialog is on top."""

    @property
    def main_screen(self) -> MainScreen: ...

    @property
    def prompt(self) -> Prompt: ...

    @property
    def conversation(self) -> Conversation: ...

    @property
    def panes(self) -> Panes: ...

    @property
    def screen_pane(self) -> ScreenPane: ...

    @property
    def memory_pane(self) -> MemoryPane: ...

    @property
    def status(self) -> StatusLine: ...

    @property
    def queued(self) -> QueuedTurns: ...


class AppHost(MainWidgets, Toasts, Workers, Screens, Protocol):
    """What the palette's entries need (tui.palette, tui.memory_commands, tui.code_commands,
    tui.screens.sessions)."""

    repo: Path
    config: AgentConfig
    store: EditableStore
    turns: TurnDriver

    @property
    def running(self) -> bool: ...

    async def submit_turn(self, text: str, typed: str | None = None) -> bool: ...

    def action_help(self) -> None: ...

    async def action_cancel_turn(self) -> None: ...

    def action_new_conversation(self) -> None: ...

    def action_toggle_screen(self, go: bool = True) -> None: ...

    def action_toggle_memory(self, go: bool = True) -> None: ...

    async def action_last_log(self) -> None: ...

    def action_copy(self) -> None: ...

    async def action_screen_older(self) -> None: ...

    def action_push_to_talk(self) -> None: ...

    def action_rewind(self, chosen_turn: int | None = None) -> None: ...

    def action_allowed_commands(self) -> None: ...

    def action_bring_in_claude_memory(self) -> Any: ...

    def action_toggle_mute(self) -> None: ...

    def action_sessions(self) -> None: ...

    def action_undo_code_change(self) -> None: ...


class ReviewHost(MainWidgets, Toasts, Protocol):
    """What a held code change's bar and diff need (tui.widgets.conversation.code_review)."""

    turns: TurnDriver
    voice: VoiceController | None


class TrustHost(MainWidgets, Screens, Protocol):
    """What the trust dialog needs (tui.screens.trust)."""

    voice: VoiceController | None


class Activity(Protocol):
    """The status line's word for what a turn does (tui.activity.ActivityClock)."""

    writing: str

    def tick_activity(self) -> None: ...


class TurnView(ReviewHost, TrustHost, Protocol):
    """What drawing a turn's events needs (tui.agent_events)."""

    said_error: bool

    @property
    def activity(self) -> Activity: ...

    async def end_turn(self, cancelled: bool) -> None: ...

    def call_after_refresh(self, callback: Callable[[], Any]) -> bool: ...

    async def show_command_event(self, event: object) -> bool: ...


class SpokenHost(ReviewHost, TrustHost, Protocol):
    """What spoken questions that may be taken back need (tui.spoken_turns)."""

    tentative_decision: str | None
    key_problem: str | None

    @property
    def running(self) -> bool: ...

    def command_waiting(self) -> Any: ...

    async def submit_turn(self, text: str, typed: str | None = None) -> bool: ...

    async def end_turn(self, cancelled: bool) -> None: ...


class ClockHost(MainWidgets, Protocol):
    """What the status line's activity clock needs (tui.activity)."""

    turns: TurnDriver

    @property
    def running(self) -> bool: ...

    def set_interval(self, interval: float, callback: Callable[[], Any], *args: Any, **kwargs: Any) -> Any: ...


class VoiceHost(MainWidgets, Toasts, Protocol):
    """What the voice keys need when voice may be off (tui.voice_keys)."""

    voice: VoiceController | None


class StartupHost(Toasts, Workers, Protocol):
    """What the start-up pieces need (tui.startup); the voice controller is attached to it."""

    repo: Path
    store: EditableStore
    turns: TurnDriver
    key_problem: str | None
    voice: VoiceController | None
    voice_factory: Callable[[], VoiceController] | None
    probe_voice: bool

    def set_voice_state(self, status: VoiceStatus) -> None: ...

    def update_status(self, **changes: Any) -> None: ...

    def show_instructions(self) -> None: ...

    def offer_claude_memory(self) -> Any: ...

    async def submit_turn(self, text: str, typed: str | None = None) -> bool: ...

    async def submit_tentative(self, text: str) -> None: ...

    async def confirm_turn(self, text: str) -> None: ...

    async def withdraw_turn(self, text: str) -> None: ...


class LeavingHost(Toasts, Screens, Protocol):
    """What quitting needs (tui.leaving)."""

    turns: TurnDriver

    def exit(self, *args: Any, **kwargs: Any) -> None: ...


class CopyHost(MainWidgets, Toasts, Protocol):
    """What the copy key needs (tui.copying)."""

    @property
    def focused(self) -> Widget | None: ...

    def query(self, *args: Any, **kwargs: Any) -> Any: ...

    def copy_to_clipboard(self, text: str) -> None: ...


class KeysHost(MainWidgets, Screens, Protocol):
    """What routing a typed key to the prompt needs (tui.keys)."""
