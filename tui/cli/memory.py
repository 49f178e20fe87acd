"""`devagent memory path|list|show`: a repository's memory, in plain text for scripts.

    devagent memory path [REPO]        the folder that holds REPO's memory
    devagent memory path --user        the folder of memories about you, shared by every repository
    devagent memory list [REPO]        one line per memory (the repository's, then yours; --user: yours only):
                                       path, type, size, modified, name, description
    devagent memory show NAME [REPO]   one memory file; NAME is a file name, a stem, a
                                       frontmatter name or a /memories/... path

Problems with the index (a memory with no line, a line with no file), what the folder
holds that is not read as a memory, and problems met opening the folder are written to
stderr by `list`, so stdout stays one memory per line.

Review and hygiene (pending, accept, reject, check) are in tui/cli/memory_hygiene.py.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from tui.cli.main import add_repo_argument, repo_folder
from tui.format import sanitize

if TYPE_CHECKING:
    from memory.store import MemoryStore


def add_arguments(name: str, parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    path = actions.add_parser("path", help="print the folder that holds the repository's memory")
    add_repo_argument(path)
    path.add_argument("--user", action="store_true", help="the folder of memories about you, shared by every repository")
    listing = actions.add_parser("list", help="list the memories (the repository's, then yours), one per line, tab-separated")
    add_repo_argument(listing)
    listing.add_argument("--user", action="store_true", help="only the memories about you, shared by every repository")
    show = actions.add_parser("show", help="print one memory file")
    show.add_argument("name", help="file name, stem, frontmatter name, or /memories/... path")
    add_repo_argument(show)
    from tui.cli import memory_hygiene

    memory_hygiene.add_arguments(actions)


def _repo(value: str) -> Path | None:
    return repo_folder("memory", value)


def run(name: str, args: argparse.Namespace) -> int:
    try:
        code = _run(args)
        sys.stdout.flush()
        return code
    except BrokenPipeError:
        # `devagent memory list | head`: the reader has all it wanted. Python would print a
        # traceback when it flushes stdout at exit, so stdout goes to /dev/null instead.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        return 0


def _run(args: argparse.Namespace) -> int:
    from memory.location import memory_dir_for

    if args.action == "path" and args.user:
        from memory.location import user_memory_dir

        print(user_memory_dir())
        return 0
    repo = _repo(args.repo)
    if repo is None:
        return 2
    from tui.cli import memory_hygiene

    if args.action in memory_hygiene.ACTIONS:
        return memory_hygiene.run(args, repo)
    if args.action == "path":
        # Printing the path must not create the folder: a script may only want to know it.
        print(memory_dir_for(repo))
        return 0

    stores = _stores(repo, user_only=getattr(args, "user", False))
    if args.action == "list":
        return _list(stores)
    if not stores:
        print(f"devagent memory: no memory named {args.name!r} ({memory_dir_for(repo)} does not exist)", file=sys.stderr)
        return 1
    return _show(stores, args.name)


def _stores(repo: Path, *, user_only: bool = False) -> list[MemoryStore]:
    """The repository's folder and the user's, each when it exists (reading creates none)."""
    from memory.roots import existing_stores

    return existing_stores(repo, user_only=user_only)


def _list(stores: list[MemoryStore]) -> int:
    for store in stores:
        _list_one(store)
    return 0


def _list_one(store: MemoryStore) -> None:
    for info in store.memories():
        modified = time.strftime("%Y-%m-%d %H:%M", time.localtime(info.modified))
        fields = [info.path, info.type or "-", str(info.size), modified, info.name, info.description]
        print(sanitize("\t".join(" ".join(field.split("\t")) for field in fields)))
    # a memory's name, description and text are anybody's who can write the folder: the
    # terminal gets them as text (tui.format.sanitize), never as escape sequences
    for problem in store.index_problems():
        print(sanitize(f"note: {problem}"), file=sys.stderr)
    for skipped in store.skipped():
        print(sanitize(f"skipped: {skipped.path}: {skipped.reason}"), file=sys.stderr)
    for warning in store.warnings:
        print(sanitize(f"warning: {warning}"), file=sys.stderr)


def _find(stores: list[MemoryStore], wanted: str) -> tuple[MemoryStore, str] | None:
    """The store and path of the memory `wanted` names; the user's folder answers to
    /memories/user/..., the repository's to the rest."""
    from memory.roots import is_user_path

    if wanted.startswith("/memories/"):
        for store in stores:
            if is_user_path(wanted) == (store.ROOT != "/memories"):
                return store, wanted
    memories = [(store, info) for store in stores for info in store.memories()]
    for match in (
        lambda s, i: i.path in (f"{s.ROOT}/{wanted}", f"{s.ROOT}/{wanted}.md", f"/memories/{wanted}",
                                f"/memories/{wanted}.md"),
        lambda s, i: i.file.name == wanted,
        lambda s, i: i.file.stem == wanted,
        lambda s, i: i.name == wanted,
        lambda s, i: i.name.lower() == wanted.lower() or i.file.stem.lower() == wanted.lower(),
    ):
        found = [(store, info.path) for store, info in memories if match(store, info)]
        if len(found) == 1:
            return found[0]
        if len(found) > 1:
            print(f"devagent memory: {wanted!r} matches several memories: {', '.join(p for _, p in found)}", file=sys.stderr)
            return None
    if wanted in ("MEMORY.md", "MEMORY", "index") and stores:
        return stores[0], f"{stores[0].ROOT}/MEMORY.md"
    print(f"devagent memory: no memory named {wanted!r}", file=sys.stderr)
    return None


def _show(stores: list[MemoryStore], wanted: str) -> int:
    from memory.errors import MemoryStoreError

    found = _find(stores, wanted)
    if found is None:
        return 1
    store, path = found
    try:
        text = store.read(path)
    except MemoryStoreError as error:
        print(f"devagent memory: {error}", file=sys.stderr)
        return 1
    text = sanitize(text)
    sys.stdout.write(text if text.endswith("\n") or not text else text + "\n")
    return 0
