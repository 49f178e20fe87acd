"""Runs read_file on hostile paths and prints one JSON line per attempt.

Run as its own process so the test can put it under `unshare -m` with the whole filesystem
read-only except the sandbox. argv: repository, then the paths to try.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from agent.tools.base import ToolContext
from agent.tools.files import ReadFileTool


def main(argv: list[str]) -> int:
    repo = Path(argv[0])
    tool = ReadFileTool()
    for path in json.loads(sys.stdin.read()):
        result = tool.run({"path": path}, ToolContext(repo))
        print(json.dumps({"path": path, "is_error": result.is_error, "text": result.text}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
