"""Where a repository's memory lives: one folder per repository, outside it.

The folder sits under the user's data directory, so what was said about a project never
ends up in one of its commits. It is keyed on the git common directory, so every worktree
of a repository shares one memory. Git is read from its files, not run, which keeps this
fast and working where git is not installed.

A folder's `.git` is written by whoever made the folder: a file `gitdir: ../shop/.git`, a
link to a clone's `.git`, or a `commondir` can name any clone's git folder. So the common
folder is the key only when it lists this work tree back as its own, with what only git
(or the clone's owner) writes inside it: it is the `.git` folder of this very folder, or
its `worktrees/<name>/gitdir` names this folder's `.git` file, or a submodule's
`core.worktree` names this folder. Any other folder is keyed on its own real path, so it
shares neither the memory nor the undo journal (agent.tools.editor.journal) of the clone
it names.
"""

from __future__ import annotations

import hashlib
import os
import re
import sys
from pathlib import Path

APP_NAME = "devagent"


def data_dir() -> Path:
    from platformdirs import user_data_dir

    return Path(user_data_dir(APP_NAME, appauthor=False))


def _read_gitdir_file(dot_git: Path) -> Path | None:
    try:
        text = dot_git.read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return None
    if not text.startswith("gitdir:"):
        return None
    target = Path(text[len("gitdir:") :].strip())
    return (dot_git.parent / target) if not target.is_absolute() else target


def _git_folder(path: Path) -> tuple[Path, Path, Path] | None:
    """(the work tree folder, its git folder, the common git folder) for the repository
    holding `path`, each a real path, as the `.git` there names them; None outside git."""
    current = Path(os.path.realpath(path))
    if current.is_file():
        current = current.parent
    for folder in (current, *current.parents):
        dot_git = folder / ".git"
        if dot_git.is_dir():
            git_dir = dot_git
        elif dot_git.is_file():
            found = _read_gitdir_file(dot_git)
            if found is None:
                continue
            git_dir = found
        elif (folder / "HEAD").is_file() and (folder / "objects").is_dir() and (folder / "refs").is_dir():
            git_dir = folder  # a bare repository
        else:
            continue
        git_dir = Path(os.path.realpath(git_dir))
        common = git_dir
        commondir = git_dir / "commondir"
        if commondir.is_file():
            try:
                relative = commondir.read_text(encoding="utf-8", errors="replace").strip()
            except OSError:
                relative = ""
            if relative:
                common = Path(os.path.realpath(git_dir / relative))
        return folder, git_dir, common
    return None


def git_common_dir(path: Path) -> Path | None:
    """The common git directory the repository holding `path` names, or None outside git.
    What it names, not whether it is this folder's own: see `owned_common_dir`."""
    found = _git_folder(path)
    return None if found is None else found[2]


def _core_worktree(git_dir: Path) -> Path | None:
    """`core.worktree` in the git folder's own config (what a submodule's git folder names
    as its work tree), resolved from the git folder; None when unset."""
    try:
        text = (git_dir / "config").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    section = ""
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("["):
            section = line.strip("[] \t").lower()
        elif section == "core" and "=" in line:
            key, _, value = line.partition("=")
            if key.strip().lower() == "worktree":
                value = value.strip().strip('"')
                return Path(os.path.realpath(git_dir / value)) if value else None
    return None


def _lists_back(folder: Path, git_dir: Path, common: Path) -> bool:
    """Whether `common` holds `folder` as one of its own work trees (see the module's text)."""
    if folder == common:
        return True  # a bare repository opened itself
    if git_dir == common:
        if common == folder / ".git":
            return True  # the clone's own .git folder, not a link to another's
        return _core_worktree(common) == folder  # a submodule's folder under .git/modules
    if git_dir.parent != common / "worktrees":
        return False  # a commondir in a folder the clone never made
    try:
        named = (git_dir / "gitdir").read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return False
    return bool(named) and os.path.realpath(git_dir / named) == os.path.realpath(folder / ".git")


def owned_common_dir(path: Path) -> Path | None:
    """The common git directory of the repository holding `path` when that directory lists
    the work tree back as its own; None outside git or when the folder only names it."""
    found = _git_folder(path)
    if found is None or not _lists_back(*found):
        return None
    return found[2]


def canonical_repository(repo: Path) -> tuple[Path, str]:
    """(the path the key hashes, the readable name) for a repository or plain folder."""
    found = _git_folder(repo)
    if found is None:
        real = Path(os.path.realpath(repo))
        return real, real.name
    folder, git_dir, common = found
    if not _lists_back(folder, git_dir, common):
        return folder, folder.name  # it only names a clone's git folder: a memory of its own
    if common.name == ".git":
        return common.parent, common.parent.name
    # A bare repository ("app.git") or a submodule's git dir (".git/modules/app").
    name = common.name[:-4] if common.name.endswith(".git") else common.name
    return common, name


def _safe_name(name: str) -> str:
    cleaned = re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip(".-")
    return cleaned[:40] or "repo"


def repository_key(repo: Path) -> str:
    """`<repo-name>-<first 8 hex of sha256 of the canonical repository path>`."""
    canonical, name = canonical_repository(Path(repo))
    text = str(canonical)
    if sys.platform in ("win32", "darwin"):
        text = text.lower()  # case-insensitive file systems: one folder per repository
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return f"{_safe_name(name)}-{digest}"


def memory_dir_for(repo: Path) -> Path:
    return data_dir() / "memories" / repository_key(repo)


def user_memory_dir() -> Path:
    """The one folder of memories about the user, shared by every repository
    (/memories/user/ in each session)."""
    return data_dir() / "user-memory"
