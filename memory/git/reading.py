"""The app's side of reading a repository: one reader process per read (memory/git/__init__.py).

The reader is devagent's own code run by the same interpreter, never a program the
repository names. Each read has a timeout and can be cancelled: the reader's process group
is killed, so a repository that makes libgit2 block (a FIFO where a config include or a
tracked file should be) costs that read, not the app.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import memory

# The folder holding the memory/ package: the reader imports the same code the app runs.
_CODE_ROOT = str(Path(memory.__file__).resolve().parent.parent)
_POLL = 0.05
_THROUGH_DESCRIPTOR = re.compile(r"^/proc/self/fd/(\d+)$")


class GitUnreadable(Exception):
    """A read that did not happen: `kind` is one of not-a-repository, not-yours, bare,
    no-folder, revision, timed-out, cancelled, failed; `str()` says it in a sentence."""

    def __init__(self, kind: str, folder: Path, detail: str = "") -> None:
        self.kind = kind
        self.folder = folder
        self.detail = detail
        super().__init__(_sentence(kind, folder, detail))


def _sentence(kind: str, folder: Path, detail: str) -> str:
    if kind == "not-a-repository":
        return f"{folder} is not a git repository."
    if kind == "bare":
        return f"{folder} is a bare git repository, with no working tree to compare."
    if kind == "no-folder":
        return f"The folder {folder} does not exist."
    if kind == "not-yours":
        return (
            f"devagent does not read {folder}: it is owned by another user. If you trust it, run "
            f"`git config --global --add safe.directory {folder}`."
        )
    if kind == "revision":
        return f"There is no commit, branch or tag {detail!r} in this repository."
    if kind == "timed-out":
        return f"Reading the repository took longer than {detail} seconds and was stopped."
    if kind == "cancelled":
        return "Reading the repository was cancelled."
    return f"Reading the repository failed: {detail.splitlines()[0] if detail else 'the reader stopped'}"


def _environment() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = _CODE_ROOT + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env.pop("PYTHONSTARTUP", None)
    return env


def _descriptor(folder: Path) -> int | None:
    """The descriptor a session's root path (/proc/self/fd/N) names, which the reader must
    hold under the same number for the path to name the same folder there."""
    match = _THROUGH_DESCRIPTOR.match(str(folder))
    return int(match.group(1)) if match else None


def ask(folder: Path, request: dict[str, Any], *, timeout: float, cancelled: Callable[[], bool] | None = None,
        shown: Path | None = None) -> Any:
    """The reader's answer to `request` about `folder` (a path, or a session's root
    descriptor as /proc/self/fd/N); GitUnreadable, naming `shown` (else `folder`), when
    there is none."""
    folder = Path(folder)
    named = Path(shown) if shown is not None else folder
    descriptor = _descriptor(folder)
    where = str(folder) if descriptor is not None else os.fsdecode(os.path.abspath(folder))
    payload = json.dumps({**request, "folder": where}).encode()
    try:
        proc = subprocess.Popen(
            [sys.executable, "-P", "-m", "memory.git.reader"], cwd="/", env=_environment(),
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
            pass_fds=() if descriptor is None else (descriptor,),
        )
    except OSError as exc:
        raise GitUnreadable("failed", named, str(exc)) from exc
    folder = named
    deadline = timeout
    waited = 0.0
    data: bytes | None = payload
    while True:
        try:
            out, err = proc.communicate(data, timeout=_POLL)
            break
        except subprocess.TimeoutExpired:
            data = None
            waited += _POLL
            if cancelled is not None and cancelled():
                _kill(proc)
                raise GitUnreadable("cancelled", folder) from None
            if waited >= deadline:
                _kill(proc)
                raise GitUnreadable("timed-out", folder, f"{timeout:.0f}") from None
    try:
        answer = json.loads(out)
    except ValueError:
        raise GitUnreadable("failed", folder, err.decode("utf-8", "replace").strip()[-300:]) from None
    if "error" in answer:
        raise GitUnreadable(answer["error"], folder, answer.get("message", ""))
    return answer["ok"]


def _kill(proc: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except OSError:
        pass
    proc.communicate()


def head(folder: Path, timeout: float = 10) -> dict[str, str | None]:
    """{"commit": sha, "branch": name ("HEAD" when detached)}; both None outside a
    repository, before the first commit, or when the read fails."""
    try:
        found = ask(folder, {"op": "head"}, timeout=timeout)
    except GitUnreadable:
        return {"commit": None, "branch": None}
    return {"commit": found.get("commit"), "branch": found.get("branch")}


def renames(folder: Path, commit: str, timeout: float = 20) -> dict[str, str]:
    """Old path -> new path of each rename between `commit` and the working tree; {} when
    it cannot be told."""
    try:
        found = ask(folder, {"op": "renames", "commit": commit}, timeout=timeout)
    except GitUnreadable:
        return {}
    return dict(found["renames"])


def listed(folder: Path, names: list[str], timeout: float = 10) -> list[str] | None:
    """The files called one of `names` that git knows of below `folder` (tracked, or
    untracked and not ignored), relative to it; None outside git or when it cannot tell."""
    try:
        found = ask(folder, {"op": "listed", "names": names}, timeout=timeout)
    except GitUnreadable:
        return None
    return list(found["paths"])
