"""What the app's helper modules need of it, as Protocols: the palette and its command
modules, and the modules the app hands itself to, name these instead of importing tui.app,
which imports them (the way a Textual command Provider reaches the app through `self.app`)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from agent.config import AgentConfig
    from tui.activity import ActivityClock
    from tui.turns import TurnDriver
    from tui.voice_seam import VoiceController
    from tui.widgets.conversation.pane import Conversation
    from tui.widgets.memory.pane import MemoryPane
    from tui.widgets.panes import Panes
    from tui.widgets.screen.pane import ScreenPane
    from tui.widgets.status import StatusLine


class AppHost(Protocol):
    repo: Path
    config: AgentConfig
    store: Any
    turns: TurnDriver

    @property
    def running(self) -> bool: ...

    @property
    def memory_pane(self) -> MemoryPane: ...

    def notify(self, message: str, *args: Any, **kwargs: Any) -> None: ...

    def run_worker(self, work: Any, *args: Any, **kwargs: Any) -> Any: ...

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

    def action_toggle_mute(self) -> None: ...

    def action_sessions(self) -> None: ...

    def action_undo_code_change(self) -> None: ...


class TurnView(Protocol):
    """What drawing a turn's events needs of the app (tui.agent_events)."""

    said_error: bool
    turns: TurnDriver
    voice: VoiceController | None
    activity: ActivityClock

    @property
    def conversation(self) -> Conversation: ...

    @property
    def panes(self) -> Panes: ...

    @property
    def screen_pane(self) -> ScreenPane: ...

    @property
    def status(self) -> StatusLine: ...

    async def end_turn(self, cancelled: bool) -> None: ...

    def call_after_refresh(self, callback: Callable[[], Any]) -> bool: ...
