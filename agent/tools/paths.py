"""What a path from the model may name: the repository's files, checked part by part.

Paths come from the model, so they are untrusted input. They are refused by their parts
before the filesystem interprets them, by the memory store's own check, and the resolved
path is checked against the repository root with a trailing separator, so neither `..`, a
sibling folder sharing a prefix, nor a symlink can lead outside, and nothing under `.git`.
Every tool that takes a path, and the editor's journal and the toolchain's test filter
below them, resolve it here.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

from agent.tools.base import ToolInputError
from agent.tools.editor.confined_files import anchored
from agent.tools.names import shown_name

MAX_FILE_BYTES = 10_000_000


class PathRefused(ToolInputError):
    pass


QUOTE_CHARS = 200  # a path echoed in an error; a 1 MB path must not come back whole


def quoted(path: str) -> str:
    shown = shown_name(path)
    return shown if len(shown) <= QUOTE_CHARS else shown[:QUOTE_CHARS] + f"... ({len(shown):,} characters)"


def _part_problem(part: str) -> str | None:
    # Any other character is a file name's own: a newline, a backslash, a colon. The name
    # comes back as shown_name wrote it (agent.tools.names) and resolves to that file.
    if part == "":
        return "empty path segments ('//') are not allowed"
    if part in (".", ".."):
        return f"'{part}' segments are not allowed"
    if "\x00" in part:
        return "NUL characters are not allowed"
    return None


def _limit(root: Path, name: str, default: int) -> int:
    try:
        return os.pathconf(root, name)
    except (OSError, ValueError):
        return default


def _check_lengths(parts: list[str], path: str, root: Path) -> None:
    name_max = _limit(root, "PC_NAME_MAX", 255)
    path_max = _limit(root, "PC_PATH_MAX", 4096)
    total = len(os.fsencode(str(root)))
    for part in parts:
        try:
            size = len(os.fsencode(part))
        except UnicodeEncodeError:
            raise PathRefused(
                f"Error: {quoted(path)} holds a character that no file name can hold (a lone "
                "surrogate), so there is no such file. Copy the name from a folder listing."
            ) from None
        if size > name_max:
            raise PathRefused(
                f"Error: the name {quoted(part)} is {size:,} bytes long; file names here are at most "
                f"{name_max} bytes, so there is no such file."
            )
        total += size + 1
    if total >= path_max:
        raise PathRefused(
            f"Error: the path {quoted(path)} is {total:,} bytes long with the repository folder, past "
            f"this system's limit of {path_max:,} bytes, so there is no such file."
        )


def _parts(path: str, roots: tuple[Path, ...]) -> list[str]:
    """Splits a model-given path into parts, refusing anything that could steer it outside."""
    if path.startswith("/"):
        # An absolute path is fine if it names a place inside the repository, spelled either
        # the way the session was given it or resolved.
        for root in roots:
            prefix = str(root).rstrip("/") + "/"
            if path.startswith(prefix):
                path = path[len(prefix):]
                break
        else:
            raise PathRefused(f"Error: {quoted(path)} is outside the repository. Give a path relative to the repository root.")
    parts = path.split("/")
    while parts and parts[0] == ".":
        parts.pop(0)
    if not parts or parts == [""]:
        raise PathRefused("Error: give the path of a file in the repository, relative to its root.")
    for part in parts:
        if part.lower() == ".git":
            raise PathRefused(f"Error: {quoted(path)} is inside .git, which devagent does not open or change. Use git_status for the repository state.")
        problem = _part_problem(part)
        if problem:
            raise PathRefused(f"Error: {quoted(path)} is not an allowed path: {problem}.")
    return parts


def hard_link_refusal(shown: str, links: int) -> str:
    """Why the text of a file with more than one name is not shown.

    A hard link's other names can be anywhere on the same disk, and nothing short of
    searching the whole disk tells a second name inside the repository from one in the
    user's home (a link to ~/.ssh/id_rsa looks like any other). So read_file, search and the
    editor's view show no file with more than one name, and the editor's create replaces it
    with a file of its own (hard_link_edit_refusal for the edits that build on its text)."""
    return (f"Error: {shown} is a hard link: the same file has {links} names, and the others can be anywhere on this "
            "disk (outside the repository too), so its text is not shown. If it is the repository's own file, the "
            "user can give it a name of its own (copy it, then move the copy over it).")


def hard_link_edit_refusal(shown: str, links: int) -> str:
    """Why str_replace and insert leave a hard link alone: they build on its text, which is
    not shown, so they would answer whether a guess is in it and copy the rest into a file
    read_file then shows. create, which replaces the whole text, is allowed."""
    return (f"Error: {shown} is a hard link: the same file has {links} names, and the others can be anywhere on this "
            "disk, so its text is neither shown nor changed in place (str_replace and insert build on it). create "
            "replaces its whole text with a file of its own, leaving the other names as they are; or the user can "
            "give it a name of its own (copy it, then move the copy over it), after which it can be read and changed.")


def os_problem(exc: OSError, path: str) -> str:
    """A sentence for what the filesystem said about a path the model gave."""
    shown = quoted(path)
    if exc.errno == errno.ELOOP:
        return f"Error: {shown} is a symbolic link that leads back to itself (a loop), so there is nothing to read."
    if exc.errno == errno.ENAMETOOLONG:
        return f"Error: {shown} is longer than this system allows for a file name or path, so there is no such file."
    if exc.errno == errno.ENOTDIR:
        return f"Error: there is no {shown} in the repository: a part of it is a file, not a folder."
    if exc.errno in (errno.ENOENT,):
        return f"Error: there is no {shown} in the repository."
    if exc.errno in (errno.EACCES, errno.EPERM):
        return f"Error: {shown} cannot be read: permission denied."
    if exc.errno == errno.EILSEQ:
        return f"Error: {shown} is not a name this filesystem accepts, so there is no such file."
    return f"Error: {shown} could not be read: {exc.strerror or type(exc).__name__}."


def resolve_in_repository(path: str, repo: Path, named: Path | None = None) -> Path:
    """The file `path` (the model's) names in `repo`, checked to stay inside it. When `repo`
    is a session's root descriptor (ToolContext.base) the result stays below it, so what
    is opened through it is in that folder even if the folder was moved since. `named`: the
    repository as the session was given it (ToolContext.repo), which an absolute path may
    begin with."""
    through_descriptor = anchored(repo)
    root = Path(os.path.realpath(repo))  # through a descriptor: where its folder is now
    spellings = (root, Path(os.path.abspath(repo)), *((Path(os.path.abspath(named)),) if named is not None else ()))
    parts = _parts(path, spellings)
    _check_lengths(parts, path, root)
    try:
        full = root.joinpath(*parts).resolve()
    except RuntimeError:  # Python 3.11 reports a symlink loop this way
        raise PathRefused(os_problem(OSError(errno.ELOOP, "loop"), path)) from None
    except OSError as exc:
        raise PathRefused(os_problem(exc, path)) from None
    # The separator matters: /work/repo-evil starts with /work/repo.
    if not (str(full) + os.sep).startswith(str(root).rstrip(os.sep) + os.sep):
        raise PathRefused(f"Error: {quoted(path)} leads outside the repository (through a symlink), so it is neither read nor changed.")
    inside = full.relative_to(root).parts
    if any(p.lower() == ".git" for p in inside):
        raise PathRefused(f"Error: {quoted(path)} leads into .git, which devagent does not open or change.")
    return repo.joinpath(*inside) if through_descriptor else full


def repository_root(repo: Path) -> Path:
    """Where accesses below `repo` start: a root descriptor's path as it is (resolving it
    would give the folder's path, which a link can take), any other path resolved."""
    return repo if anchored(repo) else repo.resolve()


def folder_entries(folder: Path) -> list[str]:
    """A folder's entries by name as a listing shows them: folders with a trailing slash (a
    link to one is not followed, so it shows as a name), .git left out."""
    return [shown_name(child.name) + ("/" if child.is_dir() and not child.is_symlink() else "")
            for child in sorted(folder.iterdir(), key=lambda p: p.name) if child.name.lower() != ".git"]
