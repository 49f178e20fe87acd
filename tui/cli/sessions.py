"""`devagent sessions [REPO]`: the saved sessions of a repository, newest first.

One line each: the id (`devagent --resume ID` and `devagent ask --resume ID` take it, or any
unambiguous part of it), the date, the turns, what it cost, and the first question.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def add_arguments(name: str, parser: argparse.ArgumentParser) -> None:
    parser.add_argument("repo", nargs="?", default=".", help="the repository (default: .)")


def run(name: str, args: argparse.Namespace) -> int:
    from agent.conversation import saved_sessions as sessions
    from agent.settings.config import AgentConfig

    repo = Path(args.repo).expanduser()
    if not repo.is_dir():
        print(f"devagent sessions: {args.repo} is not a folder", file=sys.stderr)
        return 2
    sessions.prune_for(AgentConfig.from_env_and_args(repo=repo))
    found = sessions.listing(repo)
    if not found:
        print(f"No saved sessions for {repo.resolve()}.", file=sys.stderr)
        return 0
    for line in sessions.table(found):
        print(sessions.printable(line))
    return 0
