"""Times one memory-tool session on our store and on the SDK's local implementation.

    uv run python benchmarks/memory_store.py [--rounds N] [--dir PATH]

Both run the same command sequence in fresh folders on the same file system. Ours
includes what the SDK leaves out: the cross-process lock, the directory fsync, the caps
and the secret filter. Prints the median time per command and ours / SDK (target: at
most 2x). Importing the SDK is not timed.

Rows: the worst per-command ratio and the whole session, each against the SDK (the floor).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import Row, print_rows  # noqa: E402
from memory.store import MemoryStore  # noqa: E402

NOTE = """---
name: feedback-cs1591
description: CS1591 is noise; nullable warnings are real
type: feedback
---

Ignore CS1591 (missing XML comment) in build summaries.

**Why:** the developer said it is noise; nullable warnings (CS8602, CS8618) are real.

**How to apply:** leave CS1591 out when reading a build aloud; always mention nullable warnings.
See [[project-core-matters]].
"""


def session() -> list[dict]:
    """A morning's worth of memory commands, every one of which succeeds on both."""
    commands: list[dict] = [{"command": "view", "path": "/memories"}]
    for i in range(5):
        commands.append({"command": "create", "path": f"/memories/note_{i}.md", "file_text": NOTE.replace("cs1591", f"cs1591-{i}")})
    commands.append({"command": "create", "path": "/memories/MEMORY.md", "file_text": "".join(
        f"- [Note {i}](note_{i}.md) — CS1591 is noise\n" for i in range(5))})
    for i in range(5):
        commands.append({"command": "view", "path": f"/memories/note_{i}.md"})
        commands.append({"command": "view", "path": f"/memories/note_{i}.md", "view_range": [2, 4]})
        commands.append({"command": "str_replace", "path": f"/memories/note_{i}.md",
                         "old_str": "always mention", "new_str": "always read out"})
        commands.append({"command": "insert", "path": f"/memories/note_{i}.md", "insert_line": 5,
                         "insert_text": "Confirmed again on Monday."})
    commands.append({"command": "view", "path": "/memories"})
    commands.append({"command": "rename", "old_path": "/memories/note_4.md", "new_path": "/memories/archive/note_4.md"})
    commands.append({"command": "delete", "path": "/memories/note_3.md"})
    commands.append({"command": "delete", "path": "/memories/archive"})
    commands.append({"command": "view", "path": "/memories"})
    return commands


def key(command: dict) -> str:
    name = command["command"]
    if name == "view":
        if "view_range" in command:
            return "view (range)"
        return "view (folder)" if not command["path"].endswith(".md") else "view (file)"
    return name


def run_ours(folder: Path, commands: list[dict], times: dict[str, list[float]]) -> None:
    store = MemoryStore(folder / "memories")
    for command in commands:
        started = time.perf_counter()
        text, is_error = store.run(command)
        times.setdefault(key(command), []).append(time.perf_counter() - started)
        assert not is_error, (command, text)


def run_sdk(folder: Path, commands: list[dict], times: dict[str, list[float]], tool_class) -> None:
    tool = tool_class(base_path=str(folder))
    for command in commands:
        started = time.perf_counter()
        tool.call(command)
        times.setdefault(key(command), []).append(time.perf_counter() - started)


def run() -> list[Row]:
    return measure(rounds=40, directory=None)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--dir", default=None, help="where the folders go (default: the system temp dir)")
    args = parser.parse_args(argv)
    print_rows(measure(args.rounds, args.dir))
    return 0


def measure(rounds: int, directory: str | None) -> list[Row]:
    from anthropic.lib.tools._beta_builtin_memory_tool import BetaLocalFilesystemMemoryTool

    commands = session()
    ours: dict[str, list[float]] = {}
    sdk: dict[str, list[float]] = {}
    ours_total: list[float] = []
    sdk_total: list[float] = []
    with tempfile.TemporaryDirectory(dir=directory) as base:
        for round_number in range(rounds):
            # Alternate who goes first so neither always meets a warm page cache.
            order = [("ours", ours, ours_total), ("sdk", sdk, sdk_total)]
            if round_number % 2:
                order.reverse()
            for name, times, totals in order:
                folder = Path(base) / f"{name}-{round_number}"
                started = time.perf_counter()
                if name == "ours":
                    run_ours(folder, commands, times)
                else:
                    run_sdk(folder, commands, times, BetaLocalFilesystemMemoryTool)
                totals.append(time.perf_counter() - started)

    print(f"memory store benchmark: {len(commands)} commands x {rounds} rounds, on {base_fs(directory)}")
    print(f"{'command':<16}{'count':>6}{'ours ms':>10}{'SDK ms':>10}{'ratio':>8}")
    rows = []
    for name in ours:
        mine = statistics.median(ours[name]) * 1000
        theirs = statistics.median(sdk[name]) * 1000
        ratio = mine / theirs
        rows.append(Row(f"memory store: {name} (worst command)", mine, theirs, 2.0, unit="ms",
                        floor_is="SDK's tool"))
        print(f"{name:<16}{len(ours[name]) // rounds:>6}{mine:>10.3f}{theirs:>10.3f}{ratio:>8.2f}")
    session_ratio = statistics.median(ours_total) / statistics.median(sdk_total)
    print(
        f"{'whole session':<16}{len(commands):>6}{statistics.median(ours_total) * 1000:>10.2f}"
        f"{statistics.median(sdk_total) * 1000:>10.2f}{session_ratio:>8.2f}"
    )
    worst = max(rows, key=lambda row: row.ratio)
    print(f"worst per-command ratio {worst.ratio:.2f} (target <= 2.00): {'met' if worst.passed else 'NOT met'}")
    whole = Row("memory store: whole session", statistics.median(ours_total) * 1000,
                statistics.median(sdk_total) * 1000, 2.0, unit="ms", floor_is="SDK's tool")
    return [worst, whole]


def base_fs(directory: str | None) -> str:
    path = directory or tempfile.gettempdir()
    try:
        with open("/proc/mounts") as mounts:
            best = ("", "unknown")
            for line in mounts:
                fields = line.split()
                if path.startswith(fields[1]) and len(fields[1]) >= len(best[0]):
                    best = (fields[1], fields[2])
            return f"{path} ({best[1]})"
    except OSError:
        return path


if __name__ == "__main__":
    sys.exit(main())
