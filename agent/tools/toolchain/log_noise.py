"""Trims a tool's output of what carries nothing: padding, progress redraws, blank runs.

npm and the JavaScript runners pad code frames and tables to the terminal's width and
redraw progress lines with carriage returns; sent as they are, most of a log's characters
are spaces. Only whitespace and progress frames go: every visible character of a line that
is kept stays where it was.
"""

from __future__ import annotations

import re

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)")
# npm's spinner frames, and bars such as "[#####.....] / reify:..." that npm draws while it works.
PROGRESS = re.compile(r"^\s*(?:[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏⠂⠄⡀⢀⠠⠐⠈]\s*|\[[#.\s]{5,}\]\s.*|Determining test suites to run\.*)$")
MAX_BLANK_RUN = 1


def clean(text: str) -> str:
    out: list[str] = []
    blank = 0
    for raw in text.split("\n"):
        # A line redrawn with carriage returns ends up as its last frame on a terminal.
        line = ANSI.sub("", raw.rsplit("\r", 1)[-1] if "\r" in raw.rstrip("\r") else raw).rstrip()
        if PROGRESS.match(line):
            continue
        if not line:
            blank += 1
            if blank > MAX_BLANK_RUN:
                continue
        else:
            blank = 0
        out.append(line)
    return "\n".join(out)
