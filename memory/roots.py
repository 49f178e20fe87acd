"""Two memory folders behind one /memories: the repository's and the user's.

What is about the user (how they like to work, what they care about) follows them from
repository to repository: `/memories/user/...` maps to one user-wide folder under the data
directory, shared by every repository. Everything else under `/memories` stays with the
repository. Each folder is a MemoryStore of its own, so each has its own caps, lock, index
and atomic writes; this only routes a path to the one it belongs to, lists both in a view
of `/memories`, and moves a memory across (both locks held, repository first, so two
sessions never wait for each other in opposite orders).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memory import inputs, paths, results
from memory.errors import CommandError, MemoryStoreError
from memory.store import MemoryStore

if TYPE_CHECKING:
    from memory.evidence import CitationCheck
    from memory.notes import MemoryInfo
    from memory.preload import Preload

USER_ROOT = paths.ROOT + "/user"
# Memory about the user is preloaded in every repository, so it gets less room than the
# repository's: a few preferences, not a diary.
USER_MAX_FILE_CHARS = 3000
USER_MAX_TOTAL_CHARS = 3000


def is_user_path(path: str) -> bool:
    return path == USER_ROOT or path.startswith(USER_ROOT + "/")


def other_root_path(path: str) -> str:
    """Where a memory goes when it moves to the other folder (same name)."""
    if is_user_path(path):
        return paths.ROOT + path[len(USER_ROOT) :]
    return USER_ROOT + path[len(paths.ROOT) :]


class MemoryRoots:
    """A MemoryStore's interface over the repository's folder and the user's."""

    ROOT = paths.ROOT

    def __init__(self, repository: MemoryStore, user: MemoryStore) -> None:
        self.repository = repository
        self.user = user

    @classmethod
    def for_repository(cls, repo: Path, **kw: Any) -> MemoryRoots:
        return cls(MemoryStore.for_repository(repo, **kw), user_store())

    # -- what callers read off a store --------------------------------------------------------

    def roots(self) -> list[MemoryStore]:
        return [self.repository, self.user]

    @property
    def directory(self) -> Path:
        return self.repository.directory

    @property
    def repo(self) -> Path | None:
        return self.repository.repo

    @property
    def max_file_chars(self) -> int:
        return self.repository.max_file_chars

    @property
    def max_total_chars(self) -> int:
        return self.repository.max_total_chars

    def total_chars(self) -> int:
        return self.repository.total_chars()

    def _for(self, path: str) -> MemoryStore:
        return self.user if isinstance(path, str) and is_user_path(path) else self.repository

    # -- the six commands ----------------------------------------------------------------------

    def run(self, command: dict[str, Any]) -> tuple[str, bool]:
        try:
            name, args = inputs.parse(command)
        except CommandError as error:
            return str(error), True
        if name == "rename":
            old, new = args["old_path"], args["new_path"]
            if self._for(old) is not self._for(new):
                return self._move(old, new)
            return self._for(old).run(command)
        if name == "view" and args["path"].rstrip("/") == paths.ROOT:
            return self._view_both(command)
        return self._for(args["path"]).run(command)

    def _view_both(self, command: dict[str, Any]) -> tuple[str, bool]:
        text, is_error = self.repository.run(command)
        if is_error:
            return text, is_error
        user_text, user_error = self.user.run({"command": "view", "path": USER_ROOT})
        if user_error:
            return text, False
        lines = user_text.splitlines()[1:]  # no second header
        shown = []
        for line in lines:
            size, _, where = line.partition("\t")
            if where == USER_ROOT:
                where += "/"
            if where.count("/") - paths.ROOT.count("/") <= 2:  # "up to 2 levels deep", as above
                shown.append(f"{size}\t{where}")
        return "\n".join([text, *shown]), False

    def _move(self, old: str, new: str) -> tuple[str, bool]:
        """A rename from one folder to the other: written in the new one through its checks,
        then removed from the old one, with both locks held."""
        try:
            paths.split(old)
            paths.split(new)
            with self.locked():
                source, target = self._for(old), self._for(new)
                text = source.current_text(old)
                if text is None:
                    raise CommandError(f"The path {old} does not exist")
                if target.current_text(new) is not None:
                    raise CommandError(f"The destination {new} already exists")
                target.apply_change(new, None, text)
                source.apply_change(old, text, None)
            return results.renamed(old, new), False
        except (CommandError, MemoryStoreError) as error:
            return str(error), True
        except OSError as error:
            return f"Could not move {old}: {error.strerror or error}.", True

    # -- notes, for the prompt, the pane and the CLI -----------------------------------------

    def memories(self) -> list[MemoryInfo]:
        return self.repository.memories() + self.user.memories()

    def preload(self) -> Preload:
        """What preloading puts in the prompt from both folders, each within its own caps."""
        from memory.preload import Preload

        mine, theirs = self.repository.preload(), self.user.preload()
        return Preload(mine.files + theirs.files, mine.left_out + theirs.left_out)

    def index_text(self) -> str:
        return self.repository.index_text()

    def index_problems(self) -> list[str]:
        return self.repository.index_problems() + self.user.index_problems()

    def reindex(self) -> None:
        self.repository.reindex()
        self.user.reindex()

    def evidence(self, repo: Path | None = None) -> dict[str, list[CitationCheck]]:
        return self.repository.evidence(repo)  # memories about the user cite no code

    def read(self, path: str) -> str:
        return self._for(path).read(path)

    def forget(self, path: str) -> tuple[str, bool, list[str]]:
        return self._for(path).forget(path)

    def index_lines_back(self, path: str, lines: list[str]) -> None:
        self._for(path).index_lines_back(path, lines)

    def save(self, path: str, text: str, *, expected: str | None = None) -> tuple[str, bool]:
        return self._for(path).save(path, text, expected=expected)

    def delete(self, path: str) -> tuple[str, bool]:
        return self._for(path).delete(path)

    def move_to_other_root(self, path: str) -> tuple[str, bool]:
        """The pane's move: a repository memory becomes the user's, or back."""
        return self._move(path, other_root_path(path))

    # -- review (memory/pending.py) ----------------------------------------------------------

    @contextmanager
    def locked(self) -> Iterator[None]:
        with self.repository.locked(), self.user.locked():
            yield

    def current_text(self, path: str) -> str | None:
        return self._for(path).current_text(path)

    def check_write(self, path: str, text: str, old_text: str | None) -> None:
        self._for(path).check_write(path, text, old_text)

    def apply_change(self, path: str, before: str | None, after: str | None, new_path: str | None = None) -> None:
        if new_path is None or self._for(path) is self._for(new_path):
            self._for(path).apply_change(path, before, after, new_path)
            return
        with self.locked():
            if self.current_text(path) != before:
                raise CommandError(f"{path} changed since this change was proposed; its new text was kept.")
            if self.current_text(new_path) is not None:
                raise CommandError(f"{new_path} exists now; the move would replace it.")
            self._for(new_path).apply_change(new_path, None, after)
            self._for(path).apply_change(path, before, None)


def user_store() -> MemoryStore:
    """The user-wide folder, behind /memories/user with its smaller caps."""
    from memory.location import user_memory_dir

    return MemoryStore(user_memory_dir(), root=USER_ROOT, max_file_chars=USER_MAX_FILE_CHARS, max_total_chars=USER_MAX_TOTAL_CHARS)


def existing_stores(repo: Path, *, user_only: bool = False) -> list[MemoryStore]:
    """The repository's folder and the user's, each only when it exists: opening a store
    makes its folder, and a command that only reads makes none."""
    from memory.location import memory_dir_for, user_memory_dir

    stores = []
    if not user_only and memory_dir_for(repo).is_dir():
        stores.append(MemoryStore.for_repository(repo))
    if user_memory_dir().is_dir():
        stores.append(user_store())
    return stores


def open_memory(repo: Path) -> MemoryRoots:
    """The memory a session in `repo` sees: its repository's folder and the user's."""
    return MemoryRoots.for_repository(Path(repo))


