"""What Claude Code's auto memory already knows about a repository, offered once.

Claude Code keeps notes per project in `~/.claude/projects/<slug>/memory/` (MEMORY.md, an
index, plus one Markdown file a topic), the slug being the project's path with its
separators made dashes. devagent offers once per repository to bring them in: each file is
read, never written, at its source (a regular file, no link followed, within a size limit),
copied under /memories/claude-code/ with a line naming where it came from, and held for the
user's review like any memory write of the agent's (memory.pending), whatever the session's
memory_writes: the user accepts or rejects each in the memory pane. That the offer was made
is kept in devagent's data folder, so it is not made again, taken or not.
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from memory.notes import INDEX_NAME

if TYPE_CHECKING:
    from memory.pending import PendingChanges

MAX_FILE_BYTES = 100_000
MAX_FILES = 50
TARGET = "/memories/claude-code"
INDEX_COPY = "claude-code-index.md"  # their MEMORY.md is not devagent's index: a topic of its own here


def slugs(repo: Path) -> list[str]:
    """The folder names Claude Code may have given `repo`: the path, separators made dashes
    (and, as newer versions do, every character but letters and digits)."""
    names: list[str] = []
    for path in dict.fromkeys((os.path.abspath(repo), os.path.realpath(repo))):
        for slug in (path.replace(os.sep, "-"), re.sub(r"[^A-Za-z0-9]", "-", path)):
            if slug not in names:
                names.append(slug)
    return names


def auto_memory_folder(repo: Path, home: Path | None = None) -> Path | None:
    projects = (home or Path.home()) / ".claude" / "projects"
    for slug in slugs(repo):
        folder = projects / slug / "memory"
        if folder.is_dir() and not folder.is_symlink():
            return folder
    return None


@dataclass(frozen=True)
class Source:
    path: Path  # where it is, read-only
    target: str  # the memory path the copy goes to
    text: str


def _read(path: Path) -> str | None:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_FILE_BYTES:
            return None
        data = os.read(fd, MAX_FILE_BYTES + 1)
    finally:
        os.close(fd)
    return data.decode("utf-8", "replace")


def sources(repo: Path, home: Path | None = None) -> list[Source]:
    """The auto memory's Markdown files for `repo`, MEMORY.md first; [] when there are none."""
    folder = auto_memory_folder(repo, home)
    if folder is None:
        return []
    try:
        names = sorted(n for n in os.listdir(folder) if n.endswith(".md") and not n.startswith("."))
    except OSError:
        return []
    names.sort(key=lambda n: n != INDEX_NAME)
    found = []
    for name in names[:MAX_FILES]:
        text = _read(folder / name)
        if text is None or not text.strip():
            continue
        target = f"{TARGET}/{INDEX_COPY if name == INDEX_NAME else name}"
        found.append(Source(folder / name, target, text))
    return found


def with_source(source: Source) -> str:
    """The copy's text: the file as it is, the line naming its source after its frontmatter."""
    line = f"(Brought in from Claude Code's auto memory, {source.path}; that file stays as it is.)\n"
    text = source.text
    if text.startswith("---\n"):
        end = text.find("\n---", 4)
        if end != -1:
            cut = text.find("\n", end + 4)
            cut = len(text) if cut == -1 else cut + 1
            return text[:cut] + line + text[cut:]
    return line + text


def _marker(repo: Path) -> Path:
    from memory.location import data_dir, repository_key

    return data_dir() / "claude-memory-offered" / repository_key(repo)


def offered(repo: Path) -> bool:
    return _marker(repo).exists()


def remember_offered(repo: Path) -> None:
    from memory.atomic import write_file
    from memory.private import make_private

    marker = _marker(repo)
    make_private(marker.parent)
    write_file(str(marker), b"offered\n")


def offer(repo: Path, home: Path | None = None) -> list[Source]:
    """What to offer, once: [] when there is nothing or it was offered before."""
    if offered(repo):
        return []
    return sources(repo, home)


def bring_in(repo: Path, pending: PendingChanges, found: list[Source]) -> list[tuple[str, str]]:
    """Each source held for review as a new memory; (target, what the store said) each.
    The offer is remembered as made."""
    outcomes = []
    for source in found:
        said, _ = pending.hold({"command": "create", "path": source.target, "file_text": with_source(source)})
        outcomes.append((source.target, said))
    remember_offered(repo)
    return outcomes
