"""What the app costs when nothing happens, and whether a long session's memory stays flat.

    uv run python benchmarks/idle.py [--idle 60] [--turns 200] [--pace 1.0]

- Idle CPU: the real `devagent` binary in a pseudo-terminal, its voice on (a private
  PulseAudio null sink is its microphone and speaker), left alone for a minute once it
  has settled: CPU time of the process and all its threads over that minute, in % of
  one core. Target: under 1 %. Printed beside it, as a floor, a bare Textual app with
  the same layout (benchmarks/_bare_app.py) idling over the same minute.
- RSS after 200 scripted turns (typed into the same app, answered by the Claude double,
  each reply spoken) against RSS after 10 turns. Target: at most 1.3x. The same again
  for the agent's session alone, without the app (as `devagent ask` runs it).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.common import Row, machine, print_rows  # noqa: E402
from benchmarks.tui_latency import COLUMNS, FIRST_PAINT, ROWS, Terminal  # noqa: E402
from tests.double.server import reply, text  # noqa: E402
from tests.tui.scenario import DoubleProcess, build_world  # noqa: E402
from tests.voice.pulse import PulseServer  # noqa: E402

TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """User and system time of a process and all its threads."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS for {pid}")


def question(n: int) -> str:
    return f"question {n:03d}."


def answer(n: int) -> str:
    return f"Okay, {n}."


def script(turns: int) -> dict:
    rules = [{"contains": question(n), "reply": reply(text(answer(n)))} for n in range(1, turns + 1)]
    return {"replies": [], "rules": rules, "default": reply(text("Done."))}


def app_env(tmp: Path, world, double, pulse: PulseServer) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("COLUMNS", "LINES", "DEVAGENT_MODEL", "DEVAGENT_EFFORT", "DEVAGENT_MEMORY",
                        "DEVAGENT_VOICE")}
    env.update(world.env)
    env.update(double.env)
    env.update({"TERM": "xterm-256color", "HOME": str(tmp / "home"),
                "PULSE_SERVER": pulse.env["PULSE_SERVER"],
                "PULSE_COOKIE": str(Path(pulse.env["HOME"]) / ".config" / "pulse" / "cookie")})
    return env


def settle(term: Terminal, quiet: float = 3.0, limit: float = 120.0) -> str:
    """Wait for the voice to say whether it is on, then for start-up to end: the SDK
    import and the session build go on in the background for seconds after that (much
    longer on a busy machine), so wait until the app has used under 5 % of a core
    for `quiet` seconds in a row."""
    deadline = time.monotonic() + limit
    try:
        term.wait_for(b"voice: ready", timeout=limit)
        voice = "on"
    except TimeoutError:
        voice = "OFF (the status line never said 'voice: ready')"
    while time.monotonic() < deadline:
        before = cpu_seconds(term.proc.pid)
        time.sleep(quiet)
        if (cpu_seconds(term.proc.pid) - before) / quiet < 0.05:
            break
    return voice


def idle_cpu(term: Terminal, bare: Terminal, seconds: float) -> tuple[float, float]:
    """% of one core each process used over the same `seconds`."""
    start = time.monotonic(), cpu_seconds(term.proc.pid), cpu_seconds(bare.proc.pid)
    time.sleep(seconds)
    end = time.monotonic(), cpu_seconds(term.proc.pid), cpu_seconds(bare.proc.pid)
    wall = end[0] - start[0]
    return (end[1] - start[1]) / wall * 100, (end[2] - start[2]) / wall * 100


class Asked:
    """The questions the double has received, read from its record as it grows.

    The screen cannot tell: Textual writes only the cells that changed, so a reply that
    scrolls into a line that said nearly the same never shows whole in the output."""

    def __init__(self, double) -> None:
        self.record = double.record
        self.offset = 0
        self.last_messages: list[str] = []  # each request's last message, as JSON

    def wait_for(self, text: str, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while True:
            if time.monotonic() > deadline:
                raise TimeoutError(f"the double never received {text!r}")
            if self.record.exists():
                with open(self.record, "rb") as file:
                    file.seek(self.offset)
                    data = file.read()
                complete = data.rfind(b"\n") + 1
                self.offset += complete
                for line in data[:complete].splitlines():
                    request = json.loads(line)
                    messages = request.get("body", {}).get("messages") or []
                    if messages:
                        self.last_messages.append(json.dumps(messages[-1]))
            if any(text in message for message in self.last_messages[-5:]):
                return
            time.sleep(0.02)


def type_turn(term: Terminal, asked: Asked, n: int) -> None:
    for char in question(n):
        term.write(char.encode())
        time.sleep(0.003)
    term.write(b"\r")
    asked.wait_for(question(n))


def app_turns(term: Terminal, asked: Asked, turns: int, pace: float) -> dict[int, float]:
    """RSS after turn 10 and every 25th; each reply is left `pace` seconds to stream and
    be spoken before the next question."""
    rss = {}
    for n in range(1, turns + 1):
        type_turn(term, asked, n)
        time.sleep(pace)
        if n == 10 or n % 25 == 0 or n == turns:
            rss[n] = rss_mb(term.proc.pid)
    return rss


def last_history(double) -> list[dict]:
    with open(double.record, "rb") as file:
        last = file.read().rstrip().rsplit(b"\n", 1)[-1]
    return json.loads(last)["body"]["messages"]


SESSION_TURNS = """
import json, os, sys
from pathlib import Path
from agent.settings.config import AgentConfig
from agent.loop.session import Session

def rss():
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024

repo, turns = Path(sys.argv[1]), int(sys.argv[2])
session = Session(repo, AgentConfig.from_env_and_args(repo=repo))
marks = {}
for n in range(1, turns + 1):
    session.send(f"question {n:03d}.", lambda event: None)
    if n == 10 or n % 25 == 0 or n == turns:
        marks[n] = rss()
session.close()
print(json.dumps(marks))
"""


def session_turns(env: dict[str, str], repo: Path, turns: int) -> dict[int, float]:
    result = subprocess.run([sys.executable, "-c", SESSION_TURNS, str(repo), str(turns)],
                            cwd=ROOT, env=env, capture_output=True, text=True, timeout=1800)
    if result.returncode != 0:
        raise RuntimeError(f"the session run failed: {result.stderr.strip()[-400:]}")
    return {int(k): v for k, v in json.loads(result.stdout.strip().splitlines()[-1]).items()}


def measure(idle_seconds: float, turns: int, pace: float) -> list[Row]:
    print(f"machine: {machine()}; terminal {COLUMNS}x{ROWS}")
    binary = Path(sys.executable).with_name("devagent")
    rows = []
    with tempfile.TemporaryDirectory(prefix="devagent-bench-") as folder:
        tmp = Path(folder)
        world = build_world(tmp / "world")
        world.apply()  # this process too: nothing may land in the real data folder
        pulse = PulseServer.start()
        try:
            with DoubleProcess(script(turns), tmp / "double") as double:
                env = app_env(tmp, world, double, pulse)
                term = Terminal([str(binary), str(world.repo)], env)
                bare = Terminal([sys.executable, str(ROOT / "benchmarks" / "_bare_app.py")], env)
                try:
                    term.wait_for(FIRST_PAINT)
                    bare.wait_for(FIRST_PAINT)
                    voice = settle(term)
                    app_cpu, bare_cpu = idle_cpu(term, bare, idle_seconds)
                    print(f"idle for {idle_seconds:.0f} s (voice {voice}): the app {app_cpu:.2f} % of a core,"
                          f" the bare Textual app {bare_cpu:.2f} %")
                    bare.close()
                    rss = app_turns(term, Asked(double), turns, pace)
                finally:
                    term.close()
                    bare.close()
                answered = [message for message in last_history(double) if message["role"] == "assistant"]
                if len(answered) < turns - 1:
                    raise RuntimeError(f"the app's history holds {len(answered)} replies after {turns} turns")
                print(f"app RSS by turn: {', '.join(f'{n}: {mb:.1f} MB' for n, mb in rss.items())}")
                alone = session_turns(env, world.repo, turns)
                print(f"session alone, RSS by turn: {', '.join(f'{n}: {mb:.1f} MB' for n, mb in alone.items())}")
        finally:
            pulse.stop()
    rows.append(Row(f"idle CPU over {idle_seconds:.0f} s, voice on", app_cpu, bare_cpu, 1.0, of="figure", unit="%",
                    floor_is="bare Textual app"))
    rows.append(Row(f"app RSS after {turns} turns", rss[turns], rss[10], 1.3, unit="MB",
                    floor_is="after 10 turns"))
    rows.append(Row(f"session RSS after {turns} turns (devagent ask)", alone[turns], alone[10], 1.3,
                    unit="MB", floor_is="after 10 turns"))
    return rows


def run() -> list[Row]:
    return measure(idle_seconds=60.0, turns=200, pace=1.0)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--idle", type=float, default=60.0, help="seconds left idle")
    parser.add_argument("--turns", type=int, default=200)
    parser.add_argument("--pace", type=float, default=1.0, help="seconds between a reply and the next turn")
    args = parser.parse_args()
    print_rows(measure(args.idle, args.turns, args.pace))
    return 0


if __name__ == "__main__":
    sys.exit(main())
