"""`devagent undo [REPO]`: put back the files of the agent's last applied turn of changes.

The same undo as the app's key (agent.tools.editor.journal): every file the turn's change sets
changed goes back as it was, or, when one changed since, none does and it says which.
Exit status 1 when nothing was undone.
"""

from __future__ import annotations

import argparse
import sys

from tui.cli.main import add_repo_argument, repo_folder
from tui.format import sanitize


def add_arguments(name: str, parser: argparse.ArgumentParser) -> None:
    add_repo_argument(parser)


def run(name: str, args: argparse.Namespace) -> int:
    from agent.loop.root_check import open_root, undo_last_change

    repo = repo_folder("undo", args.repo)
    if repo is None:
        return 2
    repo = repo.resolve()
    undone, said = undo_last_change(repo, open_root(repo))  # the folder opened once, every file below it
    print(sanitize(said), file=sys.stdout if undone else sys.stderr)
    return 0 if undone else 1
