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


# A model keeps the index in its own words: `- project-focus.md: ...`, `` * `notes/a.md` — ``,
# `1. **/memories/a.md** - ...` as often as `- [Title](a.md) — ...`. A line that names a file
# indexes it; a line that starts with the name (after its bullet) is that file's entry.
_LINK = re.compile(r"\[(?P<title>[^\]]*)\]\(\s*(?P<target><[^>]*>|[^)\s]+)(?:\s+[\"'(][^)]*)?\)")
_CODE = re.compile(r"(`+)(?P<target>[^`]+?)\1")
_NAME = re.compile(r"(?<![\w./\\-])(?P<target>(?:\.{0,2}/)?(?:[\w.-]+/)*[\w.-]*\w\.md)(?![\w/\\-])", re.IGNORECASE)
_URL = re.compile(r"\w[\w+.-]*://\S+")
_BULLET = re.compile(r"^\s*(?:[-*+•]|\d+[.)])?\s*")
_MARKS = "*_~"
_SEPARATOR = re.compile(r"^[\s*_~`)\]]*(?:[—–:|-]+|\s-\s)?\s*")


def _normalise_target(target: str, virtual: str = "/memories") -> str | None:
    target = target.strip().strip("<>").strip()
    if "://" in target or target.startswith(("#", "mailto:")):
        return None
    target = target.split("#", 1)[0]
    for root in (virtual.rstrip("/") + "/", "/memories/"):
        if target.startswith(root):
            target = target[len(root) :]
            break
    while target.startswith("./"):
        target = target[2:]
    return target or None


def _references(line: str) -> list[tuple[int, int, str, str]]:
    """(start, end, title, raw target) of each file the line names, in order: markdown
    links, code spans holding a .md name, bare .md names outside both."""
    found: list[tuple[int, int, str, str]] = []
    taken: list[tuple[int, int]] = []
    for match in _LINK.finditer(line):
        found.append((match.start(), match.end(), match.group("title").strip(), match.group("target")))
        taken.append(match.span())
    for match in _CODE.finditer(line):
        if any(a <= match.start() < b for a, b in taken):
            continue
        taken.append(match.span())
        inner = match.group("target").strip()
        if inner.lower().endswith(".md") and not any(c.isspace() for c in inner):
            found.append((match.start(), match.end(), "", inner))
    bare = _URL.sub(lambda m: " " * len(m.group()), line)
    for match in _NAME.finditer(bare):
        if any(a <= match.start() < b for a, b in taken):
            continue
        found.append((match.start(), match.end(), "", match.group("target")))
    found.sort()
    return found


def index_entries(index_text: str, virtual: str = "/memories") -> list[IndexEntry]:
    """One entry per line that starts (after its bullet and emphasis) with the file it is
    about, in any of the forms a model writes: a link, a code span, a bare name or a path."""
    entries = []
    for number, line in enumerate(index_text.splitlines()):
        references = _references(line)
        if not references:
            continue
        start, end, title, raw = references[0]
        lead = _BULLET.match(line)
        before = line[lead.end() if lead else 0 : start]
        if before.strip(_MARKS + " \t"):
            continue  # the name comes later in the line: it mentions a file, it is not its entry
        target = _normalise_target(raw, virtual)
        if target is None:
            continue
        rest = line[end:]
        rest = rest[_SEPARATOR.match(rest).end() :]  # type: ignore[union-attr]
        name = title or target.rsplit("/", 1)[-1]
        entries.append(IndexEntry(number, name, target, rest.strip()))
    return entries


def index_names(index_text: str, virtual: str = "/memories") -> set[str]:
    """Every file the index names anywhere in a line, relative to its folder."""
    names: set[str] = set()
    for line in index_text.splitlines():
        for _start, _end, _title, raw in _references(line):
            target = _normalise_target(raw, virtual)
            if target is not None:
                names.add(target)
    return names


def indexed(names: set[str], relative: str) -> bool:
    """Whether `names` (index_names) holds the memory at `relative`: by its path, or by its
    bare file name."""
    return relative in names or relative.rsplit("/", 1)[-1] in names


def index_line(title: str, target: str, description: str) -> str:
    line = f"- [{title}]({target})"
    return f"{line} — {description}" if description else line

