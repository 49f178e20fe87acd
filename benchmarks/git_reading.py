"""Times git_status and git_diff (read by memory.git's reader process) on a generated repository.

    uv run python benchmarks/git_reading.py [--files N] [--rounds N]

Two floors, measured in the same run on a repository of N files with 20 changed:
- the git program doing the same reads the plainest way (`git status --porcelain=v2` then
  `git diff --numstat` for git_status, `git diff` for git_diff), which is what the tools ran
  before and would still be the fastest way, were git safe to run on a repository;
- starting the reader alone (`python -P -c "import pygit2"`), the fixed cost of reading in a
  process of its own.
Targets: each tool at most 2x the reader's start (the reading itself costs less than
starting), and under 1.5 s whole.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from agent.tools.base import ToolContext  # noqa: E402
from agent.tools.git import GitStatusTool  # noqa: E402
from agent.tools.git_diff import GitDiffTool  # noqa: E402
from benchmarks.common import GIT_ENV, Row, commit_all, module_repository, print_rows  # noqa: E402

TARGET_RATIO = 2.0
TARGET_MS = 1500.0


def generate(root: Path, files: int) -> Path:
    module_repository(root, files, "# filler\n" * 30)
    commit_all(root)
    for n in range(0, files, max(1, files // 20)):
        path = root / "pkg" / f"mod{n // 100:03}" / f"file{n % 100:03}.py"
        path.write_text(path.read_text().replace(f"x + {n}", f"x - {n}"))
    return root


def timed(call) -> float:
    started = time.perf_counter()
    call()
    return (time.perf_counter() - started) * 1000


def measure(files: int, rounds: int) -> list[Row]:
    rows: list[Row] = []
    with tempfile.TemporaryDirectory() as base:
        repo = generate(Path(base) / "repo", files)
        ctx = ToolContext(repo)

        def git(*args: str) -> None:
            subprocess.run(["git", *args], cwd=repo, env=GIT_ENV, stdout=subprocess.DEVNULL, check=True)

        def start_reader() -> None:
            subprocess.run([sys.executable, "-P", "-c", "import pygit2"], cwd="/", check=True)

        cases = {
            "git_status": (lambda: (git("status", "--porcelain=v2", "-z"), git("diff", "--numstat", "-z")),
                           lambda: GitStatusTool().run({}, ctx)),
            "git_diff": (lambda: git("diff"), lambda: GitDiffTool().run({}, ctx)),
        }
        for name, (plain, tool) in cases.items():
            floor, start, figure = [], [], []
            for _ in range(rounds):  # interleaved, so a busy moment of the machine falls on all three
                floor.append(timed(plain))
                start.append(timed(start_reader))
                figure.append(timed(tool))
            result = tool()
            assert not result.is_error, result.text
            print(f"{name}, {files:,} files, 20 changed: git alone {min(floor):.1f} ms, reader start "
                  f"{min(start):.1f} ms, the tool {min(figure):.1f} ms (median {statistics.median(figure):.1f}); "
                  f"{result.summary}")
            rows.append(Row(f"{name}, {files:,} files", min(figure), min(start), TARGET_RATIO,
                            floor_is="starting the reader (python + pygit2)"))
            rows.append(Row(f"{name}, {files:,} files, against git alone", min(figure), min(floor), float("inf"),
                            floor_is="the git program, the same reads", note="no target: git is what cannot be run"))
            rows.append(Row(f"{name}, {files:,} files, absolute", min(figure), None, TARGET_MS, of="figure"))
    return rows


def run() -> list[Row]:
    return measure(files=5_000, rounds=5)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=5_000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)
    print_rows(measure(args.files, args.rounds))
    return 0


if __name__ == "__main__":
    sys.exit(main())
