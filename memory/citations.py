"""The code a memory cites: repository paths, with or without lines, found in its text.

A memory that names `src/app.py:12`, `src/app.py:3-9`, `Startup.cs(111,5)` (the form
MSBuild prints), `src/app.py line 12` or just `src/app.py` makes a claim about the
repository as it was when the memory was written. A `cites:` list in the frontmatter adds
citations the body does not spell out. This only finds them; memory/evidence.py
fingerprints and checks them.

It is a heuristic: it looks for things shaped like repository paths, so that prose
("and/or", "3/4", "e.g.", version numbers, URLs, home-folder paths) is not taken for one.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memory.notes import frontmatter

# Extensions common enough in a repository that a bare "name.ext" is taken for a file.
_EXTENSIONS = frozenset([
    "py", "pyi", "ipynb", "cs", "csproj", "sln", "slnx", "props", "targets", "fs", "fsproj", "vb",
    "vbproj", "razor", "cshtml", "xaml", "resx",
    "js", "mjs", "cjs", "jsx", "ts", "tsx", "vue", "svelte", "json", "jsonc", "yaml", "yml", "toml",
    "ini", "cfg", "conf", "config", "env", "lock",
    "md", "rst", "txt", "adoc", "html", "htm", "css", "scss", "sass", "less", "xml", "svg",
    "go", "rs", "java", "kt", "kts", "scala", "groovy", "gradle", "c", "h", "cc", "cpp", "cxx", "hpp",
    "hh", "m", "mm", "swift",
    "rb", "php", "pl", "pm", "lua", "r", "jl", "dart", "ex", "exs", "erl", "hs", "clj", "sql",
    "graphql", "proto",
    "sh", "bash", "zsh", "ps1", "psm1", "bat", "cmd", "mk", "cmake", "dockerfile", "tf", "tfvars",
])
_NAMED_FILES = frozenset(
    ["Makefile", "Dockerfile", "Rakefile", "Gemfile", "Procfile", "Justfile", "LICENSE", "README", "CHANGELOG"]
)

_CANDIDATE = re.compile(
    r"(?<![\w/.@:~$-])"  # not inside a URL, an e-mail, a longer path, or ~/, $HOME/
    r"(?P<path>(?:\.{1,2}/)?(?:[\w.+-]+/)*[\w.+-]+/?)"
    r"(?:"
    r":(?P<line>\d+)(?:-(?P<last>\d+)|:\d+)?"  # path:line, path:line:column, path:first-last
    r"|\((?P<ms_line>\d+)(?:,\d+){0,3}\)"  # MSBuild: File.cs(111,5) or File.cs(111,5,111,20)
    r"|,?[ \t]+(?:at[ \t]+|on[ \t]+)?lines?[ \t]+(?P<word_line>\d+)(?:[ \t]*(?:-|–|to)[ \t]*(?P<word_last>\d+))?"
    r")?"
    r"(?![\w/@-]|\.\w|://)"
)
_BACKTICKS = re.compile(r"`([^`\n]+)`")
_FRONTMATTER_END = re.compile(r"\A---[ \t]*\r?\n.*?^---[ \t]*$", re.DOTALL | re.MULTILINE)


@dataclass(frozen=True)
class Citation:
    """One cited place: a path relative to the repository, and lines when the memory gave them."""

    path: str
    start: int | None = None
    end: int | None = None

    @property
    def key(self) -> str:
        """How the citation is written back: `path`, `path:12` or `path:3-9`."""
        if self.start is None:
            return self.path
        if self.end is None or self.end == self.start:
            return f"{self.path}:{self.start}"
        return f"{self.path}:{self.start}-{self.end}"

    @property
    def last(self) -> int | None:
        return self.end if self.end is not None else self.start


def _looks_like_file(name: str) -> bool:
    if name in _NAMED_FILES:
        return True
    stem, dot, ext = name.rpartition(".")
    return bool(dot and stem and not stem.isdigit() and ext.lower() in _EXTENSIONS)


def _names_another(token: str, repo: Path | None) -> bool:
    """A bare README, LICENSE or CHANGELOG that is not there, where README.md (LICENSE.txt, ...)
    is: people call the file by its stem, so it is prose, not a citation of a file gone."""
    name = token.rsplit("/", 1)[-1]
    if repo is None or name not in _NAMED_FILES or (repo / token).exists():
        return False
    folder = (repo / token).parent
    try:
        return any(p.name.startswith(name + ".") for p in folder.iterdir())
    except OSError:
        return False


def _is_claim(token: str, repo: Path | None, quoted: bool) -> bool:
    if token.startswith("/") or ".." in token.split("/"):
        return False
    parts = [p for p in token.split("/") if p and p != "."]
    if not parts or any(p.isdigit() for p in parts):
        return False  # dates and fractions such as 2026/11/06 or 1/2
    if _looks_like_file(parts[-1]):
        return not _names_another(token, repo)
    if len(parts) >= 2:
        # "and/or" is prose; "src/Removed" is a claim when its first folder is real.
        return quoted or (repo is not None and (repo / parts[0]).exists())
    return quoted and token.endswith("/")


def _lines(match: re.Match[str]) -> tuple[int | None, int | None]:
    for first, last in (("line", "last"), ("ms_line", None), ("word_line", "word_last")):
        if match.group(first):
            start = int(match.group(first))
            end = int(match.group(last)) if last and match.group(last) else None
            if end is not None and end < start:
                start, end = end, start
            return start, (end if end != start else None)
    return None, None


def _scan(source: str, repo: Path | None, quoted: bool) -> list[Citation]:
    found = []
    for match in _CANDIDATE.finditer(source):
        token = match.group("path").rstrip(".")
        while token.startswith("./"):
            token = token[2:]
        if not token or not _is_claim(token, repo, quoted):
            continue
        start, end = _lines(match)
        if start == 0:
            start, end = None, None
        found.append(Citation(token.rstrip("/"), start, end))
    return found


def _cites_list(meta: dict[str, Any]) -> list[str]:
    value = meta.get("cites")
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [str(v) for v in value if isinstance(v, (str, int, float)) and str(v).strip()]
    return []


def find(text: str, repo: Path | None = None) -> list[Citation]:
    """Every citation in a memory's text, in order, once each.

    `repo` lets a folder path without an extension count when its first folder exists.
    """
    meta = frontmatter(text)
    # Of the rest of the frontmatter only the description is prose: it is the line the
    # index shows, so a path gone from the repository misleads there as much as in the body.
    body = _FRONTMATTER_END.sub("", text, count=1)
    description = meta.get("description")
    if isinstance(description, str):
        body = description + "\n" + body
    sources = [(entry.strip().strip("`"), True) for entry in _cites_list(meta)]
    sources.append((body, False))
    sources.extend((span, True) for span in _BACKTICKS.findall(body))
    seen: set[Citation] = set()
    found: list[Citation] = []
    for source, quoted in sources:
        for citation in _scan(source, repo, quoted):
            if citation not in seen:
                seen.add(citation)
                found.append(citation)
    return _drop_covered(found)


def _drop_covered(found: list[Citation]) -> list[Citation]:
    """`a.cs` beside `a.cs:12` says nothing more: the line citation checks the file too."""
    with_lines = {c.path for c in found if c.start is not None}
    return [c for c in found if c.start is not None or c.path not in with_lines]


# --- bare file names --------------------------------------------------------------------

_SKIP_DIRS = frozenset({".git", "node_modules", "bin", "obj", ".venv", "venv", "__pycache__", "target", "dist", "build"})
_WALK_LIMIT = 50_000


class FileNames:
    """Every file name in the working tree, read once, for names cited without a folder."""

    def __init__(self, repo: Path) -> None:
        self._repo = repo
        self._names: dict[str, list[str]] | None = None
        self.complete = True

    def where(self, name: str) -> list[str] | None:
        """Relative paths of files called `name`; None when the tree was too big to list."""
        if self._names is None:
            self._names = {}
            count = 0
            for directory, dirnames, filenames in os.walk(self._repo):
                dirnames[:] = sorted(d for d in dirnames if d not in _SKIP_DIRS)
                for file_name in filenames:
                    count += 1
                    rel = os.path.relpath(os.path.join(directory, file_name), self._repo)
                    self._names.setdefault(file_name, []).append(rel.replace(os.sep, "/"))
                if count > _WALK_LIMIT:
                    self.complete = False
                    break
        if not self.complete:
            return None
        return self._names.get(name, [])


def locate(citation: Citation, repo: Path, names: FileNames) -> Citation | None:
    """The citation with its path made relative to the repository root.

    "settings.py" names a file somewhere in the tree, not necessarily at the top. None when
    the name is ambiguous (several files carry it) or the tree is too big to tell.
    """
    if "/" in citation.path or os.path.lexists(repo / citation.path):
        return citation
    places = names.where(citation.path)
    if places is None or len(places) > 1:
        return None
    if not places:
        return citation  # nowhere: the evidence check reports it gone
    return Citation(places[0], citation.start, citation.end)
