"""Checks a memory command's fields before anything runs.

The SDK trusts its input, so a missing field or a float line number surfaces as a Python
exception. Here every malformed command gets a result that names the problem, so the
model can correct its call and the session goes on.
"""

from __future__ import annotations

from typing import Any

from memory.errors import CommandError
from memory.quoting import quoted

# command -> (required fields, optional fields)
FIELDS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "view": (("path",), ("view_range",)),
    "create": (("path", "file_text"), ()),
    "str_replace": (("path", "old_str"), ("new_str",)),
    "insert": (("path", "insert_line", "insert_text"), ()),
    "delete": (("path",), ()),
    "rename": (("old_path", "new_path"), ()),
}
COMMANDS = tuple(FIELDS)
_INTEGERS = {"insert_line"}


def _type_name(value: Any) -> str:
    return "null" if value is None else type(value).__name__


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _quote_list(names: list[str]) -> str:
    shown = [f"'{quoted(n, 80)}'" for n in names[:10]]
    if len(names) > 10:
        shown.append(f"{len(names) - 10:,} more")
    return shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " and " + shown[-1]


def _takes(name: str) -> str:
    required, optional = FIELDS[name]
    return ", ".join([*required, *(f"{o} (optional)" for o in optional)])


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def parse(command: Any) -> tuple[str, dict[str, Any]]:
    """(command name, its fields) or CommandError naming what is wrong."""
    if not isinstance(command, dict):
        raise CommandError(f"A memory command must be an object with a 'command' field, got {_type_name(command)}.")
    name = command.get("command")
    if name is None:
        raise CommandError(f"Missing 'command'. Expected one of: {', '.join(COMMANDS)}.")
    if not isinstance(name, str) or name not in FIELDS:
        shown = quoted(name, 80) if isinstance(name, str) else _type_name(name)
        raise CommandError(f"Unknown command {shown!r}. Expected one of: {', '.join(COMMANDS)}.")
    required, optional = FIELDS[name]
    present = {k: v for k, v in command.items() if k != "command" and v is not None}
    unexpected = [k for k in present if k not in required and k not in optional]
    missing = [k for k in required if k not in present]
    if unexpected or missing:
        problems = []
        if unexpected:
            problems.append(f"does not take {_quote_list([str(k) for k in unexpected])}")
        if missing:
            problems.append(f"is missing {_quote_list(missing)}")
        raise CommandError(f"{name} {' and '.join(problems)}. {name} takes: {_takes(name)}.")
    for key, value in present.items():
        if key == "view_range":
            if not (isinstance(value, list) and len(value) == 2 and all(_is_int(v) for v in value)):
                raise CommandError(
                    f"'view_range' must be two integers [start, end] (end -1 for the last line), got {_shown(value)}."
                )
        elif key in _INTEGERS:
            if not _is_int(value):
                raise CommandError(f"'{key}' must be an integer, got {_shown(value)}.")
        elif not isinstance(value, str):
            raise CommandError(f"'{key}' must be a string, got {_type_name(value)}.")
        else:
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                raise CommandError(f"'{key}' holds characters that are not valid Unicode text (lone surrogates).") from None
    if name == "str_replace" and present["old_str"] == "":
        raise CommandError("'old_str' must not be empty: give the exact text to replace.")
    return name, present
