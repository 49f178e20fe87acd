"""The closed sets of words that settings and tool inputs take, each written once.

The command line's `choices`, the config file's checks, the session, the tool registry, the
show_on_screen schema and the evaluation all read these, so a new memory mode or format is
one edit here and the type checker points at every `match` or table that must learn it.
No imports beyond typing: everything else in agent/ and tui/ may import this module.
"""

from __future__ import annotations

from typing import Literal, TypeVar, get_args

T = TypeVar("T", bound=str)

# How a session starts from the ones before it (agent/recall/memory_modes.py says what each one does).
MemoryMode = Literal["none", "history", "window", "summary", "on-demand", "preloaded", "index"]
MEMORY_MODES: tuple[MemoryMode, ...] = get_args(MemoryMode)
# The modes whose sessions read and write memory through the memory tool.
MEMORY_TOOL_MODES: tuple[MemoryMode, ...] = ("on-demand", "preloaded", "index")
# The modes that replay the previous session's messages.
REPLAY_MODES: tuple[MemoryMode, ...] = ("history", "window")

# Who decides what the model's memory writes do: they apply (auto), wait for the user
# (review), or memory is read-only (off).
MemoryWrites = Literal["auto", "review", "off"]
MEMORY_WRITES: tuple[MemoryWrites, ...] = get_args(MemoryWrites)

# The same choice for the model's changes to the repository's files (the text editor
# tool): held for the user first (review, the default), written at once (auto), or the
# tool is not offered (off).
CodeWrites = Literal["review", "auto", "off"]
CODE_WRITES: tuple[CodeWrites, ...] = get_args(CodeWrites)

# The levels of output_config.effort on the 5.x models.
Effort = Literal["low", "medium", "high", "xhigh", "max"]
EFFORTS: tuple[Effort, ...] = get_args(Effort)

# How the screen pane renders what show_on_screen hands it; the first is the default.
ScreenFormat = Literal["markdown", "text", "diff"]
SCREEN_FORMATS: tuple[ScreenFormat, ...] = get_args(ScreenFormat)


def as_choice(word: object, choices: tuple[T, ...]) -> T | None:
    """`word` as one of `choices`, else None: the narrowing a type checker follows, for
    words from outside (a saved transcript, the model's tool input)."""
    return next((choice for choice in choices if choice == word), None)
