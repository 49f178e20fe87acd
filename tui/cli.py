"""The `devagent` command line.

`devagent [PATH]` opens the app; the subcommands are the same capabilities without the
full screen, for scripts and tests. Each subcommand lives in its own module under
`tui.commands` and is imported only when it runs, so `devagent --help` stays fast and a
command never pays for another's imports (the SDK alone takes seconds to import).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys

from agent.config import EFFORTS, MEMORY_MODES, MEMORY_WRITES

# name -> (module, one-line help)
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "ask": ("tui.commands.ask", "run one session of typed turns without the app"),
    "memory": ("tui.commands.memory", "show a repository's memory folder"),
    "say": ("tui.commands.voice", "speak text into a WAV file with the local voice"),
    "transcribe": ("tui.commands.voice", "print what the local model hears in a WAV file"),
    "eval": ("tui.commands.eval", "measure how well each memory mode remembers"),
}



def add_agent_options(parser: argparse.ArgumentParser, *, memory: bool = True) -> None:
    """Options shared by everything that starts a session.

    `memory=False` leaves out --memory for commands that choose modes themselves (eval).
    """
    if memory:
        parser.add_argument(
            "--memory",
            choices=MEMORY_MODES,
            default=os.environ.get("DEVAGENT_MEMORY", "preloaded"),
            help="how a session starts from earlier ones (default: preloaded)",
        )
        parser.add_argument(
            "--memory-writes",
            choices=MEMORY_WRITES,
            default=None,
            help="what the agent's memory writes do: apply (auto), wait for you (review) "
            "or nothing, memory is read-only (off) (default: $DEVAGENT_MEMORY_WRITES, config.toml or auto)",
        )
    parser.add_argument(
        "--model",
        default=None,
        help="Claude model id (default: $DEVAGENT_MODEL or claude-haiku-5-5)",
    )
    parser.add_argument(
        "--effort",
        choices=EFFORTS,
        default=None,
        help="reasoning effort (default: $DEVAGENT_EFFORT or low)",
    )


def app_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="devagent",
        description="A voice dev agent for the terminal that remembers you.",
        epilog="subcommands:\n"
        + "\n".join(f"  {name:<11} {text}" for name, (_, text) in SUBCOMMANDS.items())
        + "\n\nRun `devagent SUBCOMMAND --help` for a subcommand's options.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("path", nargs="?", default=".", help="the repository (default: .)")
    parser.add_argument(
        "--no-voice",
        action="store_true",
        help="typed input only: load no speech models and open no audio device",
    )
    add_agent_options(parser)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in SUBCOMMANDS:
        name = argv[0]
        module_name, text = SUBCOMMANDS[name]
        module = importlib.import_module(module_name)
        parser = argparse.ArgumentParser(prog=f"devagent {name}", description=text)
        module.add_arguments(name, parser)
        args = parser.parse_args(argv[1:])
        return int(module.run(name, args) or 0)

    args = app_parser().parse_args(argv)
    if args.no_voice:
        # the app's own switch, read where it decides whether to start the voice stack
        os.environ["DEVAGENT_VOICE"] = "off"
    from tui.app import run_app

    return int(run_app(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
