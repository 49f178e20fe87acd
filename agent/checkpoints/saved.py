"""Rewinding a session that is not running (`devagent rewind`): its checkpoints as saved.

The code and the memory go back as in a running session (agent.checkpoints.rewind). The
conversation goes back in the session's transcript: a cut there makes `devagent --resume`
go on from before the turn.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent.checkpoints import rewind as going_back
from agent.checkpoints.store import Checkpoint, load_session, repository_folder, sessions

if TYPE_CHECKING:
    from memory.seam import Store


@dataclass(frozen=True)
class SavedCheckpoints:
    repo: Path
    session: str
    checkpoints: list[Checkpoint]

    def history(self) -> list[dict[str, Any]] | None:
        """The messages of the session's transcript, or None without one."""
        from agent.conversation.transcripts import load, transcripts_dir

        name = next((c.transcript for c in self.checkpoints if c.transcript), "")
        saved = load(transcripts_dir(self.repo) / name) if name else None
        return None if saved is None else [m.message for m in saved.messages]

    def preview(self, turn: int, store: Store | None) -> going_back.Preview | None:
        return going_back.preview(self.checkpoints, turn, self.repo, store, self.history())

    def rewind(self, turn: int, parts: set[str], store: Store | None) -> tuple[str, list[str]]:
        plan = self.preview(turn, store)
        if plan is None:
            return f"Session {self.session} has no checkpoint of turn {turn}.", []
        outcome = going_back.Outcome()
        if "code" in parts:
            going_back.put_files(self.repo, plan.code, outcome)
        if "memory" in parts and store is not None:
            going_back.put_memory(store, plan.memory, outcome)
        said = []
        if "conversation" in parts:
            said.append(self._cut(plan) or plan.lines("conversation")[0])
        going_back.save_undo(self.repo, self.session, outcome, turn)
        if parts & {"code", "memory"}:
            said.append(outcome.said())
        return " ".join(said), outcome.refused

    def _cut(self, plan: going_back.Preview) -> str | None:
        from agent.conversation.transcripts import Transcript, load, transcripts_dir

        if not plan.conversation or not plan.to.transcript:
            return None
        saved = load(transcripts_dir(self.repo) / plan.to.transcript)
        if saved is None:
            return None
        Transcript.reopen(self.repo, saved).add_history_cut(keep=plan.to.history_at, turn=plan.later[-1].turn,
                                                              time=datetime.now().astimezone())
        return (f"The saved conversation is back to before “{going_back._short(plan.to.words)}”: "
                f"`devagent --resume` goes on from there.")

    def undo(self, store: Store | None) -> tuple[str, list[str]]:
        saved = going_back.load_undo(self.repo, self.session)
        if saved is None:
            return "There is no rewind of this session's files or memory to undo.", []
        _turn, code, memory = saved
        outcome = going_back.undo_files_and_memory(self.repo, store, code, memory)
        going_back.forget_undo(self.repo, self.session)
        return outcome.said().replace("Back as it was", "As the rewind found it"), outcome.refused


def saved_checkpoints(repo: Path, session: str | None = None) -> SavedCheckpoints | None:
    """The checkpoints of `session`, or of the newest session that has any."""
    names = sessions(repo)
    name = session if session in names else (names[0] if names and session is None else None)
    if name is None:
        return None
    return SavedCheckpoints(Path(repo).resolve(), name, load_session(repository_folder(repo) / name))
