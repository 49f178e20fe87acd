"""An outside memory write until its row is drawn, against a bare `watchfiles.awatch`
printing the file's name into the same kind of terminal.

    uv run python benchmarks/memory_write.py [--writes 10] [--settle 2]

Both run in one tmux server on a private socket, each in a window of its own whose output
tmux records (`pipe-pane`), started the same way (benchmarks/first_paint.py's Tmux). The
floor is the plainest program that shows a change: `awatch` with its default settings, in
its own process, printing each changed file's name (the same with the pane's shorter step
is measured beside it, to read the stages against). The figure is the `devagent` app on a
world under a temporary folder, its voice loaded and settled. A write is atomic, as the
store and editors make one (a temporary file renamed over); the clock starts at the rename
and stops when the name has come out of the program into tmux. Writes alternate between
the two. Target: the app's median at most 2x the floor's.

The app notes when each write reached each stage (tui/widgets/memory/watch.py's trace:
watchfiles yielded, the folder listed, the event loop reached, the rows set, the screen
refreshed), on the clock every process shares, and the stages' medians are printed.
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.common import Row, median, print_rows  # noqa: E402
from benchmarks.first_paint import Tmux  # noqa: E402
from benchmarks.tui_latency import FIRST_PAINT, launched_world  # noqa: E402
from tests.double.server import reply, text  # noqa: E402
from tui.widgets.memory.watch import STEP_MS  # noqa: E402

LIMIT = 2.0
STAGES = ("watchfiles yielded", "folder listed", "on the event loop", "rows set", "screen refreshed")
BARE = """
import asyncio, sys
from pathlib import Path
from watchfiles import awatch

async def main():
    print("watching", flush=True)
    step = {"step": int(sys.argv[2])} if len(sys.argv) > 2 else {}
    async for changes in awatch(sys.argv[1], **step):
        for _, path in changes:
            print(Path(path).name, flush=True)

asyncio.run(main())
"""


class Window:
    """A program in a tmux window, started when told; `seen` reads what it wrote."""

    def __init__(self, tmux: Tmux, name: str, argv: list[str], folder: Path) -> None:
        self.out = folder / f"{name}.out"
        go = folder / f"{name}.go"
        os.mkfifo(go)
        self.out.write_bytes(b"")
        tmux.run("new-window", "-d", "-t", "bench", "-n", name, "sh", "-c",
                 f"read _ < {shlex.quote(str(go))}; exec {shlex.join(argv)}")
        tmux.run("pipe-pane", "-o", "-t", f"bench:{name}", f"cat >> {shlex.quote(str(self.out))}")
        with open(go, "w") as pipe:
            pipe.write("\n")
        self.read = open(self.out, "rb")  # noqa: SIM115 - read from as the test goes
        self.data = b""

    def mark(self) -> int:
        self.data += self.read.read()
        return len(self.data)

    def seen(self, needle: bytes, since: int = 0, timeout: float = 30.0) -> float:
        """time.monotonic() when `needle` had come out after offset `since`."""
        deadline = time.monotonic() + timeout
        while needle not in self.data[since:]:
            chunk = self.read.read()
            if chunk:
                self.data += chunk
                continue
            if time.monotonic() > deadline:
                raise TimeoutError(f"{needle!r} never appeared; the window said {self.data[-300:]!r}")
            time.sleep(0.0005)
        return time.monotonic()


def atomic_write(folder: Path, name: str, body: str) -> float:
    """Write as the store and editors do (a temporary file renamed over); the rename's time."""
    temp = folder / f".{name}.tmp"
    temp.write_text(body)
    moment = time.monotonic()
    os.replace(temp, folder / name)
    return moment


def stages_after(trace: Path, start: float) -> dict[str, float]:
    """Milliseconds from `start` to the first time each stage was noted after it."""
    found: dict[str, float] = {}
    for line in trace.read_text().splitlines() if trace.exists() else []:
        stage, _, moment = line.rpartition(" ")
        if float(moment) >= start and stage not in found:
            found[stage] = (float(moment) - start) * 1000
    return found


def measure(writes: int, settle: float) -> list[Row]:
    script = {"replies": [], "rules": [], "default": reply(text("ok"))}
    with launched_world(script) as (world, env, argv, tmp):
        trace = tmp / "memory-trace"
        env = {k: v for k, v in env.items() if k not in ("TMUX", "TMUX_PANE")}
        env["DEVAGENT_MEMORY_TRACE"] = str(trace)
        bare_folder, stepped_folder = tmp / "bare-watch", tmp / "stepped-watch"
        bare_folder.mkdir()
        stepped_folder.mkdir()
        tmux = Tmux(tmp, env)
        try:
            bare = Window(tmux, "bare", [sys.executable, "-c", BARE, str(bare_folder)], tmp)
            # beside it, for reading the stages: the same with the pane's step
            stepped = Window(tmux, "stepped", [sys.executable, "-c", BARE, str(stepped_folder), str(STEP_MS)], tmp)
            app = Window(tmux, "app", argv, tmp)
            app.seen(FIRST_PAINT, timeout=60)
            # steady state: the SDK import and the voice start-up are done before anything is timed
            deadline = time.monotonic() + 120
            while not any(word in app.data for word in (b"voice: ready", b"voice: off")):
                if time.monotonic() > deadline:
                    raise TimeoutError("the voice never finished loading")
                app.mark()
                time.sleep(0.1)
            bare.seen(b"watching")
            stepped.seen(b"watching")
            time.sleep(settle)
            store_dir = Path(world.store().directory)
            body = "---\nname: {name}\ndescription: benchmark\ntype: reference\n---\n\nx\n"
            # one write each that is not timed: the watchers are up, and the first row is laid out
            for window, folder in ((bare, bare_folder), (stepped, stepped_folder), (app, store_dir)):
                since = window.mark()
                atomic_write(folder, "reference_warm.md", body.format(name="warmψ"))
                window.seen(b"warm", since)
            time.sleep(0.5)
            floors, stepped_floors, figures, stages = [], [], [], []
            for i in range(writes):
                file = f"reference_bench{i}.md"
                since = bare.mark()
                start = atomic_write(bare_folder, file, body.format(name=f"bench{i}ψ"))
                floors.append((bare.seen(file.encode(), since) - start) * 1000)
                time.sleep(0.3)
                since = stepped.mark()
                start = atomic_write(stepped_folder, file, body.format(name=f"bench{i}ψ"))
                stepped_floors.append((stepped.seen(file.encode(), since) - start) * 1000)
                time.sleep(0.3)
                since = app.mark()
                start = atomic_write(store_dir, file, body.format(name=f"bench{i}ψ"))
                figures.append((app.seen(f"bench{i}ψ".encode(), since) - start) * 1000)
                stages.append(stages_after(trace, start))
                time.sleep(0.3)
        finally:
            tmux.close()

    figure, floor = median(figures), median(floors)
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}")
    print(f"floor  (awatch printing, defaults) median {floor:.1f} ms  (runs: {', '.join(f'{v:.0f}' for v in floors)})")
    print(f"awatch printing, the pane's {STEP_MS} ms step: median {median(stepped_floors):.1f} ms"
          f"  (runs: {', '.join(f'{v:.0f}' for v in stepped_floors)})")
    print(f"figure (devagent's memory pane)    median {figure:.1f} ms  (runs: {', '.join(f'{v:.0f}' for v in figures)})")
    print("from the rename, the app's stages (median ms):")
    for stage in STAGES:
        values = [s[stage] for s in stages if stage in s]
        print(f"  {stage:<20} {median(values):6.1f}" if values else f"  {stage:<20}   (not noted)")
    print(f"  {'in the terminal':<20} {figure:6.1f}")
    print(f"ratio  {figure / floor:.2f}x  (target <= {LIMIT:g}x)")
    return [Row("outside memory write shown (median)", figure, floor, LIMIT, floor_is="awatch printing, in tmux")]


def run() -> list[Row]:
    return measure(writes=10, settle=2.0)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--writes", type=int, default=10)
    parser.add_argument("--settle", type=float, default=2.0, help="seconds after the voice has loaded before timing")
    args = parser.parse_args(argv)
    print_rows(measure(args.writes, args.settle))
    return 0


if __name__ == "__main__":
    sys.exit(main())
