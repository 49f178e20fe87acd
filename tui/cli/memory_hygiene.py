"""`devagent memory pending|accept|reject|check`: review and hygiene, for scripts.

    devagent memory pending [REPO] [--diff]     the agent's changes waiting for you: id, what, when
    devagent memory accept ID|--all [REPO]      apply them through the store (a file changed
                                                since is a conflict, never overwritten;
                                                accepting a conflict puts it back in review
                                                against the file as it is now)
    devagent memory reject ID|--all [REPO]      drop them, a conflict too; the agent hears so
                                                next turn
    devagent memory check [REPO] [--json]       what is wrong: one finding a line,
                                                path, kind, detail; exit 1 when anything is found

Each covers the repository's memory and the user-wide one (/memories/user/).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from tui.cli.main import add_repo_argument

if TYPE_CHECKING:
    from memory.pending import PendingChanges
    from memory.store import MemoryStore

ACTIONS = ("pending", "accept", "reject", "check")


def add_arguments(actions: Any) -> None:
    pending = actions.add_parser("pending", help="list the agent's memory changes waiting for your review")
    add_repo_argument(pending)
    pending.add_argument("--diff", action="store_true", help="print each change's diff under its line")
    for verb, does in (("accept", "apply"), ("reject", "drop")):
        parser = actions.add_parser(verb, help=f"{does} one pending memory change, or all of them")
        parser.add_argument("id", nargs="?", help="the change's id, as `devagent memory pending` prints it")
        add_repo_argument(parser)
        parser.add_argument("--all", action="store_true", help=f"{does} every pending change")
    check = actions.add_parser("check", help="list what is wrong with the memory; exit 1 when anything is")
    add_repo_argument(check)
    check.add_argument("--json", action="store_true", help="print the findings as a JSON list")


def _say(text: str, stream: TextIO | None = None) -> None:
    # Memory text and paths are the model's or the user's: no control sequences reach the terminal.
    from tui.format import sanitize

    print(sanitize(text), file=stream or sys.stdout)


def run(args: argparse.Namespace, repo: Path) -> int:
    if args.action in ("accept", "reject"):
        chosen = _decided_repository(args, repo)
        if chosen is None:
            return 2
        repo = chosen
    # The stores, made once for the action: `check` only reads, so it opens no folder that
    # does not exist (opening one creates it); review opens both.
    from memory.roots import existing_stores, open_memory

    if args.action == "check":
        return _check(existing_stores(repo), repo, args.json)
    from memory.pending import PendingChanges

    pending = PendingChanges(open_memory(repo))
    if args.action == "pending":
        return _pending(pending, args.diff)
    return _decide(pending, args.action, None if args.all else args.id)


def _decided_repository(args: argparse.Namespace, repo: Path) -> Path | None:
    """The repository `accept` and `reject` work in, or None (said why) when the arguments
    name neither one change nor --all."""
    if args.all and args.id is not None:
        if args.repo != ".":
            _say(f"devagent memory {args.action}: give an id or --all, not both", sys.stderr)
            return None
        repo = Path(args.id).expanduser()  # `accept --all REPO`: the one positional is the repository
        if not repo.is_dir():
            _say(f"devagent memory: {args.id} is not a folder", sys.stderr)
            return None
    elif not args.all and args.id is None:
        _say(f"devagent memory {args.action}: give the id of a change, or --all", sys.stderr)
        return None
    return repo


def _pending(pending: PendingChanges, diff: bool) -> int:
    for problem in pending.problems():
        _say(problem, sys.stderr)
    for change in pending.list():
        _say(f"{change.id}\t{change.summary}\t{change.created[:19]}")
        if diff:
            for line in change.diff().splitlines():
                _say(f"    {line}")
    conflicts = pending.conflicts()
    for change in conflicts:
        _say(f"{change.id}\tconflict: {change.summary}\t{change.note}", sys.stderr)
    if conflicts:
        _say("A conflict is not applied: `devagent memory accept ID` puts it back in review against "
             "the file as it is now, `devagent memory reject ID` drops it.", sys.stderr)
    return 0


def _decide(pending: PendingChanges, action: str, change_id: str | None) -> int:
    decide = pending.accept if action == "accept" else pending.reject
    outcomes = pending.decide_all(decide) if change_id is None else [decide(change_id)]
    for problem in pending.problems():
        _say(problem, sys.stderr)
    if not outcomes:
        _say("No memory changes are waiting for review.")
        return 0
    failed = False
    for message, refused in outcomes:
        _say(message, sys.stderr if refused else sys.stdout)
        failed = failed or refused
    return 1 if failed else 0


def _check(stores: list[MemoryStore], repo: Path, as_json: bool) -> int:
    from agent.settings.config import AgentConfig
    from memory.check import check_store

    aging_days = AgentConfig.from_env_and_args(repo=repo).memory_aging_days
    findings = []
    for store in stores:
        # the user's memory cites no repository's files
        findings += check_store(store, store.repo, aging_days=aging_days)
    if as_json:
        print(json.dumps([f.to_json() for f in findings], indent=1, ensure_ascii=False))
    else:
        for finding in findings:
            _say(finding.line())
    return 1 if findings else 0
