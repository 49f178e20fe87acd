"""The repository's instruction files: which there are, what each says, what it imports.

Read at the root: AGENTS.md (the agents.md convention), CLAUDE.md, .claude/CLAUDE.md and
CLAUDE.local.md (Claude Code's), GEMINI.md (Gemini CLI's) and .github/copilot-instructions.md.
Below the root, an AGENTS.md or CLAUDE.md governs its own folder and what is under it; the
nearest one to a file wins, which the prompt tells the model with each file's scope. Nested
files are found through git's index and its ignore rules (a vendored or ignored folder's
files are not the repository's), or by a bounded walk outside git.

CLAUDE.md files import others with `@path` (outside code spans and fences, as Claude Code
reads them), relative to the importing file, at most MAX_IMPORT_DEPTH hops deep. An import
is read only inside the repository: an absolute path, `~`, a `..` that leaves the root or a
symbolic link leading out is refused and named, and a cycle is read once. Every file is
read from the root down without following a link at the moment of reading
(agent.tools.editor.confined_files), only as a regular file and within a size limit.

Reading needs no trust: it runs none of the repository's code. Whether the model is given
them is the session's decision (agent.instructions.block).
"""

from __future__ import annotations

import hashlib
import os
import re
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from agent.tools.editor.confined_files import read_file
from agent.tools.masking import mask_text

ROOT_FILES = ("AGENTS.md", "CLAUDE.md", ".claude/CLAUDE.md", "CLAUDE.local.md", "GEMINI.md",
              ".github/copilot-instructions.md")
NESTED_NAMES = ("AGENTS.md", "CLAUDE.md")
IMPORTING = ("CLAUDE.md", "CLAUDE.local.md")  # the files whose `@path` lines are imports
MAX_IMPORT_DEPTH = 5  # Claude Code's own limit of hops
MAX_READ_BYTES = 256_000  # a file larger than this is not an instruction file anyone wrote
MAX_FILE_CHARS = 20_000  # one file's share of the prompt; the rest is cut and said so
MAX_TOTAL_CHARS = 60_000  # every file together; past it, files are named, not given
MAX_NESTED = 200
WALK_LIMIT = 20_000  # entries a walk outside git looks at
RACY_NS = 2_000_000_000  # a folder changed more recently than this is not trusted to stamp the listing
GIT_TIMEOUT = 10.0
SKIPPED_FOLDERS = frozenset({".git", "node_modules", ".venv", "venv", "__pycache__", ".tox", "target", "dist", "build"})


@dataclass(frozen=True)
class InstructionFile:
    path: str  # relative to the repository root, with slashes
    scope: str  # the folder it governs, "" for the whole repository, else "src/api/"
    text: str  # as read, credentials masked, cut to MAX_FILE_CHARS
    imported_by: str = ""  # the file whose `@path` brought it in
    cut: bool = False  # longer than MAX_FILE_CHARS

    @property
    def kind(self) -> str:
        return PurePosixPath(self.imported_by or self.path).name


@dataclass(frozen=True)
class Instructions:
    files: tuple[InstructionFile, ...] = ()
    refused: tuple[str, ...] = ()  # imports not followed, each a sentence
    left_out: tuple[str, ...] = ()  # files past MAX_TOTAL_CHARS, by path
    fingerprint: str = field(default="", compare=False)

    def __bool__(self) -> bool:
        return bool(self.files or self.left_out)

    @property
    def sources(self) -> list[str]:
        return [f.path for f in self.files] + list(self.left_out)

    @property
    def chars(self) -> int:
        return sum(len(f.text) for f in self.files)


def _git_listed(repo: Path) -> list[str] | None:
    """Nested instruction files git knows of (tracked, or untracked and not ignored); None
    outside git or when git cannot tell."""
    from memory.git.reading import listed

    return listed(repo, list(NESTED_NAMES), timeout=GIT_TIMEOUT)


def _walked(repo: Path) -> list[str]:
    found: list[str] = []
    seen = 0
    for folder, dirs, files in os.walk(repo, followlinks=False):
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED_FOLDERS and not d.startswith("."))
        seen += len(dirs) + len(files)
        for name in NESTED_NAMES:
            if name in files:
                found.append(os.path.relpath(os.path.join(folder, name), repo).replace(os.sep, "/"))
        if seen > WALK_LIMIT:
            break
    return sorted(found)


# The last listing of each repository, with the stamp of its folders it was made under.
_LISTINGS: dict[str, tuple[str, list[str]]] = {}


def _folders_stamp(repo: Path) -> str | None:
    """A digest of every folder's modification time (a file added, removed or renamed in a
    folder changes that folder's), or None past WALK_LIMIT folders. Listing through git
    starts a reader process; before every turn, this walk of folders alone decides whether
    the listing could have changed."""
    digest = hashlib.sha256()
    count = 0
    newest = 0
    for folder, dirs, _files in os.walk(repo, followlinks=False):
        dirs[:] = [d for d in dirs if d not in SKIPPED_FOLDERS and not d.startswith(".")]
        try:
            mtime = os.stat(folder).st_mtime_ns
        except OSError:
            continue
        newest = max(newest, mtime)
        digest.update(f"{folder}\0{mtime}\0".encode("utf-8", "surrogateescape"))
        count += 1
        if count > WALK_LIMIT:
            return None
    if time.time_ns() - newest < RACY_NS:
        return None  # a folder changed this very moment: another change in the same tick would not show
    for name in (".gitignore", ".git/info/exclude"):  # what git ignores decides what it lists
        try:
            digest.update(f"{name}\0{os.stat(repo / name).st_mtime_ns}".encode())
        except OSError:
            pass
    return digest.hexdigest()


_LISTING_LOCK = threading.Lock()  # one listing at a time: a second caller takes the first's


def warm(repo: Path) -> threading.Thread:
    """Lists the repository's nested instruction files in the background, so the session
    built meanwhile finds the listing made (listing starts git's reader process: most of
    a second on a large repository, which would otherwise hold up the first question)."""
    root = Path(os.path.realpath(repo))

    def listing() -> None:
        try:
            nested_paths(root)
        except Exception:  # the session lists again, and says what is wrong if anything is
            pass

    thread = threading.Thread(target=listing, name="instructions-listing", daemon=True)
    thread.start()
    return thread


def nested_paths(repo: Path) -> list[str]:
    """Every AGENTS.md or CLAUDE.md below the root, shallowest first; listed again only when
    a folder changed since the last listing."""
    with _LISTING_LOCK:
        return _nested_paths(repo)


def _nested_paths(repo: Path) -> list[str]:
    stamp = _folders_stamp(repo)
    known = _LISTINGS.get(str(repo))
    if stamp is not None and known is not None and known[0] == stamp:
        return list(known[1])
    listed = _git_listed(repo)
    if listed is None:
        listed = _walked(repo)
    nested = [p for p in listed if "/" in p and PurePosixPath(p).name in NESTED_NAMES]
    found = sorted(nested, key=lambda p: (p.count("/"), p))[:MAX_NESTED]
    if stamp is not None:
        _LISTINGS[str(repo)] = (stamp, found)
    return list(found)


def _read(root: Path, relative: str) -> str | None:
    """The file's text, or None when there is no regular file there to read (a link on the
    way, a folder, something past MAX_READ_BYTES)."""
    try:
        data = read_file(root, root / relative, MAX_READ_BYTES)
    except OSError:
        return None
    return None if data is None else data.decode("utf-8", "replace")


_FENCE = re.compile(r"^(```|~~~).*?^\1[^\n]*$", re.MULTILINE | re.DOTALL)
_CODE_SPAN = re.compile(r"`[^`\n]*`")
_IMPORT = re.compile(r"(?:(?<=[\s(\[])|^)@([^\s`]+)", re.MULTILINE)


def import_targets(text: str) -> list[str]:
    """The `@path` imports of a CLAUDE.md, in order, outside code fences and code spans."""
    bare = _CODE_SPAN.sub(" ", _FENCE.sub(" ", text))
    found = []
    for match in _IMPORT.finditer(bare):
        target = match.group(1).rstrip(".,;:!?)]}'\"")
        if target and target not in found:
            found.append(target)
    return found


def _inside(root: Path, importer: str, target: str) -> tuple[str | None, str]:
    """(the import's path relative to the root, "") or (None, why it is not read)."""
    if target.startswith(("/", "~")):
        return None, "it names a file outside the repository"
    joined = os.path.normpath(os.path.join(os.path.dirname(importer), target)).replace(os.sep, "/")
    if joined == ".." or joined.startswith("../"):
        return None, "it leads outside the repository"
    if any(part.lower() == ".git" for part in joined.split("/")):
        return None, "it is inside .git"
    real_root = os.path.realpath(root)
    real = os.path.realpath(os.path.join(root, joined))
    if not (real + os.sep).startswith(real_root.rstrip(os.sep) + os.sep):
        return None, "a symbolic link on its way leads outside the repository"
    return os.path.relpath(real, real_root).replace(os.sep, "/"), ""


@dataclass
class _Reading:
    root: Path
    files: list[InstructionFile] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    read: set[str] = field(default_factory=set)

    def add(self, relative: str, scope: str, imported_by: str = "", depth: int = 0) -> None:
        if not imported_by:
            # a root file may be a link to another (CLAUDE.md to AGENTS.md): read where it
            # leads when that is inside the repository, once
            inside, _ = _inside(self.root, "", relative)
            if inside is None:
                return
            relative = inside
        if relative in self.read:
            return  # read already: a cycle, or a file two others import
        text = _read(self.root, relative)
        if text is None:
            if imported_by:
                self.refused.append(f"@{relative} in {imported_by}: there is no regular file there to read")
            return
        self.read.add(relative)
        cut = len(text) > MAX_FILE_CHARS
        masked = mask_text(text[:MAX_FILE_CHARS], "line")[0]
        self.files.append(InstructionFile(relative, scope, masked, imported_by, cut))
        if not imported_by and PurePosixPath(relative).name not in IMPORTING:
            return
        for target in import_targets(text[:MAX_FILE_CHARS]):
            inside, why = _inside(self.root, relative, target)
            if inside is None:
                self.refused.append(f"@{target} in {relative}: not read, {why}")
            elif depth + 1 > MAX_IMPORT_DEPTH:
                self.refused.append(f"@{target} in {relative}: not read, imports go at most {MAX_IMPORT_DEPTH} deep")
            else:
                self.add(inside, scope, relative, depth + 1)


def _scope(relative: str) -> str:
    parent = str(PurePosixPath(relative).parent)
    return "" if parent in (".", ".claude", ".github") else parent + "/"


def read_instructions(repo: Path, *, nested: bool = True) -> Instructions:
    """Every instruction file of `repo`, root files first, then nested ones shallowest first
    (not with `nested` False: no listing), each followed by what it imports; capped
    (MAX_TOTAL_CHARS) and masked."""
    root = Path(os.path.realpath(repo))
    reading = _Reading(root)
    for relative in (*ROOT_FILES, *(nested_paths(root) if nested else ())):
        reading.add(relative, _scope(relative))
    kept: list[InstructionFile] = []
    left_out: list[str] = []
    total = 0
    for item in reading.files:
        if total + len(item.text) > MAX_TOTAL_CHARS:
            left_out.append(item.path)
            continue
        total += len(item.text)
        kept.append(item)
    digest = hashlib.sha256()
    for item in reading.files:
        digest.update(f"{item.path}\0{item.scope}\0{item.imported_by}\0{item.text}\0".encode("utf-8", "replace"))
    digest.update("\0".join(reading.refused).encode("utf-8", "replace"))
    return Instructions(tuple(kept), tuple(reading.refused), tuple(left_out), digest.hexdigest())


def has_instructions(repo: Path) -> bool:
    """Whether `repo` has any instruction file, without reading their imports."""
    root = Path(os.path.realpath(repo))
    return any(_read(root, name) is not None for name in ROOT_FILES) or bool(nested_paths(root))
