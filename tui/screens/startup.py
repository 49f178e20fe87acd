"""What start-up says and reads: the first line, the branch, a one-line error.

The app starts the pieces that take seconds (the SDK, the voice) once its first frame is
out, each in a thread worker of its own (tui.app).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from memory.safe_git import run_git

# how long the loading worker waits for a question asked at launch to get its first answer
# before it imports Markdown and starts the voice anyway
FIRST_ANSWER_WAIT_SECONDS = 20


def read_branch(repo: Path) -> str | None:
    """The checked-out branch, or None outside a repository (or when git is slow or absent)."""
    try:
        result = run_git(repo, "rev-parse", "--abbrev-ref", "HEAD", timeout=5)
    except (OSError, subprocess.SubprocessError):
        return None
    branch = result.stdout.decode("utf-8", "replace").strip()
    return branch if result.returncode == 0 and branch else None


def one_line_error(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


def welcome(talk_key: str | None) -> str:
    """The first line; `talk_key` None when voice is off (no talk key to offer)."""
    if talk_key is None:
        return "Type a question and press Enter. F1 shows every key."
    return f"Type a question and press Enter, or press {talk_key} to talk. F1 shows every key."


def welcome_without_key(problem: str) -> str:
    return (
        f"{problem} Until then you can still read, edit and delete what devagent remembers "
        "about this repository in the memory pane; the key is only needed to talk to Claude. "
        "Press F1 for the keys."
    )
