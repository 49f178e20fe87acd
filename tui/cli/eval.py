"""`devagent eval`: the Friday/Monday evaluation of the memory modes, on each scenario.

Plain terminal output: progress on stderr, the table and the paths of the outputs on stdout.
"""

from __future__ import annotations

import argparse
import sys
import time
from datetime import datetime
from pathlib import Path
from typing import TextIO

from agent.settings.choices import MEMORY_MODES, MemoryMode


def default_out(now: datetime) -> Path:
    """Where a run's report goes unless --out says: the state folder (XDG_STATE_HOME), so a
    run started in a checkout leaves nothing in it to commit by mistake."""
    from platformdirs import user_state_dir

    return Path(user_state_dir("devagent")) / "eval" / f"devagent-eval-{now.strftime('%Y%m%d-%H%M%S')}"


def add_arguments(name: str, parser: argparse.ArgumentParser) -> None:
    from tui.cli.main import add_agent_options

    parser.add_argument(
        "--scenario", choices=("csharp", "python", "both"), default="both",
        help="the C# rename (csharp), the Python release checklist (python) or both, side by side (default)",
    )
    parser.add_argument("--runs", type=_positive, default=3, help="Mondays per mode (default: 3)")
    parser.add_argument(
        "--modes",
        type=_modes,
        default=MEMORY_MODES,
        help="comma-separated memory modes to measure (default: all of " + ",".join(MEMORY_MODES) + ")",
    )
    parser.add_argument(
        "--stale", action="store_true", help="someone fixes the call site between Friday and Monday (the C# scenario)"
    )
    parser.add_argument(
        "--cited", action="store_true",
        help="Friday's memory cites the call site (fingerprinted), and the rename is finished and "
        "committed before Monday; the report quotes the evidence each Monday was told (the C# scenario)",
    )
    parser.add_argument(
        "--out", type=Path, default=None,
        help="folder for report.md, results.json and chart.png (default: devagent-eval-TIMESTAMP in the user's "
        "state folder, never inside the repository you run it in)",
    )
    parser.add_argument(
        "--keep", action="store_true", help="keep the fixture repositories and data folders (printed at the end)"
    )
    # --modes chooses every mode measured, so the shared --memory has no place here.
    add_agent_options(parser, memory=False)


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def _modes(text: str) -> tuple[MemoryMode, ...]:
    chosen = tuple(m.strip() for m in text.split(",") if m.strip())
    known: dict[str, MemoryMode] = {m: m for m in MEMORY_MODES}
    unknown = [m for m in chosen if m not in known]
    if unknown or not chosen:
        raise argparse.ArgumentTypeError(
            f"unknown mode(s) {', '.join(unknown) or '(none given)'}; choose from {','.join(MEMORY_MODES)}"
        )
    return tuple(dict.fromkeys(known[m] for m in chosen))


class TerminalProgress:
    """A one-line bar on stderr: runs done, runs left, what is running now."""

    def __init__(self, stream: TextIO | None = None, width: int = 28) -> None:
        self.stream = stream or sys.stderr
        self.width = width
        self.started = time.monotonic()
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()

    def __call__(self, done: int, total: int, label: str) -> None:
        filled = round(self.width * done / total) if total else self.width
        bar = "#" * filled + "-" * (self.width - filled)
        elapsed = time.monotonic() - self.started
        line = f"[{bar}] {done}/{total} runs done, {total - done} left, {elapsed:5.0f} s  {label}"
        if self.tty:
            self.stream.write("\r\x1b[2K" + line + ("\n" if done == total else ""))
        else:
            self.stream.write(line + "\n")
        self.stream.flush()


def run(name: str, args: argparse.Namespace) -> int:
    from agent.settings.config import AgentConfig, api_key_problem

    problem = api_key_problem()
    if problem:
        print(problem, file=sys.stderr)
        return 2
    args.memory = None  # the modes under test come from --modes, never from --memory
    config = AgentConfig.from_env_and_args(args)
    out = args.out or default_out(datetime.now())

    from agent.eval import side_by_side
    from agent.eval.harness import EvalOptions, run_eval, run_scenarios
    from agent.eval.report import markdown_table, write_report

    workdir = None
    if args.keep:
        workdir = out.resolve() / "work"
        if workdir.exists() and any(workdir.iterdir()):
            print(f"{workdir} already holds an earlier run's fixtures; choose another --out.", file=sys.stderr)
            return 2
    options = EvalOptions(modes=args.modes, runs=args.runs, stale=args.stale, cited=args.cited, config=config, workdir=workdir)
    names = ("csharp", "python") if args.scenario == "both" else (args.scenario,)
    print(
        f"Measuring {', '.join(args.modes)} on {' and '.join(names)}: one Friday and {args.runs} Monday(s) each"
        f"{' (cited variant)' if args.cited else ' (stale variant)' if args.stale else ''}, "
        f"model {config.model}, effort {config.effort}.",
        file=sys.stderr,
    )
    try:
        if names == ("csharp",):  # the first scenario alone keeps its own report
            results = run_eval(options, TerminalProgress())
        else:
            results = run_scenarios(options, names, TerminalProgress())
    except KeyboardInterrupt:
        print("\nStopped; nothing was written.", file=sys.stderr)
        return 130
    if names == ("csharp",):
        paths = write_report(results, out)
        print(markdown_table(results))
    else:
        paths = side_by_side.write_report(results, out)
        print(side_by_side.markdown(results))
    print(f"Report: {paths['markdown']}")
    print(f"Every run: {paths['json']}")
    print(f"Chart: {paths['chart']}")
    if workdir is not None:
        print(f"Fixtures and data folders: {workdir}")
    return 0
