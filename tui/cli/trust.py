"""`devagent trust [REPO]`: let build and test run a repository's code, or take that back.

`devagent trust REPO` trusts it (as answering yes in the app does), `--revoke` forgets the
answer so the next run asks again, and `devagent trust` alone only says where the folder
it is run in stands: trusting the current folder is never the accident of a bare command.
`--list` shows every remembered answer. `--status` also lists the commands answered "always"
in the repository (they run without asking), and `--forget-command TEXT` takes one back.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def add_arguments(name: str, parser: argparse.ArgumentParser) -> None:
    parser.add_argument("repo", nargs="?", default=None, help="the repository to trust (without it: where . stands)")
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--revoke", action="store_true", help="forget the answer: the next run asks again")
    group.add_argument("--status", action="store_true", help="only say whether the repository is trusted")
    group.add_argument("--list", action="store_true", help="every repository with a remembered answer")
    group.add_argument("--forget-command", metavar="TEXT", default=None,
                       help="take back an \"always\" answer: the command asks again (its exact text, as --status lists it)")


def _status(repo: Path) -> str:
    from agent.workspace_trust import TrustStore

    store = TrustStore()
    found = store.decision(repo)
    if found is None:
        earlier = store.earlier(repo)
        again = f" {earlier.why_asked_again()}" if earlier is not None else ""
        return (f"{repo} is not trusted yet: build and test will ask before running its code "
                f"(`devagent ask` runs none of it).{again} `devagent trust {repo}` trusts it.")
    if found.trusted:
        return f"{repo} is trusted since {found.decided}: build and test run its code. `devagent trust --revoke {repo}` takes that back."
    return (f"{repo} is not trusted (answered no on {found.decided}): its code does not run. "
            f"`devagent trust {repo}` trusts it.")


def _commands(repo: Path) -> str:
    from agent.command_consent import AllowedCommands

    allowed = AllowedCommands().listing(repo)
    if not allowed:
        return "No command runs there without asking (none was answered \"always\")."
    lines = ["Commands that run there without asking (answered \"always\"; `devagent trust --forget-command TEXT` takes one back):"]
    for entry in allowed:
        network = " (with the network)" if entry.network else ""
        lines.append(f"  {entry.decided}  {entry.command}{network}")
    return "\n".join(lines)


def _forget_command(repo: Path, text: str) -> int:
    from agent.command_consent import AllowedCommands

    try:
        forgot = AllowedCommands().forget(repo, text)
    except OSError as error:
        print(f"devagent trust: could not write the allowed commands: {error.strerror or error}", file=sys.stderr)
        return 1
    if not forgot:
        print(f"devagent trust: no \"always\" answer for exactly `{text}` in {repo} (`devagent trust --status` lists them)",
              file=sys.stderr)
        return 1
    print(f"Forgot \"always\" for `{text}` in {repo}: it asks again before running.")
    return 0


def run(name: str, args: argparse.Namespace) -> int:
    from agent.workspace_trust import TrustStore

    store = TrustStore()
    if args.list:
        shown = store.listing()
        for key, decision in shown:
            print(f"{'trusted' if decision.trusted else 'not trusted':<12} {decision.decided}  {decision.path or key}")
        old = store.old_listing()
        for earlier in old:
            print(f"{'old key':<12} {earlier.decision.decided}  {earlier.git_folder} (a git folder: no longer used, "
                  "each work tree is asked again)")
        if not shown and not old:
            print("No repository has been trusted or refused yet.")
        return 0
    repo = Path(args.repo or ".").expanduser()
    if not repo.is_dir():
        print(f"devagent trust: {repo} is not a folder", file=sys.stderr)
        return 2
    repo = repo.resolve()
    if args.forget_command is not None:
        return _forget_command(repo, args.forget_command)
    try:
        if args.revoke:
            had = store.decision(repo)
            store.remember(repo, None)
            print(f"Forgot the answer for {repo}: the next run asks again before running its code."
                  if had is not None else f"{repo} had no remembered answer; the next run asks before running its code.")
            return 0
        if args.status or args.repo is None:
            print(_status(repo))
            print(_commands(repo))
            return 0
        store.remember(repo, True)
    except OSError as error:
        print(f"devagent trust: could not write {store.path}: {error.strerror or error}", file=sys.stderr)
        return 1
    print(f"Trusted {repo}: build and test may run its code from now on (`devagent trust --revoke {repo}` takes it back).")
    return 0
