"""`devagent sessions [REPO]`: the saved sessions of a repository, newest first.

One line each: the id (`devagent --resume ID` and `devagent ask --resume ID` take it, or any
unambiguous part of it), the date, the turns, what it cost, and the first question.
"""

from __future__ import annotations

import argparse
import sys

from tui.cli.main import add_repo_argument, repo_folder


def add_arguments(name: str, parser: argparse.ArgumentParser) -> None:
    add_repo_argument(parser)


def run(name: str, args: argparse.Namespace) -> int:
    from agent.conversation import saved_sessions as sessions
    from agent.settings.config import AgentConfig

    repo = repo_folder("sessions", args.repo)
    if repo is None:
        return 2
    sessions.prune_for(AgentConfig.from_env_and_args(repo=repo))
    found = sessions.listing(repo)
    if not found:
        print(f"No saved sessions for {repo.resolve()}.", file=sys.stderr)
        return 0
    for line in sessions.table(found):
        print(sessions.printable(line))
    return 0
