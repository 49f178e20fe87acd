"""Whether the first question is slower than later ones by more than what is still loading.

    uv run python benchmarks/first_question.py [--runs 3] [--later 10]

The real `devagent` binary in a pseudo-terminal, against the Claude double: a question is
typed the moment the first frame is out, and in another launch the same question ten
seconds later. Each figure is the time from Enter to the reply's first word on screen.

The first question has to wait for the SDK import and the session to start, which take
seconds on a small machine: that is what it needs. So the floor is the later question's
time plus the time a fresh interpreter takes to import the SDK, build the same session and
its client (measured in the same run). Target: the first question at most that (ratio
<= 1), so nothing but the loading it needs stands between it and its answer.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.common import Row, machine, median, print_rows  # noqa: E402
from benchmarks.tui_latency import FIRST_PAINT, Terminal, launched_world  # noqa: E402
from tests.double.server import reply, text  # noqa: E402

QUESTION = "which island is it?"
ANSWER = "Zanzibar"

LOAD = """
import json, sys, time
from pathlib import Path
started = time.perf_counter()
from agent.settings.config import AgentConfig
from agent.loop.session import Session
from tui.turns.driver import warm_client
repo = Path(sys.argv[1])
session = Session(repo, AgentConfig.from_env_and_args(repo=repo))
warm_client(session)
print(json.dumps(time.perf_counter() - started))
"""


def session_load(env: dict[str, str], repo: Path) -> float:
    """Seconds a fresh interpreter takes to import the SDK and start the session."""
    result = subprocess.run([sys.executable, "-c", LOAD, str(repo)], cwd=ROOT, env=env,
                            capture_output=True, text=True, timeout=300)
    if result.returncode != 0:
        raise RuntimeError(f"loading the session failed: {result.stderr.strip()[-400:]}")
    return json.loads(result.stdout.strip().splitlines()[-1])


def ask(argv: list[str], env: dict[str, str], wait: float) -> float:
    """Launch, wait `wait` seconds after the first frame, ask; seconds to the first word."""
    term = Terminal(argv, env)
    try:
        term.wait_for(FIRST_PAINT, timeout=60)
        time.sleep(wait)
        for char in QUESTION:
            term.write(char.encode())
            time.sleep(0.003)
        since = term.mark()
        sent = term.write(b"\r")
        return term.wait_for(ANSWER.encode(), since, timeout=120) - sent
    finally:
        term.close()


def measure(runs: int, later: float) -> list[Row]:
    print(f"machine: {machine()}")
    script = {"replies": [], "rules": [], "default": reply(text(f"{ANSWER} is the island."))}
    firsts, laters, loads = [], [], []
    with launched_world(script) as (world, env, argv, _):
        # fill the bytecode cache, not timed: the session's modules, then the app's own
        # (else the first timed launch compiles the app, its voice stack and Textual)
        session_load(env, world.repo)
        ask(argv, env, 0.0)
        for _ in range(runs):
            loads.append(session_load(env, world.repo))
            firsts.append(ask(argv, env, 0.0))
            laters.append(ask(argv, env, later))
    ms = lambda values: ", ".join(f"{v * 1000:.0f}" for v in values)  # noqa: E731
    print(f"first word, asked at first paint: {ms(firsts)} ms; asked {later:.0f} s later: {ms(laters)} ms;"
          f" session load alone: {ms(loads)} ms")
    floor = median(laters) + median(loads)
    return [Row("first question at first paint: to first word", median(firsts) * 1000, floor * 1000, 1.0,
                floor_is=f"a question {later:.0f} s later + the session's load")]


def run() -> list[Row]:
    return measure(runs=3, later=10.0)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--later", type=float, default=10.0, help="seconds after the first frame")
    args = parser.parse_args()
    print_rows(measure(args.runs, args.later))
    return 0


if __name__ == "__main__":
    sys.exit(main())
