"""Times the search tool on a generated repository of 10,000 files against rg alone.

    uv run python benchmarks/search.py [--files N] [--rounds N]

The floor is the same ripgrep binary run the plainest way (`rg PATTERN` in the folder,
output thrown away); the figure is a whole call of devagent's search tool, which adds the
JSON stream, the reading and masking of the files it shows and the text. Two patterns:
one definition (one match) and one that matches in every file (a capped result). Targets:
the figure at most 5x the floor, and under a second.
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

from agent.tools import ripgrep  # noqa: E402
from agent.tools.base import ToolContext  # noqa: E402
from agent.tools.search import SearchTool  # noqa: E402
from benchmarks.common import Row, print_rows  # noqa: E402

TARGET_RATIO = 5.0
TARGET_MS = 1000.0
PATTERNS = {"one definition": r"def needle_7777\b", "every file (capped)": r"^def needle_"}


def generate(root: Path, files: int) -> Path:
    """`files` Python files in folders of 100, each defining needle_<n>, under git."""
    root.mkdir(parents=True)
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    (root / ".gitignore").write_text("build/\n")
    for folder in range(max(1, files // 100)):
        here = root / "pkg" / f"mod{folder:03}"
        here.mkdir(parents=True)
        for i in range(min(100, files)):
            n = folder * 100 + i
            (here / f"file{i:03}.py").write_text(
                f'"""Module {n}."""\n\nimport os\n\n\ndef needle_{n}(value):\n    return value + {n}\n' + "# filler line\n" * 20
            )
    return root


def best(times: list[float]) -> float:
    return min(times) * 1000


def measure(files: int, rounds: int) -> list[Row]:
    rg = ripgrep.rg_binary()
    assert rg is not None, "the ripgrep package is not installed"
    tool = SearchTool()
    rows = []
    with tempfile.TemporaryDirectory() as base:
        repo = generate(Path(base) / "repo", files)
        ctx = ToolContext(repo)
        for label, pattern in PATTERNS.items():
            floor: list[float] = []
            figure: list[float] = []
            for _ in range(rounds):
                started = time.perf_counter()
                subprocess.run([rg, pattern], cwd=repo, stdout=subprocess.DEVNULL, check=False)
                floor.append(time.perf_counter() - started)
                started = time.perf_counter()
                result = tool.run({"pattern": pattern}, ctx)
                figure.append(time.perf_counter() - started)
                assert not result.is_error, result.text
            print(f"{label}: rg alone {best(floor):.1f} ms (median {statistics.median(floor) * 1000:.1f}), "
                  f"search tool {best(figure):.1f} ms (median {statistics.median(figure) * 1000:.1f}), "
                  f"ratio {best(figure) / best(floor):.2f}; {result.summary}")
            rows.append(Row(f"search, {files:,} files, {label}", best(figure), best(floor), TARGET_RATIO,
                            floor_is="rg alone, same pattern"))
            rows.append(Row(f"search, {files:,} files, {label}, absolute", best(figure), None, TARGET_MS, of="figure"))
    return rows


def run() -> list[Row]:
    return measure(files=10_000, rounds=7)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args(argv)
    print_rows(measure(args.files, args.rounds))
    return 0


if __name__ == "__main__":
    sys.exit(main())
