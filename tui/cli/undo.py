"""`devagent undo [REPO]`: put back the files of the agent's last applied turn of changes.

The same undo as the app's key (agent.tools.editor.journal): every file the turn's change sets
changed goes back as it was, or, when one changed since, none does and it says which.
Exit status 1 when nothing was undone.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tui.format import sanitize


def add_arguments(name: str, parser: argparse.ArgumentParser) -> None:
    parser.add_argument("repo", nargs="?", default=".", help="the repository (default: .)")


def run(name: str, args: argparse.Namespace) -> int:
    from agent.loop.root_check import open_root, undo_last_change

    repo = Path(args.repo).expanduser()
    if not repo.is_dir():
        print(f"devagent undo: {args.repo} is not a folder", file=sys.stderr)
        return 2
    repo = repo.resolve()
    undone, said = undo_last_change(repo, open_root(repo))  # the folder opened once, every file below it
    print(sanitize(said), file=sys.stdout if undone else sys.stderr)
    return 0 if undone else 1
