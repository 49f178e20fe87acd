"""One devagent editor in a process of its own, for the tests of two sessions at once.

`python -m tests.tools.editing_process REPO TAG COUNT BARRIER OUT [FILE]`: once
BARRIER/go exists (it says it is ready by making BARRIER/ready-TAG), views FILE (app.py
unless given) and inserts the line `TAG-i` at its top, COUNT times, as a model in auto mode
would; OUT gets, as JSON, each insert's line and whether the editor said it was done.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from agent.tools.base import ToolContext
from agent.tools.text_editor import TextEditorTool


def main(repo: str, tag: str, count: str, barrier: str, out: str, file: str = "app.py") -> None:
    editor = TextEditorTool("auto")
    ctx = ToolContext(repo=Path(repo))
    Path(barrier, f"ready-{tag}").touch()
    deadline = time.monotonic() + 60
    while not Path(barrier, "go").exists() and time.monotonic() < deadline:
        time.sleep(0.001)
    said = []
    for i in range(int(count)):
        editor.run({"command": "view", "path": file}, ctx)
        line = f"# {tag}-{i}"
        result = editor.run({"command": "insert", "path": file, "insert_line": 0, "insert_text": line}, ctx)
        said.append({"line": line, "done": not result.is_error, "text": result.text})
    Path(out).write_text(json.dumps(said))


if __name__ == "__main__":
    main(*sys.argv[1:])
