"""Every session's conversation, saved per repository so a later session can replay it.

One JSONL file a session under <data dir>/transcripts/<repository key>/, named by its start
time so that sorting the names sorts the sessions. Files are created 0600 in a 0700 folder:
a conversation holds whatever the user said about their work.

Records, one a line:
  {"type": "session", "started": iso, "model": .., "memory_mode": .., "repo": ..}
  {"type": "message", "time": iso, "turn": n, "replayed": bool, "message": {role, content},
   "prefix": fingerprint}   the model, system blocks and tools the message went out with
      (agent.conversation.history.prefix_of); a thinking block is only valid after the same ones
  {"type": "summary", "time": iso, "text": ..}
  {"type": "rollback", "time": iso, "turn": n}   # turn n's messages so far are withdrawn
  {"type": "turn", "time": iso, "turn": n, "usage": {..}, "cancelled": bool}   a turn ended
  {"type": "history", "time": iso, "turn": n, "keep": k}   the history goes on from its first
      k messages: 0 after devagent's own summary, fewer after resuming past an unfinished turn
  {"type": "scrub", "time": iso, "deleted": [path], "edited": [path]}   the text of these
      memories is taken out of the messages saved before it (agent.conversation.scrub)
  {"type": "memory", "time": iso, "files": {path: fingerprint}}   every memory as the model
      knew it at the end of a turn, so that a resumed session tells what changed since

The header may also hold "context", the session's own system block (preloaded memory), so
a resumed session sends the same request it sent before.

Replayed messages are saved too: the conversation a session had is what it replayed plus
what it added, and the next session's history mode replays all of it.
"""

from __future__ import annotations

import json
import os
import secrets
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from agent.conversation import utf8
from agent.conversation.scrub import scrubbed


def transcripts_dir(repo: Path) -> Path:
    from memory.location import data_dir, repository_key

    return data_dir() / "transcripts" / repository_key(repo)


@dataclass
class SavedMessage:
    time: datetime
    turn: int
    message: dict[str, Any]
    replayed: bool = False
    # The prefix it went out under (agent.conversation.history.prefix_of); None: not known, or changed on
    # the way to the disk (masked).
    prefix: str | None = None


@dataclass
class SavedSession:
    path: Path
    started: datetime
    messages: list[SavedMessage] = field(default_factory=list)
    summary: str | None = None
    summary_time: datetime | None = None
    model: str = ""
    memory_mode: str = ""
    context: str = ""
    # The effort the session ran with: Sonnet 5.5 takes no change of it mid-conversation.
    effort: str = ""
    turns: list[dict[str, Any]] = field(default_factory=list)
    # Every memory as the model knew it at the end of its last turn (fingerprints, see
    # agent.conversation.scrub); None for a transcript saved without them.
    memory_known: dict[str, str] | None = None


class Transcript:
    """The file of one running session; created on the first write."""

    def __init__(
        self, repo: Path, *, started: datetime, model: str, memory_mode: str, context: str = "", effort: str = ""
    ) -> None:
        self.repo = repo
        self.started = started
        self.header = {
            "type": "session",
            "started": started.isoformat(),
            "model": model,
            "memory_mode": memory_mode,
            "repo": str(repo),
        }
        if context:
            self.header["context"] = context
        if effort:
            self.header["effort"] = effort
        stamp = started.strftime("%Y%m%dT%H%M%S%f")
        self.path = transcripts_dir(repo) / f"{stamp}-{secrets.token_hex(3)}.jsonl"
        self._opened = False
        # Why the last write failed, for the session to say; None once one succeeds.
        self.problem: str | None = None

    @classmethod
    def reopen(cls, repo: Path, saved: SavedSession) -> Transcript:
        """The file of a saved session, to go on writing where it ended."""
        transcript = cls(repo, started=saved.started, model=saved.model, memory_mode=saved.memory_mode, context=saved.context,
                         effort=saved.effort)
        transcript.path = saved.path
        transcript._opened = True
        return transcript

    def add_turn(self, turn: int, usage: dict[str, Any], *, time: datetime, cancelled: bool = False) -> None:
        from memory.git.head_file import head_from_files

        record: dict[str, Any] = {"type": "turn", "time": time.isoformat(), "turn": turn, "usage": usage, "cancelled": cancelled}
        head = head_from_files(self.repo)
        if head:
            # The commit checked out as the turn ended: the next session's welcome back starts its log there.
            record["head"] = head
        self._write(record)

    def add_history_cut(self, *, keep: int, turn: int, time: datetime) -> None:
        self._write({"type": "history", "time": time.isoformat(), "turn": turn, "keep": keep})

    def add_message(
        self, message: dict[str, Any], *, turn: int, time: datetime, replayed: bool = False, prefix: str | None = None
    ) -> None:
        masked = masked_tool_inputs(message)
        record: dict[str, Any] = {"type": "message", "time": time.isoformat(), "turn": turn, "replayed": replayed, "message": masked}
        # A masked copy is not what the model saw: thinking after it would not be valid.
        if prefix and masked == message:
            record["prefix"] = prefix
        self._write(record)

    def add_scrub(self, *, deleted: list[str], edited: list[str], time: datetime) -> None:
        """The text of these memories is no longer in the messages saved so far."""
        self._write({"type": "scrub", "time": time.isoformat(), "deleted": _masked_paths(deleted),
                     "edited": _masked_paths(edited)})

    def add_memory_known(self, files: dict[str, str], *, time: datetime) -> None:
        # A file's name can hold a credential as well as its text: a masked name matches no
        # file when read back, so it is only ever taken for a memory gone since.
        self._write({"type": "memory", "time": time.isoformat(),
                     "files": {str(_masked_value(path)): print_ for path, print_ in files.items()}})

    def add_rollback(self, *, turn: int, time: datetime) -> None:
        """The messages of `turn` saved so far are no longer part of the conversation."""
        self._write({"type": "rollback", "time": time.isoformat(), "turn": turn})

    def add_summary(self, text: str, *, time: datetime) -> None:
        self._write({"type": "summary", "time": time.isoformat(), "text": text})

    def _write(self, record: dict[str, Any]) -> None:
        lines = []
        if not self._opened:
            # Every level made 0700: the folder names alone say which repositories the user works on.
            from memory.private import make_private

            make_private(self.path.parent)
            lines.append(json.dumps(self.header, ensure_ascii=False))
        lines.append(json.dumps(record, ensure_ascii=False))
        # The session hands over valid text already; a file that cannot be read back as
        # UTF-8 would lose the whole transcript, so this holds even if it did not.
        data = utf8.valid("\n".join(lines) + "\n")[0].encode("utf-8")
        fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        try:
            start = os.fstat(fd).st_size
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view):]
            except OSError as error:
                # A full disk: the file keeps whole records only (a torn one would glue onto
                # the next), and a transcript that never got its header is not left empty.
                os.ftruncate(fd, start)
                if start == 0:
                    os.unlink(self.path)
                self.problem = (
                    f"The transcript {self.path} could not be saved ({error.strerror or error}); "
                    f"free space in {self.path.parent} to keep this session resumable."
                )
                raise
        finally:
            os.close(fd)
        self._opened = True
        self.problem = None


def load(path: Path) -> SavedSession | None:
    """A saved session, or None when the file is unreadable; a torn last line is skipped."""
    try:
        raw = path.read_text(encoding="utf-8")
    except OSError:
        return None
    session: SavedSession | None = None
    for line in raw.splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if not isinstance(record, dict):
            continue
        kind = record.get("type")
        try:
            if kind == "session":
                session = SavedSession(
                    path=path,
                    started=datetime.fromisoformat(record["started"]),
                    model=str(record.get("model") or ""),
                    memory_mode=str(record.get("memory_mode") or ""),
                    context=str(record.get("context") or ""),
                    effort=str(record.get("effort") or ""),
                )
            elif session is None:
                continue
            elif kind == "turn" and isinstance(record.get("usage"), dict):
                session.turns.append(record)
            elif kind == "history":
                session.messages = session.messages[: max(0, int(record["keep"]))]
            elif kind == "message" and isinstance(record.get("message"), dict):
                message = record["message"]
                last = session.messages[-1].message if session.messages else None
                if last is not None and last.get("role") == "user" == message.get("role"):
                    # A failed turn's words and the next turn's went out as one message.
                    last["content"] = content_blocks(last) + content_blocks(message)
                    if session.messages[-1].prefix != record.get("prefix"):
                        session.messages[-1].prefix = None
                    continue
                session.messages.append(
                    SavedMessage(
                        time=datetime.fromisoformat(record["time"]),
                        turn=int(record.get("turn", 0)),
                        message=record["message"],
                        replayed=bool(record.get("replayed")),
                        prefix=str(record["prefix"]) if record.get("prefix") else None,
                    )
                )
            elif kind == "scrub":
                scrub(session.messages, _paths(record.get("deleted")), _paths(record.get("edited")))
            elif kind == "memory" and isinstance(record.get("files"), dict):
                session.memory_known = {str(k): str(v) for k, v in record["files"].items()}
            elif kind == "rollback":
                turn = int(record["turn"])
                session.messages = [m for m in session.messages if m.replayed or m.turn != turn]
            elif kind == "summary" and isinstance(record.get("text"), str):
                session.summary = record["text"]
                session.summary_time = datetime.fromisoformat(record["time"])
        except (KeyError, TypeError, ValueError):
            continue
    return session


def scrub(messages: list[SavedMessage], deleted: list[str], edited: list[str]) -> None:
    """Takes the text of the `deleted` and `edited` memories out of `messages`, in place
    (agent.conversation.scrub). Thinking from the first message changed on was made with the old
    text before it and is no longer valid: those messages lose their prefix."""
    new = scrubbed([m.message for m in messages], deleted, edited)
    first = next((i for i, (m, n) in enumerate(zip(messages, new, strict=True)) if m.message is not n), None)
    if first is None:
        return
    for saved, message in zip(messages[first:], new[first:], strict=True):
        saved.message = message
        saved.prefix = None


def _paths(value: object) -> list[str]:
    return [str(p) for p in value] if isinstance(value, list) else []


def saved_sessions(repo: Path) -> list[Path]:
    """The repository's transcripts, oldest first."""
    folder = transcripts_dir(repo)
    try:
        return sorted(p for p in folder.glob("*.jsonl") if p.is_file())
    except OSError:
        return []


def latest(repo: Path, *, exclude: Path | None = None, with_summary: bool = False) -> SavedSession | None:
    """The newest saved session with something in it (a summary, when asked for one)."""
    for path in reversed(saved_sessions(repo)):
        if exclude is not None and path == exclude:
            continue
        session = load(path)
        if session is None:
            continue
        if with_summary and session.summary:
            return session
        if not with_summary and session.messages:
            return session
    return None


def masked_tool_inputs(message: dict[str, Any]) -> dict[str, Any]:
    """The message with credentials in its tool inputs and its text masked, as tool results are.

    A key the model tried to save (and the store refused), or one the user or the model
    wrote in a reply, must not be kept on disk here, nor replayed to a later session by
    --resume. The running session's own history keeps what was sent. Thinking is signed
    and stays as it is.
    """
    content = message.get("content")
    if isinstance(content, str):
        masked_text = _masked_value(content)
        return message if masked_text == content else {**message, "content": masked_text}
    blocks = content_blocks(message)
    masked = []
    for block in blocks:
        if isinstance(block, dict) and block.get("type") == "tool_use":
            block = {**block, "input": _masked_value(block.get("input"))}
        elif isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str):
            block = {**block, "text": _masked_value(block["text"])}
        masked.append(block)
    return {**message, "content": masked} if masked != blocks else message


def _masked_paths(paths: list[str]) -> list[str]:
    return [str(_masked_value(path)) for path in paths]


def _masked_value(value: object) -> object:
    from agent.tools.masking import mask_text

    if isinstance(value, str):
        return mask_text(value)[0]
    if isinstance(value, dict):
        return {key: _masked_value(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_masked_value(item) for item in value]
    return value


def content_blocks(message: dict[str, Any]) -> list[Any]:
    """A message's content as a list of blocks; the API also takes a plain string."""
    content = message.get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return list(content or [])
