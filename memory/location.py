"""Where a repository's memory lives: one folder per repository, outside it.

The folder sits under the user's data directory, so what was said about a project never
ends up in one of its commits. It is keyed on the git common directory, so every worktree
of a repository shares one memory. Git is read from its files, not run, which keeps this
fast and working where git is not installed.
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


def git_common_dir(path: Path) -> Path | None:
    """The common git directory of the repository holding `path`, or None outside git."""
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
        commondir = git_dir / "commondir"
        if commondir.is_file():
            try:
                relative = commondir.read_text(encoding="utf-8", errors="replace").strip()
            except OSError:
                relative = ""
            if relative:
                git_dir = git_dir / relative
        return Path(os.path.realpath(git_dir))
    return None


def canonical_repository(repo: Path) -> tuple[Path, str]:
    """(the path the key hashes, the readable name) for a repository or plain folder."""
    common = git_common_dir(repo)
    if common is None:
        real = Path(os.path.realpath(repo))
        return real, real.name
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
