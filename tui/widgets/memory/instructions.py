"""The memory pane's read-only section: the repository's instruction files, by source.

It is given what the session read (`InstructionsShown`, set from above) and draws it: each
file with the folder it governs (or what imported it), whether the agent is given them
(only once the repository is trusted), and about how many tokens of the prompt they take.
Nothing here can be edited: the files are the repository's, changed in the repository.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual.reactive import reactive
from textual.widgets import Static

from tui import format as fmt

MAX_SHOWN = 5


@dataclass(frozen=True)
class InstructionsShown:
    """The repository's instruction files as the memory pane lists them."""

    sources: tuple[tuple[str, str], ...]  # (file, what it governs or what imported it)
    given: bool  # the agent is given them (the repository is trusted)
    tokens: int  # about how many the prompt's block takes
    not_read: int = 0  # imports refused, files left out for length

    @classmethod
    def of(cls, instructions: Any) -> InstructionsShown:
        """From a session's agent.instructions.block.RepositoryInstructions."""
        from agent.instructions.block import estimated_tokens, prompt_text

        found = instructions.found
        sources = tuple((f.path, f"imported by {f.imported_by}" if f.imported_by else (f.scope or "whole repository"))
                        for f in found.files)
        return cls(sources, bool(instructions.given), estimated_tokens(prompt_text(found)),
                   len(found.refused) + len(found.left_out))


class InstructionsSection(Static):
    DEFAULT_CSS = """
    InstructionsSection {
        height: auto;
        max-height: 8;
        text-wrap: nowrap;
        text-overflow: ellipsis;
        padding: 0 1;
        border-bottom: solid $primary-muted;
        display: none;
    }
    InstructionsSection.-shown { display: block; }
    """

    shown: reactive[InstructionsShown | None] = reactive(None, layout=True)

    def watch_shown(self, shown: InstructionsShown | None) -> None:
        self.set_class(bool(shown and shown.sources), "-shown")
        if shown is None or not shown.sources:
            return
        # one line each, cut to the pane's width: a narrow pane keeps every name's start
        lines = [Text.assemble(("Instructions", "bold"), (" (read-only)", "dim"))]
        for path, governs in shown.sources[:MAX_SHOWN]:
            lines.append(Text.assemble((f" {fmt.sanitize(path)}", ""), (f"  {fmt.sanitize(governs)}", "dim")))
        more = len(shown.sources) - MAX_SHOWN
        extra = [f"{more} more"] if more > 0 else []
        if shown.not_read:
            extra.append(f"{shown.not_read} not read")
        if extra:
            lines.append(Text(" " + " · ".join(extra), style="dim"))
        lines.append(Text(f" ≈{shown.tokens:,} tokens, followed by the agent", style="dim") if shown.given
                     else Text(f" not followed until you trust the repository (≈{shown.tokens:,} tokens)", style="italic"))
        text = Text("\n").join(lines)
        text.no_wrap = True
        text.overflow = "ellipsis"
        self.update(text)
