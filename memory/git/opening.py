"""(In the reader process) The repository a folder belongs to, opened with libgit2.

Found as git finds it: from the folder up, stopping at GIT_CEILING_DIRECTORIES and at a
file system boundary unless GIT_DISCOVERY_ACROSS_FILESYSTEM says otherwise. No other GIT_*
variable is read: libgit2 reads them only when asked to, and devagent never asks.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import pygit2

# Extensions libgit2 does not know that change nothing for a reader: a partial clone (whose
# missing objects a read then reports instead of fetching) and preciousObjects (no pruning).
READABLE_EXTENSIONS = ["partialclone", "preciousobjects"]


class ReadError(Exception):
    """A read that cannot be done, with a kind the app turns into its own sentence."""

    def __init__(self, kind: str, message: str = "") -> None:
        super().__init__(message or kind)
        self.kind = kind
        self.message = message


@dataclass
class Opened:
    repo: pygit2.Repository
    prefix: str  # the folder asked about, relative to the work tree, "" or ending in "/"

    def inside(self, path: str) -> bool:
        return path.startswith(self.prefix)

    def relative(self, path: str) -> str:
        """A work-tree path as seen from the folder (git's --relative)."""
        return path[len(self.prefix):] if self.prefix and path.startswith(self.prefix) else path


def open_repository(folder: Path, *, work_tree: bool = True) -> Opened:
    """The repository `folder` is in; ReadError("not-a-repository" | "not-yours" | "bare")."""
    if not folder.is_dir():
        raise ReadError("no-folder")
    pygit2.settings.set_extensions(READABLE_EXTENSIONS)
    ceiling = os.environ.get("GIT_CEILING_DIRECTORIES", "")
    across = os.environ.get("GIT_DISCOVERY_ACROSS_FILESYSTEM", "").lower() in ("1", "true", "yes", "on")
    try:
        found = pygit2.discover_repository(str(folder), across, ceiling)
    except pygit2.GitError as exc:
        raise _refusal(exc, folder) from exc
    if found is None:
        raise ReadError("not-a-repository")
    try:
        repo = pygit2.Repository(found, pygit2.enums.RepositoryOpenFlag.NO_SEARCH)
    except pygit2.GitError as exc:
        raise _refusal(exc, folder) from exc
    if repo.workdir is None:
        if work_tree:
            raise ReadError("bare")
        return Opened(repo, "")
    root = os.path.realpath(repo.workdir)
    here = os.path.realpath(folder)
    prefix = "" if here == root or not here.startswith(root + os.sep) else os.path.relpath(here, root).replace(os.sep, "/") + "/"
    return Opened(repo, prefix)


def _refusal(exc: pygit2.GitError, folder: Path) -> ReadError:
    text = str(exc)
    if "not owned by current user" in text or "owner" in text:
        return ReadError("not-yours", str(folder))
    return ReadError("failed", text)
