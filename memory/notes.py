"""The note-per-file layout: frontmatter of a memory file and the lines of MEMORY.md.

A memory file starts with YAML frontmatter (name, description, type) and a body; the
index `/memories/MEMORY.md` has one line per memory:
`- [Title](file.md) — one-line description`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

INDEX_NAME = "MEMORY.md"
TYPES = ("user", "feedback", "project", "reference")


@dataclass(frozen=True)
class MemoryInfo:
    path: str  # virtual, e.g. "/memories/feedback_cs1591.md"
    file: Path  # real path
    name: str  # frontmatter name (file stem when missing)
    type: str | None  # user | feedback | project | reference | None
    description: str
    size: int  # characters
    modified: float  # mtime, epoch seconds


_FRONTMATTER = re.compile(r"\A---[ \t]*\r?\n(.*?)(?:\r?\n)?^---[ \t]*$", re.DOTALL | re.MULTILINE)
_SIMPLE_LINE = re.compile(r"^(\s*)([A-Za-z_][\w-]*)\s*:\s*(.*?)\s*$")


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1]
    return value


def _simple_yaml(block: str) -> dict[str, Any]:
    """Top-level `key: value` lines and one level of nesting, for when YAML refuses the block."""
    data: dict[str, Any] = {}
    parent: str | None = None
    for line in block.splitlines():
        match = _SIMPLE_LINE.match(line)
        if not match:
            continue
        indent, key, value = match.groups()
        if not indent:
            if value:
                data[key] = _unquote(value)
                parent = None
            else:
                data[key] = {}
                parent = key
        elif parent is not None and isinstance(data.get(parent), dict):
            data[parent][key] = _unquote(value)
    return data


# A frontmatter holds a name, a description, a type and a date: a few hundred characters.
# Past this, or with anchors and aliases, the block is read line by line instead of as
# YAML: 398 bytes of nested aliases (a "billion laughs") expand to gigabytes in any loader.
MAX_FRONTMATTER_CHARS = 8192


def frontmatter_problem(text: str) -> str | None:
    """Why the frontmatter is read as plain `key: value` lines rather than as YAML, or None."""
    match = _FRONTMATTER.match(text)
    return _yaml_problem(match.group(1)) if match else None


def _yaml_problem(block: str) -> str | None:
    if len(block) > MAX_FRONTMATTER_CHARS:
        return f"frontmatter of {len(block):,} characters, over the {MAX_FRONTMATTER_CHARS:,} read as YAML"
    if "&" not in block and "*" not in block:
        return None  # no anchor or alias can be in it: no scan
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        # Scanning is linear and expands nothing; only loading would.
        for token in yaml.scan(block, Loader=loader):
            if isinstance(token, (yaml.AliasToken, yaml.AnchorToken)):
                return "frontmatter uses YAML anchors or aliases (& and *), which are not expanded"
    except yaml.YAMLError:
        return None  # loading fails the same way, and falls back
    return None


def frontmatter(text: str) -> dict[str, Any]:
    """The frontmatter mapping, {} when there is none or it is not a mapping."""
    match = _FRONTMATTER.match(text)
    if not match:
        return {}
    block = match.group(1)
    if _yaml_problem(block):
        return _simple_yaml(block)
    try:
        import yaml  # only when a listing is asked for; the app imports the store at start-up

        loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
        data = yaml.load(block, Loader=loader)  # noqa: S506 - a safe loader
    except Exception:
        data = _simple_yaml(block)
    return data if isinstance(data, dict) else {}


def _one_line(value: Any) -> str:
    if value is None:
        return ""
    return " ".join(str(value).split())


@lru_cache(maxsize=1024)
def describe(text: str, stem: str) -> tuple[str, str | None, str]:
    """(name, type, description) of a memory file's text. Kept by the text itself: the pane
    lists the folder on every change, and parsing each file's YAML again was most of it."""
    meta = frontmatter(text)
    if meta:
        # YAML escapes can spell a key ("\x73\x6b\x5f..."): what is shown and indexed is masked.
        from memory.secrets import mask_secrets

        meta = {key: mask_secrets(value)[0] if isinstance(value, str) else value for key, value in meta.items()}
    name = _one_line(meta.get("name")) or stem
    kind = meta.get("type")
    if kind is None and isinstance(meta.get("metadata"), dict):
        kind = meta["metadata"].get("type")
    kind = _one_line(kind).lower() or None
    if kind not in TYPES:
        kind = None
    return name, kind, _one_line(meta.get("description"))


@dataclass(frozen=True)
class IndexEntry:
    line: int  # 0-based line number in MEMORY.md
    title: str
    target: str  # relative to /memories, "/"-separated
    description: str


_ENTRY = re.compile(r"^\s*[-*+]\s+\[(?P<title>[^\]]*)\]\((?P<target>[^)\s]+)\)\s*(?:[—–:-]+\s*)?(?P<desc>.*?)\s*$")


def _normalise_target(target: str) -> str | None:
    if "://" in target or target.startswith(("#", "mailto:")):
        return None
    target = target.split("#", 1)[0]
    if target.startswith("/memories/"):
        target = target[len("/memories/") :]
    while target.startswith("./"):
        target = target[2:]
    return target or None


def index_entries(index_text: str) -> list[IndexEntry]:
    entries = []
    for number, line in enumerate(index_text.splitlines()):
        match = _ENTRY.match(line)
        if not match:
            continue
        target = _normalise_target(match.group("target"))
        if target is None:
            continue
        entries.append(IndexEntry(number, match.group("title").strip(), target, match.group("desc")))
    return entries


def index_line(title: str, target: str, description: str) -> str:
    line = f"- [{title}]({target})"
    return f"{line} — {description}" if description else line

