"""Times reading the repository's instruction files, which a session does before every turn.

    uv run python benchmarks/instructions_read.py [--files N] [--rounds N]

On a generated repository of N files with an AGENTS.md in 20 folders and a CLAUDE.md that
imports three files, the floor is git listing the repository the plainest way
(`git ls-files --cached --others --exclude-standard`); the figure is `read_instructions`
as a turn runs it (the folders checked for a change since the last listing, each file read
confined and masked, the imports followed). Targets: at most 3x the floor, and under
300 ms whole; the first reading of a session (the listing through git's reader process) is
printed beside them.
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

from agent.instructions.files import read_instructions  # noqa: E402
from benchmarks.common import GIT_ENV, Row, commit_all, module_repository, print_rows  # noqa: E402

TARGET_RATIO = 3.0
TARGET_MS = 300.0


def generate(root: Path, files: int) -> Path:
    module_repository(root, files)
    for n in range(20):
        (root / "pkg" / f"mod{n:03}" / "AGENTS.md").write_text(f"Module {n}: keep its functions pure.\n" * 20)
    (root / "docs").mkdir()
    for name in ("style", "testing", "release"):
        (root / "docs" / f"{name}.md").write_text(f"# {name}\n" + "Some rule of the project.\n" * 40)
    (root / "AGENTS.md").write_text("Run the tests with `make test`.\n" * 10)
    (root / "CLAUDE.md").write_text("See @docs/style.md, @docs/testing.md and @docs/release.md.\n")
    commit_all(root)
    return root


def timed(call) -> float:
    started = time.perf_counter()
    call()
    return (time.perf_counter() - started) * 1000


def measure(files: int, rounds: int) -> list[Row]:
    with tempfile.TemporaryDirectory() as base:
        repo = generate(Path(base) / "repo", files)
        first = timed(lambda: read_instructions(repo))
        found = read_instructions(repo)
        assert len(found.files) == 25, [f.path for f in found.files]  # 21 AGENTS.md, CLAUDE.md and its 3 imports
        print(f"instructions: the first reading, listing through git's reader, {first:.0f} ms")

        def listing() -> None:
            subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=repo,
                           env=GIT_ENV, stdout=subprocess.DEVNULL, check=True)

        floor, figure = [], []
        for _ in range(rounds):  # interleaved, so a busy moment of the machine falls on both
            floor.append(timed(listing))
            figure.append(timed(lambda: read_instructions(repo)))
    low, high = statistics.median(floor), statistics.median(figure)
    print(f"instructions: floor (git ls-files) {low:.1f} ms, read_instructions {high:.1f} ms, ratio {high / low:.2f}")
    return [
        Row("reading the instruction files, per turn", high, low, TARGET_RATIO, floor_is="git ls-files of the repository"),
        Row("reading the instruction files, whole", high, None, TARGET_MS, of="figure"),
    ]


def run() -> list[Row]:
    return measure(5000, 15)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=5000)
    parser.add_argument("--rounds", type=int, default=15)
    options = parser.parse_args()
    print_rows(measure(options.files, options.rounds))
