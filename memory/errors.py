"""Errors of the memory store.

`CommandError` is a refusal whose text goes back to the model as an error result; the
command runner turns it into `(text, True)`. The `MemoryStoreError` family is for Python
callers (the side pane, the CLI) that read memory directly; which store methods raise it
and which return `(text, is_error)` is listed in memory/store.py. It is an ordinary
Exception: the built-in MemoryError means the interpreter ran out of memory, and code
that handles that must not catch a missing note by mistake.
"""

from __future__ import annotations


class CommandError(Exception):
    """A command refused; str(error) is the result text the model reads."""


class MemoryStoreError(Exception):
    """A problem reading or writing memory, with a sentence a user can act on."""


class MemoryPathError(MemoryStoreError):
    """The path is refused (outside /memories, hidden, traversal, ...)."""


class MemoryNotFound(MemoryStoreError):
    """No memory file at that path."""


class MemoryNotText(MemoryStoreError):
    """The file is not UTF-8 text."""


class MemoryBusy(MemoryStoreError):
    """Another session held the lock past the bounded wait."""


class MemoryNotWritable(MemoryStoreError):
    """The lock file is unusable or the folder read-only: writes stop, reads go on."""
