"""How quickly the app answers, measured on the real `devagent` binary in a pseudo-terminal.

Prints:
- launch to first paint (the input line on screen), median of several launches;
- key-to-screen latency while a long reply streams: a key written to the terminal until
  that character comes back in the app's output, p50 and p99;
- an outside memory write (atomic, as the store and editors do it) until the memory's name
  comes back in the app's output, p50 and max.

Targets: first paint < 1 s, keys < 50 ms at p99, memory < 150 ms.
Everything runs under a temporary folder, against the Claude double in its own process.

    uv run python benchmarks/tui_latency.py [--launches 3] [--keys 60] [--writes 10] [--settle 4]

While the user types, the app holds streamed text back (up to 2 s) so keys never wait behind
the layout a growing reply causes; the key figures include that policy.
"""

from __future__ import annotations

import argparse
import fcntl
import os
import pty
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.claude_double import reply, text  # noqa: E402
from tests.tui.scenario import DoubleProcess, build_world  # noqa: E402

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


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index]


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--launches", type=int, default=3)
    parser.add_argument("--keys", type=int, default=60)
    parser.add_argument("--writes", type=int, default=10)
    parser.add_argument("--paragraphs", type=int, default=40, help="length of the streamed reply")
    parser.add_argument("--settle", type=float, default=4.0, help="seconds after the first paint before timing")
    args = parser.parse_args(argv)

    binary = Path(sys.executable).with_name("devagent")
    # a long spoken-style answer: paragraphs and a short list (code goes to the screen pane)
    long_reply = "\n\n".join(
        f"Paragraph {i}: the build log shows the same error in the review orchestrator again, "
        "and the fix is the rename we talked about on Friday. The warnings about missing XML "
        "comments are still noise, so I left them out of this summary."
        + ("\n\n- rename the call site\n- build again\n- run the tests" if i % 6 == 5 else "")
        for i in range(args.paragraphs)
    )
    script = {
        "replies": [],
        "rules": [{"contains": "long", "reply": reply(text(long_reply), chunk=8, delay=0.005)}],
        "default": reply(text("ok")),
    }
    with tempfile.TemporaryDirectory(prefix="devagent-bench-") as tmp:
        world = build_world(Path(tmp) / "world")
        world.apply()  # this process too: nothing may land in the real data folder
        with DoubleProcess(script, Path(tmp) / "double") as double:
            env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES", "DEVAGENT_MODEL", "DEVAGENT_EFFORT", "DEVAGENT_MEMORY")}
            env.update(world.env)
            env.update(double.env)
            env.update({"TERM": "xterm-256color", "HOME": str(Path(tmp) / "home")})
            argv = [str(binary), str(world.repo)]

            paints = []
            for _ in range(args.launches):
                term = Terminal(argv, env)
                try:
                    paints.append(term.wait_for(FIRST_PAINT) - term.started)
                finally:
                    term.close()

            term = Terminal(argv, env)
            try:
                term.wait_for(FIRST_PAINT)
                # steady state: the SDK import and the voice start-up (seconds of CPU in the
                # background after the first frame) are done before anything is timed
                time.sleep(args.settle)
                store_dir = Path(world.store().directory)

                # memory: atomic outside writes while nothing else happens
                writes = []
                for i in range(args.writes):
                    name = f"bench{i}ψ"
                    since = term.mark()
                    body = f"---\nname: {name}\ndescription: benchmark\ntype: reference\n---\n\nx\n"
                    temp = store_dir / f".bench{i}.tmp"
                    temp.write_text(body)
                    start = time.perf_counter()
                    os.replace(temp, store_dir / f"reference_bench{i}.md")
                    writes.append(term.wait_for(name.encode(), since, timeout=10) - start)
                    time.sleep(0.2)

                # keys while a long reply streams
                since = term.mark()
                for char in "please give me a long answer":
                    term.write(char.encode())
                    time.sleep(0.005)
                term.write(b"\r")
                term.wait_for(b"Paragraph 2", since, timeout=30)
                latencies = []
                for i in range(args.keys):
                    char = KEYS[i % len(KEYS)]
                    if i and i % len(KEYS) == 0:
                        # every character is used once per round: clear the input line
                        term.write(b"\x15")  # Ctrl+U
                        time.sleep(0.1)
                    since = term.mark()
                    sent = term.write(char.encode())
                    latencies.append(term.wait_for(char.encode(), since, timeout=10) - sent)
                    time.sleep(0.03)
                still_streaming = f"Paragraph {args.paragraphs - 1}".encode() not in term.output
            finally:
                term.close()

    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}; streamed reply {len(long_reply)} chars")
    print(f"first paint        median {ms(statistics.median(paints))}  (runs: {', '.join(ms(p) for p in paints)})  target < 1000 ms")
    print(f"key to screen      p50 {ms(percentile(latencies, 50))}  p99 {ms(percentile(latencies, 99))}  max {ms(max(latencies))}"
          f"  over {len(latencies)} keys{' while streaming' if still_streaming else ' (the reply ended during the run)'}  target p99 < 50 ms")
    print(f"memory write shown p50 {ms(percentile(writes, 50))}  max {ms(max(writes))}  over {len(writes)} writes  target < 150 ms"
          f"  (each: {', '.join(f'{w * 1000:.0f}' for w in writes)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
