"""A session going back to before one of its turns, and undoing that (agent.checkpoints).

A mixin of the Session: it holds the checkpoint store, begins each turn's checkpoint, and
rewinds the parts the user chose. The conversation part cuts the history back to where the
turn began (and says so in the transcript, so a resumed session goes on from there); the
turn's words are handed back for the prompt. Only between turns: it waits on the session's
lock for a turn winding down.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from agent.checkpoints import rewind as going_back
from agent.checkpoints.store import Checkpoint, CheckpointStore, TurnCheckpoint, prune

if TYPE_CHECKING:
    from collections.abc import Iterable
    from pathlib import Path

    from agent.conversation.history import History

log = logging.getLogger("devagent.checkpoints")


@dataclass(frozen=True)
class Rewound:
    """What a rewind did: the sentence for the user, and the rewound turn's words (for the
    prompt) when the conversation went back."""

    said: str
    words: str | None = None
    refused: tuple[str, ...] = ()
    turns_back: int = 0  # the turns that left the conversation
    restored: bool = False  # an undo gave the conversation its turns back


@dataclass
class _Cut:
    turn: int
    messages: list[dict[str, Any]]
    hidden: set[int] = field(default_factory=set)


class Rewinding:
    repo: Path
    store: Any
    history: History
    turn: int
    _lock: threading.Lock

    def _start_checkpoints(self, max_mb: float, max_age_days: float) -> None:
        self.checkpoints = CheckpointStore(self.repo, max_mb=max_mb)
        try:
            prune(max_mb, max_age_days, keep=self.checkpoints.folder)
        except Exception:  # a folder that cannot be pruned costs disk, not the session
            log.warning("old checkpoints were not pruned", exc_info=True)
        self.turn_checkpoint: TurnCheckpoint | None = None
        self._rewound: set[int] = set()  # turns the conversation went back over
        self._cut: _Cut | None = None  # what the last conversation rewind took out, to undo it

    def _checkpoint_turn(self, turn: int, words: str, history_at: int) -> None:
        transcript = getattr(self.history.transcript, "path", None)
        self.turn_checkpoint = self.checkpoints.begin_turn(turn, words, history_at, transcript.name if transcript else "")
        self._cut = None  # a new turn after a rewind: the conversation cannot be undone into it

    def turns_to_rewind(self) -> list[Checkpoint]:
        """The turns the conversation holds, each a point to go back to, oldest first."""
        return [c for c in self.checkpoints.list() if c.turn not in self._rewound]

    def rewind_preview(self, turn: int) -> going_back.Preview | None:
        return going_back.preview(self.checkpoints.list(), turn, self.repo, self.store, self.history.messages)

    def rewind(self, turn: int, parts: Iterable[str]) -> Rewound:
        """Goes back to before turn `turn` in the chosen parts."""
        chosen = set(parts)
        with self._lock:
            plan = self.rewind_preview(turn)
            if plan is None:
                return Rewound(f"There is no checkpoint of turn {turn} in this session.")
            outcome = going_back.Outcome()
            if "code" in chosen:
                going_back.put_files(self.repo, plan.code, outcome)
            if "memory" in chosen and self.store is not None:
                going_back.put_memory(self.store, plan.memory, outcome)
            words = None
            said = []
            if "conversation" in chosen:
                if plan.conversation:
                    at = plan.to.history_at
                    self._cut = _Cut(turn, self.history.messages[at:], {c.turn for c in plan.later} - self._rewound)
                    self.history.cut_back(at, turn=self.turn)
                    self._rewound |= self._cut.hidden
                    words = plan.to.words
                    said.append(f"The conversation is back to before “{going_back._short(plan.to.words)}”.")
                else:
                    said.append(plan.lines("conversation")[0])
            going_back.save_undo(self.repo, self.checkpoints.session, outcome, turn)
            log.info("rewound to before turn %d (%s): %d back, %d refused", turn, ", ".join(sorted(chosen)),
                     len(outcome.done), len(outcome.refused))
            if "code" in chosen or "memory" in chosen:
                said.append(outcome.said())
            turns_back = len(self._cut.hidden) if words is not None and self._cut is not None else 0
            return Rewound(" ".join(said), words, tuple(outcome.refused), turns_back)

    def undo_rewind(self) -> Rewound:
        """The last rewind undone: the files and memory it put back, as it found them (a file
        changed since is refused and named), and the conversation it cut, when no turn came
        after it."""
        with self._lock:
            saved = going_back.load_undo(self.repo, self.checkpoints.session)
            cut, self._cut = self._cut, None
            if saved is None and cut is None:
                return Rewound("There is no rewind to undo.")
            said = []
            if cut is not None:
                self.history.restore(cut.messages, turn=self.turn)
                self._rewound -= cut.hidden
                said.append("The conversation has its turns back.")
            if saved is not None:
                _turn, code, memory = saved
                outcome = going_back.undo_files_and_memory(self.repo, self.store, code, memory)
                going_back.forget_undo(self.repo, self.checkpoints.session)
                if code or memory:
                    said.append(outcome.said().replace("Back as it was", "As the rewind found it"))
                return Rewound(" ".join(said), None, tuple(outcome.refused), restored=cut is not None)
            return Rewound(" ".join(said), restored=cut is not None)
