"""Every tool result passes the memory store's secret filter before the model sees it.

The model is told what was masked and where, so it can say "the .env holds an AWS key"
without ever having read the key, and does not mistake "[masked: ...]" for the file's content.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from agent.tools.base import ToolResult
from memory.secrets import mask_secrets

MAX_LISTED = 5


@dataclass(frozen=True)
class Masked:
    kind: str
    where: str  # what the line counts: "line" of a file, "output line" of a log
    line: int

    def describe(self) -> str:
        return f"{self.kind}, {self.where} {self.line}"


def mask_text(text: str, where: str = "line", line_offset: int = 0) -> tuple[str, list[Masked]]:
    """Masks credentials in text; `where` names what the line numbers count.

    Masking runs more than once over the same text (a tool masks its source, the last pass
    masks the result); the filter never takes its own "[masked: ...]" marker for a
    secret, so a second pass finds nothing and the note is not repeated.
    """
    masked, found = mask_secrets(text)
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


def mask_result(result: ToolResult) -> ToolResult:
    """The last pass over every result: masks text, log, summary and screen content.

    Tools that read a source (a file, a build log) mask it first and write their own note,
    whose line numbers point into that source; this pass only notes what is still left.
    """
    text, in_text = mask_text(result.text, "result line")
    hits = list(in_text)
    log = result.log
    if log is not None:
        log, in_log = mask_text(log, "log line")
        # The text is usually condensed from the log: count the same secret once.
        if not in_text:
            hits += in_log
    summary, _ = mask_text(result.summary)
    screen = result.screen
    if screen is not None:
        title, content, fmt = screen
        title, _ = mask_text(title)
        content, in_screen = mask_text(content, "screen line")
        hits += in_screen
        screen = (title, content, fmt)
    note = masking_note(hits)
    if note:
        text = f"{text.rstrip()}\n\n{note}" if text.strip() else note
    return replace(result, text=text, log=log, summary=summary, screen=screen)
