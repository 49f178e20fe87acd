"""What evidence costs: a memory write that fingerprints its citations, and the check a
session start and the pane run, on the evaluation's .NET-shaped fixture repository.

    uv run python benchmarks/memory_evidence.py [--rounds N] [--memories N]

Prints, for each, the floor (the same work without evidence), the figure and the ratio.
Targets: a write at most 3x the plain write (git runs once per write that cites something
new); checking every memory's evidence under 150 ms for 20 memories, so the first request
and the pane's marks do not wait on it.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agent.eval import sources  # noqa: E402
from agent.eval.fixture import build_fixture  # noqa: E402
from memory.store import MemoryStore  # noqa: E402


def note(i: int) -> str:
    return (
        f"---\nname: note {i}\ntype: project\ndescription: call sites of the rename, part {i}\n---\n"
        f"The call site {sources.ORCHESTRATOR}:{100 + i % 20} reads the diff; see also "
        f"{sources.CORE}/Review/ChangedFile.cs:{1 + i % 5} for the member (note {i}).\n"
    )


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def time_writes(store: MemoryStore, count: int, rounds: int) -> list[float]:
    samples = []
    for r in range(rounds):
        for i in range(count):
            began = time.perf_counter()
            text, refused = store.run({"command": "create", "path": f"/memories/n{i}.md", "file_text": note(i + r * count)})
            samples.append(time.perf_counter() - began)
            assert not refused, text
    return samples


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--memories", type=int, default=20)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="devagent-bench-evidence-") as tmp:
        root = Path(tmp)
        repo = build_fixture(root / "fixture").repo
        plain = MemoryStore(root / "plain", max_total_chars=10**7)
        cited = MemoryStore(root / "cited", repo=repo, max_total_chars=10**7)
        floor = median_ms(time_writes(plain, args.memories, args.rounds))
        figure = median_ms(time_writes(cited, args.memories, args.rounds))
        print(f"{'':<34}{'floor ms':>10}{'figure ms':>11}{'ratio':>8}")
        print(f"{'write (create), no evidence / evidence':<34}{floor:>10.2f}{figure:>11.2f}{figure / floor:>8.2f}")

        listing, checking = [], []
        for _ in range(args.rounds):
            began = time.perf_counter()
            cited.memories()
            listing.append(time.perf_counter() - began)
            began = time.perf_counter()
            checks = cited.evidence()
            checking.append(time.perf_counter() - began)
        assert len(checks) == args.memories and all(checks.values())
        floor, figure = median_ms(listing), median_ms(checking)
        label = f"check {args.memories} memories (listing / evidence)"
        print(f"{label:<34}{floor:>10.2f}{figure:>11.2f}{figure / floor:>8.2f}")
        met = figure <= 150
        print(f"evidence check {figure:.0f} ms for {args.memories} memories (target <= 150 ms): {'met' if met else 'NOT met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
