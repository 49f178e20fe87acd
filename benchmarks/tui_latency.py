"""How quickly the app answers, measured on the real `devagent` binary in a pseudo-terminal.

Each figure has a floor measured in the same run (launch to first paint is
benchmarks/first_paint.py's, in tmux):
- key-to-screen latency while a long reply streams: a key written to the terminal until
  that character comes back in the app's output, p99; floor: the p99 of the same keys
  with nothing streaming. Target: at most 1.5x, and no key over 100 ms.
(an outside memory write until its row is drawn is benchmarks/memory_write.py's, in tmux
against a bare awatch printing into its own window).

Everything runs under a temporary folder, against the Claude double in its own process.

    uv run python benchmarks/tui_latency.py [--keys 200] [--settle 2]

While the user types, the app holds streamed text back until a pause (tui.widgets.conversation.pane)
so keys never wait behind the layout a growing reply causes, and the voice's threads run at a
lower priority than the app's; the key figures include both. Keys here come 30 ms apart with
no pause, so the reply waits for the whole run of keys.
"""

from __future__ import annotations

import argparse
import fcntl
import os
import pty
import signal
import struct
import subprocess
import sys
import tempfile
import termios
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.common import Row, percentile, print_rows  # noqa: E402
from tests.double.server import reply, text  # noqa: E402
from tests.tui.scenario import DoubleProcess, World, build_world  # noqa: E402

COLUMNS, ROWS = 160, 48
# the input's placeholder; its first letter sits under the cursor, styled apart from the rest
FIRST_PAINT = b"sk about this repository"
# characters the streamed reply never contains, so each one's echo is unambiguous
KEYS = "αβγδεζηθικλμνξοπρστυφχψωабвгдежзийклмнопрстуфхцчшщыэюя"


class Terminal:
    """The app on a pty of its own; a reader thread keeps everything it writes, with times."""

    def __init__(self, argv: list[str], env: dict[str, str]) -> None:
        self.master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLUMNS, 0, 0))
        self.started = time.perf_counter()
        self.proc = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, env=env,
                                     start_new_session=True, close_fds=True)
        os.close(slave)
        self.output = bytearray()
        self.changed = threading.Condition()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        while True:
            try:
                data = os.read(self.master, 65536)
            except OSError:
                data = b""
            with self.changed:
                if not data:
                    self.closed = True
                    self.changed.notify_all()
                    return
                self.output += data
                self.changed.notify_all()

    closed = False

    def mark(self) -> int:
        with self.changed:
            return len(self.output)

    def wait_for(self, needle: bytes, since: int = 0, timeout: float = 30.0) -> float:
        """perf_counter time at which `needle` had arrived after offset `since`."""
        deadline = time.perf_counter() + timeout
        with self.changed:
            while needle not in self.output[since:]:
                left = deadline - time.perf_counter()
                if left <= 0 or self.closed:
                    raise TimeoutError(f"{needle!r} never appeared")
                self.changed.wait(left)
            return time.perf_counter()

    def write(self, data: bytes) -> float:
        moment = time.perf_counter()
        os.write(self.master, data)
        return moment

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                os.write(self.master, b"\x11")  # Ctrl+Q
                self.proc.wait(10)
            except (OSError, subprocess.TimeoutExpired):
                os.killpg(self.proc.pid, signal.SIGTERM)
                self.proc.wait(5)
        try:
            os.close(self.master)
        except OSError:
            pass


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms"


def run() -> list[Row]:
    return measure(keys=200, paragraphs=120, settle=2.0)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keys", type=int, default=200)
    parser.add_argument("--paragraphs", type=int, default=120, help="length of the streamed reply")
    parser.add_argument("--settle", type=float, default=2.0, help="seconds after the voice has loaded before timing")
    args = parser.parse_args(argv)
    print_rows(measure(args.keys, args.paragraphs, args.settle))
    return 0


@contextmanager
def launched_world(script: dict[str, Any]) -> Iterator[tuple[World, dict[str, str], list[str], Path]]:
    """A fresh world under a temporary folder, the Claude double in its own process playing
    `script`: (the world, the app's environment, the devagent command line, the folder)."""
    with tempfile.TemporaryDirectory(prefix="devagent-bench-") as tmp:
        world = build_world(Path(tmp) / "world")
        world.apply()  # this process too: nothing may land in the real data folder
        with DoubleProcess(script, Path(tmp) / "double") as double:
            binary = Path(sys.executable).with_name("devagent")
            yield world, app_env(world.env, double.env, Path(tmp)), [str(binary), str(world.repo)], Path(tmp)


def app_env(world: dict[str, str], double: dict[str, str], tmp: Path) -> dict[str, str]:
    """The app's environment: this world's folders and double, a terminal, no settings from
    the caller's shell, and compiled bytecode in a cache of the run's own (as an installed
    app starts, even where PYTHONDONTWRITEBYTECODE is set)."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("COLUMNS", "LINES", "DEVAGENT_MODEL", "DEVAGENT_EFFORT", "DEVAGENT_MEMORY")}
    env.update(world)
    env.update(double)
    env.update({"TERM": "xterm-256color", "HOME": str(tmp / "home")})
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(tmp / "pycache")
    return env


def voice_settled(term: Terminal, timeout: float = 120.0) -> None:
    """Until the status line says the voice is ready or off (it loads after the session)."""
    deadline = time.perf_counter() + timeout
    while time.perf_counter() < deadline:
        output = bytes(term.output)
        if b"voice: ready" in output or b"voice: off" in output:
            return
        time.sleep(0.1)
    raise TimeoutError("the voice never finished loading")


def type_keys(term: Terminal, count: int) -> list[float]:
    latencies = []
    for i in range(count):
        char = KEYS[i % len(KEYS)]
        if i and i % len(KEYS) == 0:
            # every character is used once per round: clear the input line
            term.write(b"\x15")  # Ctrl+U
            time.sleep(0.1)
        since = term.mark()
        sent = term.write(char.encode())
        latencies.append(term.wait_for(char.encode(), since, timeout=10) - sent)
        time.sleep(0.03)
    term.write(b"\x15")
    time.sleep(0.1)
    return latencies


def measure(keys: int, paragraphs: int, settle: float) -> list[Row]:
    # a long spoken-style answer: paragraphs and a short list (code goes to the screen pane)
    long_reply = "\n\n".join(
        f"Paragraph {i}: the build log shows the same error in the review orchestrator again, "
        "and the fix is the rename we talked about on Friday. The warnings about missing XML "
        "comments are still noise, so I left them out of this summary."
        + ("\n\n- rename the call site\n- build again\n- run the tests" if i % 6 == 5 else "")
        for i in range(paragraphs)
    )
    script = {
        "replies": [],
        "rules": [{"contains": "long", "reply": reply(text(long_reply), chunk=8, delay=0.005)}],
        "default": reply(text("ok")),
    }
    with launched_world(script) as (_world, env, argv, _tmp):
        term = Terminal(argv, env)
        try:
            term.wait_for(FIRST_PAINT)
            # steady state: the SDK import and the voice start-up (seconds of CPU in the
            # background after the first frame, the voice after the session) are done
            # before anything is timed
            voice_settled(term)
            time.sleep(settle)

            quiet_keys = type_keys(term, keys)

            # keys while a long reply streams
            since = term.mark()
            for char in "please give me a long answer":
                term.write(char.encode())
                time.sleep(0.005)
            term.write(b"\r")
            term.wait_for(b"Paragraph 2", since, timeout=30)
            latencies = type_keys(term, keys)
            still_streaming = f"Paragraph {paragraphs - 1}".encode() not in term.output
        finally:
            term.close()

    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}; streamed reply {len(long_reply)} chars")
    print(f"key to screen      p50 {ms(percentile(latencies, 50))}  p99 {ms(percentile(latencies, 99))}  max {ms(max(latencies))}"
          f"  over {len(latencies)} keys{' while streaming' if still_streaming else ' (the reply ended during the run)'};"
          f"  nothing streaming: p50 {ms(percentile(quiet_keys, 50))}  p99 {ms(percentile(quiet_keys, 99))}  max {ms(max(quiet_keys))}")
    streaming_note = "" if still_streaming else "the reply ended before the last key"
    return [
        Row("key to screen p99, reply streaming", percentile(latencies, 99) * 1000,
            percentile(quiet_keys, 99) * 1000, 1.5, floor_is="p99, nothing streaming",
            note=streaming_note),
        Row("worst key, reply streaming", max(latencies) * 1000, None, 100.0, of="figure",
            note=streaming_note),
    ]


if __name__ == "__main__":
    sys.exit(main())
