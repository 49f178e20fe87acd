"""Every text the model receives passes the memory store's secret filter first.

Tool results, memory results, the preloaded memory and index, replayed history and the
previous session's notes all go through the same mask. The model is told what was masked
and where, so it can say "the .env holds an AWS key" without ever having read the key,
and does not mistake "[masked: ...]" for the file's content.

Masking a large output takes a moment; it asks the turn's cancellation between its
passes, and a cancelled scan shows nothing of the text (ScanCancelled).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from agent.tools.base import ToolResult
from memory.secrets import ScanCancelled, find_secrets, mask_secrets

__all__ = ["Masked", "ScanCancelled", "mask_text", "mask_text_with_spans", "mask_result", "masking_note", "mask_messages", "withheld"]

MAX_LISTED = 5


@dataclass(frozen=True)
class Masked:
    kind: str
    where: str  # what the line counts: "line" of a file, "output line" of a log
    line: int

    def describe(self) -> str:
        return f"{self.kind}, {self.where} {self.line}"


def _asker(cancel: Any) -> Callable[[], bool] | None:
    """A Cancellation (anything with `.cancelled`), a callable, or None."""
    if cancel is None:
        return None
    if callable(cancel):
        return lambda: bool(cancel())
    return lambda: bool(cancel.cancelled)


def mask_text(text: str, where: str = "line", line_offset: int = 0, cancel: Any = None) -> tuple[str, list[Masked]]:
    """Masks credentials in text; `where` names what the line numbers count.

    Masking runs more than once over the same text (a tool masks its source, the last pass
    masks the result); the filter never takes its own "[masked: ...]" marker for a
    secret, so a second pass finds nothing and the note is not repeated.
    Raises ScanCancelled when `cancel` is set during the scan.
    """
    masked, found = mask_secrets(text, _asker(cancel))
    hits = [Masked(s.kind, where, text.count("\n", 0, s.start) + 1 + line_offset) for s in found]
    return masked, hits


def masking_note(hits: list[Masked]) -> str:
    if not hits:
        return ""
    count = len(hits)
    noun = "string was" if count == 1 else "strings were"
    listed = "; ".join(h.describe() for h in hits[:MAX_LISTED])
    if count > MAX_LISTED:
        listed += f"; {count - MAX_LISTED} more"
    return f"Note: {count} credential-shaped {noun} masked ({listed})."


def mask_result(result: ToolResult, cancel: Any = None) -> ToolResult:
    """The last pass over every result: masks text, log, summary and screen content.

    Tools that read a source (a file, a build log) mask it first and write their own note,
    whose line numbers point into that source; this pass only notes what is still left.
    Raises ScanCancelled when `cancel` is set during the scan.
    """
    text, in_text = mask_text(result.text, "result line", cancel=cancel)
    hits = list(in_text)
    log = result.log
    if log is not None:
        log, in_log = mask_text(log, "log line", cancel=cancel)
        # The text is usually condensed from the log: count the same secret once.
        if not in_text:
            hits += in_log
    summary, _ = mask_text(result.summary, cancel=cancel)
    screen = result.screen
    if screen is not None:
        title, content, fmt = screen
        title, _ = mask_text(title, cancel=cancel)
        content, in_screen = mask_text(content, "screen line", cancel=cancel)
        hits += in_screen
        screen = (title, content, fmt)
    note = masking_note(hits)
    if note:
        text = f"{text.rstrip()}\n\n{note}" if text.strip() else note
    return replace(result, text=text, log=log, summary=summary, screen=screen)


def withheld(name: str) -> ToolResult:
    """What the model gets when the turn was cancelled before a result was checked."""
    return ToolResult(
        text=f"Error: {name} output withheld: the turn was cancelled before it was checked for credentials.",
        is_error=True,
        summary="cancelled",
    )


# -- replayed history --------------------------------------------------------------------


def _masked_value(value: Any) -> Any:
    if isinstance(value, str):
        return mask_secrets(value)[0]
    if isinstance(value, list):
        return [_masked_value(v) for v in value]
    if isinstance(value, dict):
        return {k: _masked_value(v) for k, v in value.items()}
    return value


def _masked_block(block: Any) -> Any:
    """A content block with its text masked, or None when it must be left out.

    A thinking block is signed: changing its text would make the API refuse the whole
    request, so one that quotes a credential is dropped (earlier turns may go without
    their thinking). Redacted thinking is opaque and goes as it is.
    """
    if not isinstance(block, dict):
        return block
    kind = block.get("type")
    if kind == "thinking":
        return None if find_secrets(str(block.get("thinking", ""))) else block
    if kind == "redacted_thinking":
        return block
    if kind == "text":
        return {**block, "text": mask_secrets(str(block.get("text", "")))[0]}
    if kind == "tool_use":
        return {**block, "input": _masked_value(block.get("input"))}
    if kind == "tool_result":
        return {**block, "content": _masked_value(block.get("content"))}
    return _masked_value(block)


def mask_messages(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Copies of replayed messages with every credential masked; a message without one
    is returned unchanged, so a replay stays byte for byte what was said."""
    out: list[dict[str, Any]] = []
    for message in messages:
        content = message.get("content")
        if isinstance(content, str):
            masked = mask_secrets(content)[0]
            out.append(message if masked == content else {**message, "content": masked})
            continue
        if not isinstance(content, list):
            out.append(message)
            continue
        blocks = [b for b in (_masked_block(b) for b in content) if b is not None]
        if blocks == content:
            out.append(message)
            continue
        if not blocks:
            blocks = [{"type": "text", "text": "(thinking left out: it quoted a credential)"}]
        out.append({**copy.copy(message), "content": blocks})
    return out


def mask_text_with_spans(text: str, where: str = "line", cancel: Any = None) -> tuple[str, list[Masked], list[tuple[int, int]]]:
    """mask_text, and where each credential was in the original text (start, end): a search
    needs them to tell a match on a credential from a match beside one."""
    masked, found = mask_secrets(text, _asker(cancel))
    hits = [Masked(s.kind, where, text.count("\n", 0, s.start) + 1) for s in found]
    return masked, hits, [(s.start, s.end) for s in found]
