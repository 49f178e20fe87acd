"""What the app's parts (tui.rewind_actions, tui.instructions_actions, tui.welcome_actions)
read of it: its repository, store, settings and turn driver, its widgets and Textual's own
methods, all defined by the app (tui.app.DevAgentApp) or by Textual's App."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pathlib import Path

    from textual.message import Message

    from agent.settings.config import AgentConfig
    from memory.seam import EditableStore
    from tui.screens.main import MainScreen
    from tui.turns.driver import TurnDriver
    from tui.widgets.conversation.pane import Conversation
    from tui.widgets.memory.pane import MemoryPane
    from tui.widgets.prompt import Prompt


class AppParts:
    repo: Path
    store: EditableStore
    config: AgentConfig
    turns: TurnDriver

    if TYPE_CHECKING:
        @property
        def running(self) -> bool: ...

        @property
        def prompt(self) -> Prompt: ...

        @property
        def conversation(self) -> Conversation: ...

        @property
        def memory_pane(self) -> MemoryPane: ...

        @property
        def main_screen(self) -> MainScreen: ...

        @property
        def screen(self) -> Any: ...

        def notify(self, message: str, *args: Any, **kwargs: Any) -> None: ...

        def post_message(self, message: Message) -> bool: ...

        def call_from_thread(self, callback: Any, *args: Any, **kwargs: Any) -> Any: ...

        def call_next(self, callback: Any, *args: Any) -> None: ...

        def run_worker(self, work: Any, *args: Any, **kwargs: Any) -> Any: ...

        def push_screen(self, screen: Any, *args: Any, **kwargs: Any) -> Any: ...

        def pop_screen(self) -> Any: ...
