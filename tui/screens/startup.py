"""What start-up says and reads: the first line, the branch, a one-line error.

The app starts the pieces that take seconds (the SDK, the voice) once its first frame is
out, each in a thread worker of its own (tui.app).
"""

from __future__ import annotations

from pathlib import Path

# how long the loading worker waits for a question asked at launch to get its first answer
# before it imports Markdown and starts the voice anyway
FIRST_ANSWER_WAIT_SECONDS = 20


def read_branch(repo: Path) -> str | None:
    """The checked-out branch ("HEAD" when detached), or None outside a repository (or when
    the read is slow or fails)."""
    from memory.git.reading import head  # after the first frame, in a worker

    return head(repo, timeout=5)["branch"]


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
