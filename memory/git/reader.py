"""The reader process: `python -P -m memory.git.reader`, one JSON request on stdin, one JSON
answer on stdout ({"ok": ...} or {"error": kind, "message": ...}).

Started by reading.py with the folder `/` as its working directory and -P, so that nothing
in the repository's folder can stand in for one of devagent's modules.
"""

from __future__ import annotations

import base64
import json
import sys
from pathlib import Path
from typing import Any

from memory.git.opening import ReadError, open_repository


def _head(request: dict[str, Any]) -> dict[str, Any]:
    opened = open_repository(Path(request["folder"]), work_tree=False)
    repo = opened.repo
    if repo.head_is_unborn:
        return {"commit": None, "branch": None}
    return {"commit": str(repo.head.target), "branch": "HEAD" if repo.head_is_detached else repo.head.shorthand}


def _status(request: dict[str, Any]) -> dict[str, Any]:
    from memory.git.worktree import status

    return status(open_repository(Path(request["folder"])))


def _diff(request: dict[str, Any]) -> dict[str, Any]:
    from memory.git import worktree

    opened = open_repository(Path(request["folder"]))
    within = opened.prefix + request.get("path", "")
    budget = [worktree.MAX_HUNK_CHARS]
    sections = []
    for section in request["sections"]:
        against, staged = section.get("against"), bool(section.get("staged"))
        commit = None
        if against is not None:
            commit = worktree.commit_of(opened, against)
            diff = worktree.staged_diff(opened, commit) if staged else worktree.against_diff(opened, commit)
        elif staged:
            diff = worktree.staged_diff(opened)
        else:
            diff = worktree.unstaged_diff(opened)
        sections.append({"commit": commit, "files": worktree.files(opened, diff, within, budget)})
    untracked = worktree.untracked(opened, within) if request.get("untracked") else []
    return {"sections": sections, "untracked": untracked}


def _renames(request: dict[str, Any]) -> dict[str, Any]:
    from memory.git.worktree import renames

    return {"renames": renames(open_repository(Path(request["folder"])), request["commit"])}


def _listed(request: dict[str, Any]) -> dict[str, Any]:
    from memory.git.worktree import listed

    return {"paths": listed(open_repository(Path(request["folder"])), set(request["names"]))}


def _snapshot(request: dict[str, Any]) -> dict[str, Any]:
    from memory.git import snapshots

    store = Path(request["store"])
    if request["what"] == "tree":
        return {"tree": snapshots.snapshot(open_repository(Path(request["folder"])), store)}
    if request["what"] == "changed":
        return {"changed": snapshots.changed(store, request["before"], request["after"])}
    data = snapshots.content(store, request["tree"], request["path"])
    return {"content": None if data is None else base64.b64encode(data).decode()}


def _log(request: dict[str, Any]) -> dict[str, Any]:
    from memory.git.history import log

    return log(open_repository(Path(request["folder"]), work_tree=False), request)


OPERATIONS = {"head": _head, "status": _status, "diff": _diff, "renames": _renames, "listed": _listed, "log": _log, "snapshot": _snapshot}


def answer(request: dict[str, Any]) -> dict[str, Any]:
    try:
        return {"ok": OPERATIONS[request["op"]](request)}
    except ReadError as exc:
        return {"error": exc.kind, "message": exc.message}
    except Exception as exc:  # libgit2's own errors: a sentence for the app, never a traceback
        return {"error": "failed", "message": f"{type(exc).__name__}: {exc}"}


def main() -> None:
    request = json.loads(sys.stdin.buffer.read())
    sys.stdout.write(json.dumps(answer(request)))


if __name__ == "__main__":
    main()
