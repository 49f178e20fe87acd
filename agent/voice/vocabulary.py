"""The repository's own words, to bias speech recognition toward them.

Whisper hears "ReviewOrchestrator" as "review orchestrator" and "CS1591" as "C.S. 1591"
unless it is told these words exist. The cheapest strong hint is what the agent already
knows, ranked by how likely the user is to say it next: the codes of the last build's
errors and warnings (what the user is fixing), what memories mention (the user talked
about those), project and folder names, then the class and function names in the source.
The decoder takes only so many (agent.voice.hints cuts the list to its token budget), so
the order is the ranking.
"""

from __future__ import annotations

import json
import os
import re
import tomllib
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memory.seam import Store

MAX_TERMS = 40
MAX_FILES = 3000
MAX_FILE_BYTES = 200_000

SKIP_DIRS = {".git", ".hg", ".svn", "node_modules", "bin", "obj", ".venv", "venv", "__pycache__",
             "dist", "build", "target", ".idea", ".vs", ".vscode", ".mypy_cache",
             ".pytest_cache", ".tox", "packages", "vendor"}
PROJECT_FILES = (".csproj", ".fsproj", ".vbproj", ".sln", ".slnx")
SOURCE_SUFFIXES = {".cs", ".fs", ".vb", ".py", ".java", ".kt", ".ts", ".tsx", ".js", ".go",
                   ".rs", ".swift", ".cpp", ".hpp", ".h", ".scala", ".rb", ".php", ".dart"}

_TYPE_DECL = re.compile(
    r"\b(?:class|interface|record|struct|enum|trait|protocol|object|type)\s+([A-Z][A-Za-z0-9_]{2,})")
_PASCAL = re.compile(r"\b[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+\b")
_CODE = re.compile(r"\b[A-Z]{1,4}\d{3,5}\b")  # CS1591, IDE0005, CA2007, TS2322
_DOTTED = re.compile(r"\b[A-Z][A-Za-z0-9]+(?:\.[A-Z][A-Za-z0-9]+)+\b")  # Contoso.Billing
_CAMEL = re.compile(r"\b[a-z][a-z0-9]+(?:[A-Z][a-z0-9]*)+\b")  # parseDiffHunk
_FUNCTION_DECL = re.compile(
    r"\b(?:def|function|func|fn|fun|void|async|static|public|private|protected|internal)\s+"
    r"(?:[A-Za-z_][A-Za-z0-9_<>\[\]]*\s+)*?([A-Za-z][A-Za-z0-9]{3,})\s*[(<]")


def repository_vocabulary(repo: Path, store: Store | None = None, *, limit: int = MAX_TERMS,
                          build_log: str | None = None) -> list[str]:
    """Up to `limit` terms, the likeliest to be spoken first; never raises.

    `build_log` is the output of the last build or test run: its diagnostic codes lead."""
    ranked: list[str] = build_terms(build_log) if build_log else []
    sources: tuple[Callable[[Path, Store | None], list[str]], ...] = (
        _memory_terms, _project_names, _folder_names, _type_names, _function_names)
    for source in sources:
        try:
            terms = source(Path(repo), store)
        except Exception:
            continue  # an unreadable part of the repository only loses its hints
        for term in terms:
            if term not in ranked:
                ranked.append(term)
    return ranked[:limit]


def build_terms(log: str) -> list[str]:
    """Diagnostic codes in a build log, the most frequent first: "error CS0246" is said
    "C S zero two four six" and heard as words unless the decoder expects the code."""
    counts = Counter(_CODE.findall(log))
    return [code for code, _ in counts.most_common()]


def with_build(vocabulary: list[str], log: str) -> list[str]:
    """The vocabulary with a new build's codes in front (the codes of an older build that
    are not in the new one keep their old place)."""
    codes = build_terms(log)
    return codes + [term for term in vocabulary if term not in codes]


def memory_terms(text: str) -> list[str]:
    """Terms in prose worth teaching the recognizer: codes, PascalCase and dotted names."""
    found: list[str] = []
    for pattern in (_CODE, _DOTTED, _PASCAL):
        for match in pattern.findall(text):
            if match not in found:
                found.append(match)
    return found


def _memory_terms(repo: Path, store: Store | None) -> list[str]:
    if store is None:
        return []
    counts: Counter[str] = Counter()
    for info in store.memories():
        try:
            text = store.read(info.path)
        except Exception:
            continue  # a memory the store will not read gives no hints either
        for term in memory_terms(text):
            counts[term] += 1
    return [term for term, _ in counts.most_common()]


def _walk(repo: Path) -> Iterator[Path]:
    seen = 0
    for root, dirs, files in os.walk(repo):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith("."))
        for name in sorted(files):
            seen += 1
            if seen > MAX_FILES:
                return
            yield Path(root) / name


def _project_names(repo: Path, _store: Store | None) -> list[str]:
    names: list[str] = []

    def add(name: str | None) -> None:
        if name and name not in names:
            names.append(name)

    for path in _walk(repo):
        if path.suffix in PROJECT_FILES:
            add(path.stem)
        elif path.name == "pyproject.toml":
            try:
                add(tomllib.loads(path.read_text(encoding="utf-8")).get("project", {}).get("name"))
            except (OSError, tomllib.TOMLDecodeError, AttributeError):
                pass
        elif path.name == "package.json":
            try:
                add(json.loads(path.read_text(encoding="utf-8")).get("name"))
            except (OSError, ValueError, AttributeError):
                pass
        elif path.name == "Cargo.toml":
            try:
                add(tomllib.loads(path.read_text(encoding="utf-8")).get("package", {}).get("name"))
            except (OSError, tomllib.TOMLDecodeError, AttributeError):
                pass
    # "Contoso.Billing.Api" is also said as its last part.
    for name in list(names):
        if "." in name:
            add(name.rsplit(".", 1)[-1])
    return names


def _compound(name: str) -> bool:
    """A name Whisper would write as several words: "ComfyUI", "parseDiffHunk"."""
    return bool(_PASCAL.fullmatch(name) or _CAMEL.fullmatch(name))


def _folder_names(repo: Path, _store: Store | None) -> list[str]:
    """Folders named as one compound word ("ComfyUI", "PaymentGateway"): the user says
    "go into the comfy UI folder"; the folders nearest the top first."""
    depth: dict[str, int] = {}
    root = Path(repo)
    seen = 0
    for folder, dirs, _files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith("."))
        level = len(Path(folder).relative_to(root).parts)
        for name in dirs:
            seen += 1
            if seen > MAX_FILES:
                break
            if _compound(name) and name not in depth:
                depth[name] = level
        if seen > MAX_FILES:
            break
    return sorted(depth, key=lambda name: depth[name])


def _source_texts(repo: Path) -> Iterator[str]:
    """The text of each source file the walk finds, skipping big and unreadable ones."""
    for path in _walk(repo):
        if path.suffix not in SOURCE_SUFFIXES:
            continue
        try:
            if path.stat().st_size > MAX_FILE_BYTES:
                continue
            yield path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue


def _function_names(repo: Path, _store: Store | None) -> list[str]:
    """camelCase and PascalCase function names; snake_case ones Whisper already writes
    as the words they are made of, which is how they are read out."""
    counts: Counter[str] = Counter()
    for text in _source_texts(repo):
        for name in _FUNCTION_DECL.findall(text):
            if _compound(name):
                counts[name] += 1
    return [name for name, _ in counts.most_common()]


def _type_names(repo: Path, _store: Store | None) -> list[str]:
    counts: Counter[str] = Counter()
    for text in _source_texts(repo):
        for name in _TYPE_DECL.findall(text):
            counts[name] += 1
    # Compound names are the ones Whisper mangles; plain words it already spells.
    compound = [n for n, _ in counts.most_common() if _PASCAL.fullmatch(n)]
    plain = [n for n, _ in counts.most_common() if not _PASCAL.fullmatch(n)]
    return compound + plain
