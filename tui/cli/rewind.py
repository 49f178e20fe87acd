"""`devagent rewind [REPO]`: go back to before a turn of the last session (or `--session`).

Without `--turn` it lists the session's turns; with it, it shows what each part would
change; `--yes` does it, in the parts named (`--code`, `--memory`, `--conversation`; all
three when none is). `--undo` undoes the last rewind's files and memory. A file changed
since by someone else is named and left as it is. Exit status 1 when something was refused.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from tui.cli.main import add_repo_argument, repo_folder

PARTS = ("conversation", "code", "memory")


def add_arguments(name: str, parser: argparse.ArgumentParser) -> None:
    add_repo_argument(parser)
    parser.add_argument("--session", default=None, help="the session's id (default: the latest with checkpoints)")
    parser.add_argument("--turn", type=int, default=None, help="go back to before this turn")
    for part in PARTS:
        parser.add_argument(f"--{part}", action="store_true", help=f"rewind the {part} (default: all three)")
    parser.add_argument("--yes", action="store_true", help="do it (without it, only show what it would change)")
    parser.add_argument("--undo", action="store_true", help="undo the last rewind's files and memory")


def run(name: str, args: argparse.Namespace) -> int:
    from agent.checkpoints.saved import saved_checkpoints
    from tui.format import sanitize

    repo = repo_folder("rewind", args.repo)
    if repo is None:
        return 2
    found = saved_checkpoints(repo.resolve(), args.session)
    if found is None:
        print("devagent rewind: no session of this repository has checkpoints.", file=sys.stderr)
        return 1
    store = _store(repo)
    if args.undo:
        said, refused = found.undo(store)
        print(sanitize(said))
        return 1 if refused else 0
    if args.turn is None:
        print(f"Session {found.session}:")
        for point in found.checkpoints:
            when = time.strftime("%Y-%m-%d %H:%M", time.localtime(point.when))
            print(sanitize(f"  turn {point.turn:>3}  {when}  {len(point.files)} file(s), {len(point.memory)} memory  "
                           f"{' '.join(point.words.split())[:70]}"))
        print("Show what going back to before a turn would change: devagent rewind --turn N")
        return 0
    parts = {p for p in PARTS if getattr(args, p)} or set(PARTS)
    if not args.yes:
        plan = found.preview(args.turn, store)
        if plan is None:
            print(f"devagent rewind: session {found.session} has no turn {args.turn}.", file=sys.stderr)
            return 1
        for part in PARTS:
            if part in parts:
                print(f"{part.capitalize()}:")
                for line in plan.lines(part):  # type: ignore[arg-type]
                    print(sanitize(f"  {line}"))
        print("Run again with --yes to do it.")
        return 0
    said, refused = found.rewind(args.turn, parts, store)
    print(sanitize(said))
    return 1 if refused else 0


def _store(repo: Path):  # type: ignore[no-untyped-def]
    try:
        from memory.roots import open_memory

        return open_memory(repo.resolve())
    except Exception:
        return None
