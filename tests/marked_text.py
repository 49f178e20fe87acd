"""Reading devagent's marks back in tests: `<name attributes id="ID">` ... `</name id="ID">`,
the two ids the same 32 hex digits (agent.marks.marked)."""

from __future__ import annotations

import re

_MARKED = re.compile(r'<(?P<name>\w+)(?P<attributes>[^>\n]*?) id="(?P<id>[0-9a-f]{32})">\n(?P<body>.*?)\n</(?P=name) id="(?P=id)">', re.S)


def unmarked(text: str, name: str = "tool_output") -> tuple[str, str, str]:
    """The attributes, id and body of the one marked text `text` is; AssertionError if it is
    not one (other words around it, or ids that differ)."""
    found = _MARKED.fullmatch(text.strip("\n"))
    assert found is not None and found["name"] == name, text[:200]
    return found["attributes"].strip(), found["id"], found["body"]


def marked_texts(text: str, name: str) -> list[tuple[str, str, str]]:
    """Every marked text named `name` inside `text`: attributes, id, body."""
    return [(m["attributes"].strip(), m["id"], m["body"]) for m in _MARKED.finditer(text) if m["name"] == name]


def without_ids(text: str) -> str:
    """`text` with each mark's id taken out, for comparing a prompt with the text expected."""
    return re.sub(r' id="[0-9a-f]{32}">', ">", text)
