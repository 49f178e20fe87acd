"""What the main screen's parts (tui.screens.change_questions, tui.screens.command_questions)
read of it: its turn driver, its voice and its widgets, all defined by the main screen."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tui.turns.driver import TurnDriver
    from tui.turns.voice import VoiceController
    from tui.widgets.conversation.pane import Conversation
    from tui.widgets.memory.pane import MemoryPane
    from tui.widgets.panes import Panes
    from tui.widgets.prompt import Prompt
    from tui.widgets.screen.pane import ScreenPane


class MainScreenParts:
    turns: TurnDriver
    voice: VoiceController | None

    if TYPE_CHECKING:
        @property
        def prompt(self) -> Prompt: ...

        @property
        def screen_pane(self) -> ScreenPane: ...

        @property
        def panes(self) -> Panes: ...

        @property
        def conversation(self) -> Conversation: ...

        @property
        def memory_pane(self) -> MemoryPane: ...
