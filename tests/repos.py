"""The git repositories the tests stand on, built one way: real git, real files.

`git_repo` makes one (the files a test needs, committed or not); `git` runs git in it with
a fixed identity and none of the developer's own config, so a commit never fails for want
of a name and no global hook or setting of the machine reaches a test's repository.
The `repo` and `make_repo` fixtures of tests/conftest.py build theirs with it.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping
from pathlib import Path

GIT_IDENTITY = {
    "GIT_AUTHOR_NAME": "Test Author",
    "GIT_AUTHOR_EMAIL": "author@example.com",
    "GIT_COMMITTER_NAME": "Test Author",
    "GIT_COMMITTER_EMAIL": "author@example.com",
}
# what git reads besides the repository's own config: nothing
GIT_ENV = {**GIT_IDENTITY, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}


def git(repo: Path, *args: str) -> str:
    """Runs git in `repo` and gives its output; a failure raises with git's own words."""
    done = subprocess.run(["git", *args], cwd=repo, env={**os.environ, **GIT_ENV}, capture_output=True, text=True)
    if done.returncode:
        raise subprocess.CalledProcessError(done.returncode, done.args, done.stdout, done.stderr)
    return done.stdout


def write_files(root: Path, files: Mapping[str, str | bytes]) -> None:
    """Writes each file (a relative path: its text, or bytes as they are) under root."""
    for name, body in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(body, bytes):
            path.write_bytes(body)
        else:
            path.write_text(body, encoding="utf-8")


def git_repo(path: Path, files: Mapping[str, str | bytes] | None = None, *, commit: bool = False, branch: str = "main") -> Path:
    """A git repository at `path` (made with its parents) holding `files`; with `commit`,
    they are its first commit (an empty one when there are none), else they stay untracked."""
    path.mkdir(parents=True, exist_ok=True)
    write_files(path, files or {})
    git(path, "init", "-q", "-b", branch)
    if commit:
        git(path, "add", "-A")
        git(path, "commit", "-q", "--allow-empty", "-m", "first")
    return path
