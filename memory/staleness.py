"""Repository paths a memory names that no longer exist.

A memory that names a file or a `file:line` is a claim about the repository when it was
written. This finds the names that look like repository paths and checks them against the
working tree, so the agent and the side pane can flag a memory before it is trusted.
It is a heuristic: it looks for things shaped like paths, not for every claim.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from memory.notes import frontmatter

# Extensions common enough in a repository that a bare "name.ext" is taken for a file.
_EXTENSIONS = frozenset(
    ["py", "pyi", "ipynb", "cs", "csproj", "sln", "slnx", "props", "targets", "fs", "fsproj", "vb", "vbproj", "razor", "cshtml", "xaml", "resx", "js", "mjs", "cjs", "jsx", "ts", "tsx", "vue", "svelte", "json", "jsonc", "yaml", "yml", "toml", "ini", "cfg", "conf", "config", "env", "lock", "md", "rst", "txt", "adoc", "html", "htm", "css", "scss", "sass", "less", "xml", "svg", "go", "rs", "java", "kt", "kts", "scala", "groovy", "gradle", "c", "h", "cc", "cpp", "cxx", "hpp", "hh", "m", "mm", "swift", "rb", "php", "pl", "pm", "lua", "r", "jl", "dart", "ex", "exs", "erl", "hs", "clj", "sql", "graphql", "proto", "sh", "bash", "zsh", "ps1", "psm1", "bat", "cmd", "mk", "cmake", "dockerfile", "tf", "tfvars"]
)
_NAMED_FILES = frozenset(
    ["Makefile", "Dockerfile", "Rakefile", "Gemfile", "Procfile", "Justfile", "LICENSE", "README", "CHANGELOG"]
)

_CANDIDATE = re.compile(
    r"(?<![\w/.@:~$-])"  # not inside a URL, an e-mail, a longer path, or ~/, $HOME/
    r"((?:\.{1,2}/)?(?:[\w.+-]+/)*[\w.+-]+/?)"
    r"(?::(\d+)(?:-(\d+)|:\d+)?)?"  # path:line, path:line:column or path:first-last
    r"(?![\w/@-]|\.\w|://)"
)
_BACKTICKS = re.compile(r"`([^`\n]+)`")
_FRONTMATTER_END = re.compile(r"\A---[ \t]*\r?\n.*?^---[ \t]*$", re.DOTALL | re.MULTILINE)


def _looks_like_file(name: str) -> bool:
    if name in _NAMED_FILES:
        return True
    stem, dot, ext = name.rpartition(".")
    return bool(dot and stem and not stem.isdigit() and ext.lower() in _EXTENSIONS)


def _is_claim(token: str, repo: Path, quoted: bool) -> bool:
    if token.startswith("/") or ".." in token.split("/"):
        return False
    parts = [p for p in token.split("/") if p and p != "."]
    if not parts or any(p.isdigit() for p in parts):
        return False  # dates and fractions such as 2026/11/06 or 1/2
    if _looks_like_file(parts[-1]):
        return True
    if len(parts) >= 2:
        # "and/or" is prose; "src/Removed" is a claim when its first folder is real.
        return quoted or (repo / parts[0]).exists()
    return quoted and token.endswith("/")


def _line_count(path: Path) -> int | None:
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError:
        return None
    return data.count(b"\n") + (0 if data.endswith(b"\n") or not data else 1)


def references(text: str, repo: Path) -> list[tuple[str, int | None]]:
    """(path, line or None) for every repository path the text names, in order, once each."""
    # Of the frontmatter only the description is prose: it is the line the index shows, so
    # a path gone from the repository misleads there as much as in the body.
    description = frontmatter(text).get("description")
    body = _FRONTMATTER_END.sub("", text, count=1)
    if isinstance(description, str):
        body = description + "\n" + body
    seen: set[tuple[str, int | None]] = set()
    found: list[tuple[str, int | None]] = []
    quoted_spans = [m.group(1) for m in _BACKTICKS.finditer(body)]
    sources = [(body, False)] + [(span, True) for span in quoted_spans]
    for source, quoted in sources:
        for match in _CANDIDATE.finditer(source):
            token = match.group(1).rstrip(".")
            if token.startswith("./"):
                token = token[2:]
            if not token or not _is_claim(token, repo, quoted):
                continue
            # A range names both its ends: "a.cs:3-9" is stale once a.cs is shorter than 9 lines.
            lines: list[int | None] = [int(g) for g in match.group(2, 3) if g] or [None]
            for line in lines:
                key = (token.rstrip("/"), line)
                if key not in seen:
                    seen.add(key)
                    found.append(key)
    return found


_SKIP_DIRS = frozenset({".git", "node_modules", "bin", "obj", ".venv", "venv", "__pycache__", "target", "dist", "build"})
_WALK_LIMIT = 50_000


class FileNames:
    """Every file name in the working tree, read once, for names mentioned without a folder."""

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
                dirnames[:] = [d for d in dirnames if d not in _SKIP_DIRS]
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


def missing_references(text: str, repo: Path, names: FileNames | None = None) -> list[str]:
    """The "path" and "path:line" references of `text` that the repository no longer has."""
    repo = Path(repo)
    names = names or FileNames(repo)
    missing: list[str] = []
    for path, line in references(text, repo):
        target = repo / path
        if "/" not in path and not os.path.lexists(target):
            # "settings.py" names a file somewhere in the tree, not necessarily at the top.
            places = names.where(path)
            if places is None:
                continue
            if places:
                if line is not None and not any(_line_ok(repo / p, line) for p in places):
                    missing.append(f"{path}:{line}")
                continue
        if line is None:
            if not os.path.lexists(target):
                missing.append(path)
        elif not _line_ok(target, line):
            missing.append(f"{path}:{line}")
    return missing


def _line_ok(target: Path, line: int) -> bool:
    count = _line_count(target) if target.is_file() else None
    return count is not None and 1 <= line <= count
