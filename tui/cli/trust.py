"""`devagent trust [REPO]`: let build and test run a repository's code, or take that back.

`devagent trust REPO` trusts it (as answering yes in the app does), `--revoke` forgets the
answer so the next run asks again, and `devagent trust` alone only says where the folder
it is run in stands: trusting the current folder is never the accident of a bare command.
`--list` shows every remembered answer.
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
    try:
        if args.revoke:
            had = store.decision(repo)
            store.remember(repo, None)
            print(f"Forgot the answer for {repo}: the next run asks again before running its code."
                  if had is not None else f"{repo} had no remembered answer; the next run asks before running its code.")
            return 0
        if args.status or args.repo is None:
            print(_status(repo))
            return 0
        store.remember(repo, True)
    except OSError as error:
        print(f"devagent trust: could not write {store.path}: {error.strerror or error}", file=sys.stderr)
        return 1
    print(f"Trusted {repo}: build and test may run its code from now on (`devagent trust --revoke {repo}` takes it back).")
    return 0
