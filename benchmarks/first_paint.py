"""Launch to first paint in a real terminal: the `devagent` binary against a bare Textual app.

The floor is benchmarks/_bare_app.py: the same three panes, a multi-line TextArea prompt
and a footer, from Textual's own widgets and without the app's stylesheet (loading it
would put its cost in the floor too). Both start the same way, in one tmux server on a
private socket: each in a new window whose shell waits on a pipe, so that the window and
the recording of its output (`pipe-pane`) are ready before the program starts; the clock
starts when the pipe lets the program go (it `exec`s at once) and stops when the prompt's
placeholder has come out of it into tmux. Both run from compiled bytecode in a cache of
the run's own, after one launch each that is not timed (as an installed app starts).
Launches alternate between the two, so load drifts hit both. Target: at most 1.1x.

    uv run python benchmarks/first_paint.py [--launches 7]
"""

from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.common import Row, median, print_rows  # noqa: E402

COLUMNS, ROWS = 160, 48
# the prompt's placeholder; its first letter sits under the cursor, styled apart from the rest
FIRST_PAINT = b"sk about this repository"
LIMIT = 1.1


class Tmux:
    """One tmux server on a private socket, nothing of the user's touched."""

    def __init__(self, folder: Path, env: dict[str, str]) -> None:
        self.folder = folder
        self.socket = folder / "tmux.sock"
        self.env = env
        self.run("-f", os.devnull, "new-session", "-d", "-s", "bench", "-x", str(COLUMNS), "-y", str(ROWS))

    def run(self, *args: str) -> str:
        result = subprocess.run(["tmux", "-S", str(self.socket), *args], capture_output=True, text=True,
                                env=self.env, timeout=20)
        if result.returncode != 0:
            raise RuntimeError(f"tmux {args[0]} failed: {result.stderr.strip()}")
        return result.stdout

    def launch(self, argv: list[str], number: int, timeout: float = 60.0) -> float:
        """Seconds from the program's start to the first paint's bytes in its window."""
        go = self.folder / f"go-{number}"
        out = self.folder / f"out-{number}"
        os.mkfifo(go)
        out.write_bytes(b"")
        command = f"read _ < {shlex.quote(str(go))}; exec {shlex.join(argv)}"
        self.run("new-window", "-d", "-t", "bench", "-n", f"w{number}", "sh", "-c", command)
        target = f"bench:w{number}"
        self.run("pipe-pane", "-o", "-t", target, f"cat >> {shlex.quote(str(out))}")
        try:
            with open(go, "w") as pipe:
                started = time.perf_counter()
                pipe.write("\n")
            deadline = started + timeout
            with open(out, "rb") as seen:
                data = b""
                while FIRST_PAINT not in data:
                    chunk = seen.read()
                    if chunk:
                        data += chunk
                        continue
                    if time.perf_counter() > deadline:
                        raise TimeoutError(f"{FIRST_PAINT!r} never appeared; the window said {data[-300:]!r}")
                    time.sleep(0.001)
                return time.perf_counter() - started
        finally:
            self.run("kill-window", "-t", target)

    def close(self) -> None:
        try:
            self.run("kill-server")
        except (RuntimeError, subprocess.SubprocessError):
            pass


def first_paints(argv: list[str], bare_argv: list[str], env: dict[str, str], launches: int,
                 folder: Path) -> tuple[list[float], list[float]]:
    tmux = Tmux(folder, env)
    number = 0
    paints: list[float] = []
    floors: list[float] = []
    try:
        for command in (bare_argv, argv):  # fills the bytecode cache; not timed
            number += 1
            tmux.launch(command, number)
        for _ in range(launches):
            for command, into in ((bare_argv, floors), (argv, paints)):
                number += 1
                into.append(tmux.launch(command, number))
                time.sleep(0.3)  # the last one's exit settles before the next starts
    finally:
        tmux.close()
    return paints, floors


def measure(launches: int) -> list[Row]:
    from tests.tui.scenario import build_world

    with tempfile.TemporaryDirectory(prefix="devagent-paint-") as tmp:
        folder = Path(tmp)
        world = build_world(folder / "world")
        env = {k: v for k, v in os.environ.items()
               if k not in ("COLUMNS", "LINES", "TMUX", "TMUX_PANE", "DEVAGENT_MODEL", "DEVAGENT_EFFORT",
                            "DEVAGENT_MEMORY")}
        env.update(world.env)
        env.update({"TERM": "xterm-256color", "HOME": str(folder / "home"),
                    # a key that the first frame does not use: no request is made
                    "ANTHROPIC_API_KEY": "sk-ant-bench", "ANTHROPIC_BASE_URL": "http://127.0.0.1:9"})
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(folder / "pycache")
        binary = Path(sys.executable).with_name("devagent")
        argv = [str(binary), str(world.repo)]
        bare_argv = [sys.executable, str(ROOT / "benchmarks" / "_bare_app.py")]
        paints, floors = first_paints(argv, bare_argv, env, launches, folder)

    def runs(values: list[float]) -> str:
        return ", ".join(f"{v * 1000:.0f}" for v in values)

    figure, floor = median(paints) * 1000, median(floors) * 1000
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}")
    print(f"floor  (bare Textual app, no stylesheet) median {floor:.0f} ms  (runs: {runs(floors)})")
    print(f"figure (devagent)                         median {figure:.0f} ms  (runs: {runs(paints)})")
    print(f"ratio  {figure / floor:.2f}x  (target <= {LIMIT:g}x)")
    return [Row("first paint in tmux", figure, floor, LIMIT, floor_is="bare Textual app, no stylesheet")]


def run() -> list[Row]:
    return measure(launches=7)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--launches", type=int, default=7)
    args = parser.parse_args(argv)
    print_rows(measure(args.launches))
    return 0


if __name__ == "__main__":
    sys.exit(main())
