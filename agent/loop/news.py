"""What changed outside the conversation since the model's last turn, found as a turn begins.

Memory the user changed (agent.recall.changes), the user's decisions on held memory writes,
and the repository's instructions (agent.instructions.block): each rebuilds the system
prompt when what it gives there changed, and returns the note the turn's message carries.
A mixin of the Session, whose state it reads.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from agent.conversation.replay import SessionStart
from agent.conversation.scrub import scrubbed
from agent.recall import briefing, memory_modes

if TYPE_CHECKING:
    from pathlib import Path

    from agent.conversation.history import History
    from agent.conversation.transcripts import Transcript
    from agent.instructions.block import RepositoryInstructions
    from agent.recall.changes import MemoryWatch
    from agent.settings.config import AgentConfig
    from agent.tools.registry import ToolRegistry

log = logging.getLogger("devagent.session")


class PromptNews:
    repo: Path
    config: AgentConfig
    store: Any
    start: SessionStart
    system: list[dict[str, Any]]
    prefix: str
    tool_definitions: list[dict[str, Any]]
    history: History
    memory_watch: MemoryWatch
    instructions: RepositoryInstructions
    registry: ToolRegistry
    _conversation_turns: int
    _resumed: bool

    # the Session's own
    def now(self) -> Any:
        raise NotImplementedError

    @property
    def transcript(self) -> Transcript | None:
        raise NotImplementedError

    def _system_blocks(self) -> list[dict[str, Any]]:
        raise NotImplementedError

    def _prefix(self) -> str:
        raise NotImplementedError

    def _memory_changed(self) -> str | None:
        """When the user or another program changed memory since the model last saw it: the
        preloaded block (or the index) rebuilt from memory as it is now, the text of a deleted
        memory taken out of the conversation's memory tool calls, so neither is sent again,
        and the note that says which files changed."""
        meanwhile = self.memory_watch.take_meanwhile()
        change = self.memory_watch.changes()
        if change is None:
            return meanwhile.note() if meanwhile is not None else None
        if change.rebuild:
            fresh = memory_modes.prepare(self.config.memory_mode, self.repo, store=self.store, now=self.now(),
                                         aging_days=self.config.memory_aging_days, since=briefing.REBUILT)
            self.start.context = fresh.context
            self._rebuild_system()
        if change.deleted or change.edited:
            self.history.rewrite(scrubbed(self.history.messages, change.deleted, change.edited))
            change.save_scrub(self.transcript, self.now())
        log.info("memory changed outside the session (%d deleted, %d edited, %d new)%s",
                 len(change.deleted), len(change.edited), len(change.added), ": its block is rebuilt" if change.rebuild else "")
        return "\n\n".join(c.note() for c in (meanwhile, change) if c is not None)

    def _rebuild_system(self) -> None:
        self.system = self._system_blocks()
        self.prefix = self._prefix()
        # The old block's thinking is bound to it: the API would refuse it under the new one.
        self.history.rebind(self.prefix)

    def _instructions_changed(self) -> str | None:
        """The repository's instructions as they are now (agent.instructions.block): when they
        changed, or the repository was trusted meanwhile, the prompt is rebuilt with them."""
        note = self.instructions.news()
        if note is not None:
            self._rebuild_system()
        return note

    def _memory_news(self) -> str | None:
        """The user's decisions on held memory changes since the last turn, in one line."""
        memory = self.registry.get("memory")
        news = getattr(memory, "news", None)
        # A new session's first turn follows no turn of its own.
        return news(first_turn=self._conversation_turns == 1 and not self._resumed) if callable(news) else None

