"""The conversation as the API gets it, and its saved copy.

The history only grows at its end, because a thinking block's signature binds it to
everything before it. The one exception is a turn the API refused: it is taken back whole
(from the transcript too), so that what was refused is not sent again with every later turn.
A turn that was cancelled or failed otherwise stays, closed with a note, and the next words
come as a message of their own: a model answers every question in a message.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Callable
from datetime import datetime
from typing import Any

from agent.conversation import utf8
from agent.conversation.transcripts import SavedSession, Transcript, content_blocks

log = logging.getLogger("devagent.history")

CANCELLED_NOTE = "[The user cancelled this turn here, before it was finished. Do not pick it up again unless they ask.]"
FAILED_NOTE = "[This turn stopped here, unfinished: {reason}]"
REFUSED_NOTE = (
    "[The user's message here was refused by the API and was removed from the conversation "
    "so that it is not sent again: {reason}]"
)
NOT_ANSWERED = "[Not answered.]"
NOT_RUN = "Not run: the turn stopped."
CUT_SHORT = "Not run: the reply was cut short."


def today(now: datetime) -> str:
    return f"Today is {now.strftime('%A, %d %B %Y')} ({now.date().isoformat()})."


def tool_result(tool_id: str, text: str, is_error: bool) -> dict[str, Any]:
    result: dict[str, Any] = {"type": "tool_result", "tool_use_id": tool_id, "content": text or "(no output)"}
    if is_error:
        result["is_error"] = True
    return result


def _text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def prefix_of(model: str, system: list[dict[str, Any]], tools: list[dict[str, Any]]) -> str:
    """What a thinking block is bound to besides the messages before it: the top-level
    `system` and `tools` ("Preserved thinking"), and the model that can read it."""

    def unmarked(blocks: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [{k: v for k, v in b.items() if k != "cache_control"} for b in blocks if b.get("text", True)]

    raw = json.dumps([model, unmarked(system), unmarked(tools)], sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(raw.encode("utf-8")).hexdigest()[:16]


def without_thinking(message: dict[str, Any]) -> dict[str, Any] | None:
    """The message without thinking blocks; None when nothing else was in it."""
    blocks = [b for b in content_blocks(message) if not (isinstance(b, dict) and b.get("type") in ("thinking", "redacted_thinking"))]
    if not blocks:
        return None
    return {**message, "content": blocks}


def without_blank_text(message: dict[str, Any]) -> dict[str, Any]:
    """The message without text blocks of whitespace alone, which the API refuses ("text
    content blocks must contain non-whitespace text"); one left with nothing says so."""
    content = message.get("content")
    if isinstance(content, str):
        content = [_text(content)]
    if not isinstance(content, list):
        return message
    kept = [b for b in content if not (isinstance(b, dict) and b.get("type") == "text" and not str(b.get("text") or "").strip())]
    if len(kept) == len(content):
        return message
    if not kept:
        kept = [_text(NOT_ANSWERED if message.get("role") == "assistant" else "(silence)")]
    return {**message, "content": kept}


def bound_thinking(messages: list[dict[str, Any]], prefixes: list[str | None], prefix: str) -> list[dict[str, Any]]:
    """`messages` to send again under `prefix`: their thinking blocks as long as every
    message so far went out under the same one, none from the first that did not.

    A thinking block is invalid once `system`, `tools` or an earlier message changed (the API
    answers 400, "Prefix checks for thinking blocks"), and so is every block after it. The
    cost: the model no longer sees how it reasoned in those turns, only what it said and did.
    """
    kept: list[dict[str, Any]] = []
    same = True
    for message, was in zip(messages, prefixes, strict=True):
        same = same and was == prefix
        if same:
            kept.append(message)
            continue
        lean = without_thinking(message)
        if lean is not None:
            kept.append(lean)
        elif message.get("role") == "assistant":
            # An answer that was only thinking still answers; the API wants one between users.
            kept.append({"role": "assistant", "content": [_text(NOT_ANSWERED)]})
    return kept


class History:
    def __init__(self, transcript: Transcript | None, clock: Callable[[], datetime], prefix: str = "") -> None:
        self.messages: list[dict[str, Any]] = []
        self.transcript = transcript
        self._clock = clock
        # What the session's requests are bound to (prefix_of), saved with each message.
        self.prefix = prefix
        # The index of the message that carries today's date; None until one does.
        self._date_at: int | None = None
        # The last turn: (what it ran under, the index where it began, its number).
        self._last_turn: tuple[object, int, int] | None = None

    @classmethod
    def resumed(
        cls, saved: SavedSession, transcript: Transcript | None, clock: Callable[[], datetime], prefix: str = ""
    ) -> History:
        """A saved conversation to go on with, after its last finished turn; it is already in
        `transcript`, which is told where the unfinished turn (if any) is cut off. Thinking
        made under another prefix (another setting changed the system prompt or the tools)
        is not sent again (`bound_thinking`)."""
        from agent.conversation.replay import completed

        kept = completed(saved.messages)
        history = cls(transcript, clock, prefix)
        # A blank text block saved by an older devagent would fail every request: it goes,
        # and thinking after the message it was in is bound to what is no longer sent.
        messages = [without_blank_text(m.message) for m in kept]
        prefixes = [m.prefix for m in kept]
        repaired = next((i for i, (m, s) in enumerate(zip(messages, kept)) if m is not s.message), None)
        if repaired is not None:
            prefixes = prefixes[: repaired + 1] + [None] * (len(prefixes) - repaired - 1)
        history.messages = bound_thinking(messages, prefixes, prefix)
        # The date was told on the day; a later day tells it again.
        if kept and kept[-1].time.date() == clock().date():
            history._date_at = 0
        if transcript is not None and len(kept) != len(saved.messages):
            try:
                transcript.add_history_cut(keep=len(kept), turn=max(m.turn for m in saved.messages), time=clock())
            except Exception as err:
                log.warning("transcript %s: the cut after the last finished turn was not saved: %s", transcript.path, err)
        return history

    def restart(self, messages: list[dict[str, Any]], *, turn: int) -> None:
        """`messages` in place of the whole history, in the same transcript."""
        self.messages = []
        self._date_at = None
        self._last_turn = None
        if self.transcript is not None:
            try:
                self.transcript.add_history_cut(keep=0, turn=turn, time=self._clock())
            except Exception as err:
                log.warning("transcript %s: the new start was not saved: %s", self.transcript.path, err)
        for message in messages:
            self.append(message, turn=turn)

    def cut_back(self, at: int, *, turn: int) -> None:
        """The conversation goes on from its first `at` messages (a rewind), in the transcript too."""
        del self.messages[at:]
        if self._date_at is not None and self._date_at >= at:
            self._date_at = None
        self._last_turn = None
        if self.transcript is not None:
            try:
                self.transcript.add_history_cut(keep=at, turn=turn, time=self._clock())
            except Exception as err:
                log.warning("transcript %s: the rewind was not saved: %s", self.transcript.path, err)

    def restore(self, messages: list[dict[str, Any]], *, turn: int) -> None:
        """Messages a rewind cut, back at the end (its undo)."""
        for message in messages:
            self.append(message, turn=turn)

    def rebind(self, prefix: str) -> None:
        """Later requests go out under `prefix` (the system prompt changed): the thinking
        bound to the old one is no longer sent (`bound_thinking`)."""
        if prefix == self.prefix:
            return
        self.messages = bound_thinking(self.messages, [self.prefix] * len(self.messages), prefix)
        self.prefix = prefix

    def rewrite(self, messages: list[dict[str, Any]]) -> None:
        """`messages` (as many) in place of the history, between turns: thinking is kept
        before the first message that changed, none from it on (`bound_thinking`). The saved
        transcript keeps what was said."""
        first = next((i for i, (old, new) in enumerate(zip(self.messages, messages, strict=True)) if old != new), None)
        if first is None:
            return
        prefixes: list[str | None] = [self.prefix] * first + [None] * (len(messages) - first)
        self.messages = bound_thinking(messages, prefixes, self.prefix)

    def __len__(self) -> int:
        return len(self.messages)

    def append(self, message: dict[str, Any], *, turn: int, when: datetime | None = None, replayed: bool = False) -> None:
        # The last guard: one character (or one blank block) the API cannot take would fail
        # every later request.
        message = without_blank_text(utf8.valid_value(message)[0])
        self.messages.append(message)
        self._save(message, turn=turn, when=when, replayed=replayed)

    def add_user_text(self, text: str, *, turn: int, notes: tuple[str, ...] = ()) -> None:
        """The user's words as the next message, after today's date (first time only) and any
        `notes` the session has for the model."""
        if self.messages and self.messages[-1]["role"] == "user":
            # Words left without an answer (a history that ended oddly) are closed, not
            # joined to these: the model would answer both.
            self.append({"role": "assistant", "content": [_text(NOT_ANSWERED)]}, turn=turn)
        blocks: list[dict[str, Any]] = []
        if self._date_at is None:
            # The date belongs here and not in the system prompt: a prompt that says
            # "Monday" is not a prefix of one that said "Friday".
            blocks.append(_text(today(self._clock())))
            self._date_at = len(self.messages)
        blocks.extend(_text(note) for note in notes if note)
        blocks.append(_text(text if text.strip() else "(silence)"))
        self.append(self.user_message(blocks), turn=turn)

    def user_message(self, blocks: list[dict[str, Any]]) -> dict[str, Any]:
        """The user message that brings `blocks` after the history as it is: after a reply cut
        short while asking for tools, every tool_use gets its result first, as the API requires."""
        last = self.messages[-1] if self.messages else None
        if last is None or last["role"] != "assistant":
            return {"role": "user", "content": blocks}
        unanswered = [b["id"] for b in content_blocks(last) if isinstance(b, dict) and b.get("type") == "tool_use"]
        return {"role": "user", "content": [*(tool_result(i, CUT_SHORT, True) for i in unanswered), *blocks]}

    def close_turn(self, start: int, note: str, shown: str, *, turn: int) -> None:
        """Ends an unfinished turn (it began at index `start`) with `note`, keeping the words
        the user saw of the call it stopped in."""
        try:
            last = self.messages[-1] if len(self.messages) > start else None
            if last is None:
                return
            if last["role"] == "assistant":
                unanswered = [b["id"] for b in content_blocks(last) if b.get("type") == "tool_use"]
                if not unanswered:
                    return  # it already ends with a reply, cut short
                self.append({"role": "user", "content": [tool_result(i, NOT_RUN, True) for i in unanswered]}, turn=turn)
            blocks = [_text(shown)] if shown.strip() else []
            self.append({"role": "assistant", "content": [*blocks, _text(note)]}, turn=turn)
        except Exception:
            log.exception("turn %d could not be closed in the history; it is taken out instead", turn)
            self.drop_turn(start, note, turn=turn)

    def drop_turn(self, start: int, reason: str | None, *, turn: int) -> None:
        """Takes the turn that began at index `start` out of the history and the transcript,
        leaving a note in its place (none when `reason` is None: a refusal must leave no
        trace, or the refusals go on)."""
        del self.messages[start:]
        if self._date_at is not None and self._date_at >= start:
            self._date_at = None
        if self.transcript is not None:
            try:
                self.transcript.add_rollback(turn=turn, time=self._clock())
            except Exception as err:
                log.warning("transcript %s: turn %d was not withdrawn: %s", self.transcript.path, turn, err)
        if reason is None:
            return
        try:
            self.add_user_text(REFUSED_NOTE.format(reason=reason), turn=turn)
            self.append({"role": "assistant", "content": [_text(NOT_ANSWERED)]}, turn=turn)
        except Exception:
            log.exception("turn %d: the note of a withdrawn turn was not added", turn)
            del self.messages[start:]

    def turn_began(self, key: object, start: int, *, turn: int) -> None:
        """The turn run under `key` (its cancellation) begins at index `start`."""
        self._last_turn = (key, start, turn)

    def withdraw_turn(self, key: object) -> bool:
        """Take the turn run under `key` out, as if never asked, when it is still the last one:
        a spoken question the speaker went on from (the whole question comes next)."""
        last = self._last_turn
        if last is None or last[0] is not key or len(self.messages) <= last[1]:
            return False
        self._last_turn = None
        self.drop_turn(last[1], None, turn=last[2])
        return True

    def with_request(self, blocks: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The messages with `blocks` as one more user message, for a call whose ask is not
        kept (the summary); the history itself does not change."""
        last = self.messages[-1] if self.messages else None
        if last is not None and last["role"] == "user":
            return [*self.messages[:-1], {"role": "user", "content": [*content_blocks(last), *blocks]}]
        return [*self.messages, self.user_message(blocks)]

    def _save(self, message: dict[str, Any], *, turn: int, when: datetime | None, replayed: bool) -> None:
        if self.transcript is None:
            return
        try:
            self.transcript.add_message(message, turn=turn, time=when or self._clock(), replayed=replayed, prefix=self.prefix)
        except Exception as err:
            # A full disk (or any other fault of the saved copy) must not end the
            # conversation; only the saved copy is lost.
            log.warning("transcript %s: a message was not saved: %s: %s", self.transcript.path, type(err).__name__, err)
