"""The `devagent` command line.

`devagent [PATH]` opens the app (`run_app`: the terminal around it, the crash report, the
transcript saved after it); the subcommands are the same capabilities without the full
screen, for scripts and tests. Each subcommand lives in its own module of this package
and is imported only when it runs, so `devagent --help` stays fast and a
command never pays for another's imports (the SDK alone takes seconds to import).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from agent.settings.choices import CODE_WRITES, EFFORTS, MEMORY_MODES, MEMORY_WRITES

if TYPE_CHECKING:
    pass

# name -> (module, one-line help)
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "ask": ("tui.cli.ask", "run one session of typed turns without the app"),
    "memory": ("tui.cli.memory", "show a repository's memory folder"),
    "say": ("tui.cli.voice", "speak text into a WAV file with the local voice"),
    "transcribe": ("tui.cli.voice", "print what the local model hears in a WAV file"),
    "eval": ("tui.cli.eval", "measure how well each memory mode remembers"),
    "sessions": ("tui.cli.sessions", "list a repository's saved sessions, to resume one"),
    "undo": ("tui.cli.undo", "put back the files of the agent's last applied change"),
    "rewind": ("tui.cli.rewind", "go back to before a turn: conversation, code, memory"),
    "trust": ("tui.cli.trust", "let build and test run a repository's code (--revoke takes it back)"),
}



def add_repo_argument(parser: argparse.ArgumentParser) -> None:
    """A subcommand's optional REPO: the repository, where . stands when not given."""
    parser.add_argument("repo", nargs="?", default=".", help="the repository (default: .)")


def repo_folder(command: str, given: str) -> Path | None:
    """`given` as a folder (~ expanded); None, once stderr has said so, when it is not one."""
    repo = Path(given).expanduser()
    if repo.is_dir():
        return repo
    print(f"devagent {command}: {given} is not a folder", file=sys.stderr)
    return None


def add_agent_options(parser: argparse.ArgumentParser, *, memory: bool = True) -> None:
    """Options shared by everything that starts a session.

    `memory=False` leaves out --memory for commands that choose modes themselves (eval).
    Every default is None, meaning "not given": agent.settings.config then takes the environment,
    the config file or the built-in default, in that order.
    """
    if memory:
        parser.add_argument(
            "--memory",
            choices=MEMORY_MODES,
            default=None,
            help="how a session starts from earlier ones (default: $DEVAGENT_MEMORY, the config file, or preloaded)",
        )
        parser.add_argument(
            "--memory-writes",
            choices=MEMORY_WRITES,
            default=None,
            help="what the agent's memory writes do: apply (auto), wait for you (review) "
            "or nothing, memory is read-only (off) (default: $DEVAGENT_MEMORY_WRITES, config.toml or auto)",
        )
        parser.add_argument(
            "--code-writes",
            choices=CODE_WRITES,
            default=None,
            help="what the agent's changes to files do: wait for you to apply them (review), apply at once "
            "(auto), or the agent cannot change files (off) (default: $DEVAGENT_CODE_WRITES, config.toml or review)",
        )
    parser.add_argument(
        "--model",
        default=None,
        help="Claude model id (default: $DEVAGENT_MODEL, the config file, or claude-haiku-5-5)",
    )
    parser.add_argument(
        "--effort",
        choices=EFFORTS,
        default=None,
        help="reasoning effort (default: $DEVAGENT_EFFORT, the config file, or low)",
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
    parser.add_argument(
        "--stt-model",
        default=None,
        help='speech model: "tiny.en", "base" or a model folder (default: [voice] stt_model, '
             'else the largest that keeps up on this machine, measured at the first start)',
    )
    add_agent_options(parser)
    add_resume_option(parser)
    return parser


def add_resume_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--resume",
        nargs="?",
        const="",
        default=None,
        metavar="ID",
        help="continue the latest saved session, or the one with this id (`devagent sessions` lists them)",
    )


# the app's options that take a value, so `--model X ask` is read as an option and its value
VALUE_OPTIONS = ("--model", "--effort", "--memory", "--memory-writes")


def subcommand_first(argv: list[str]) -> list[str]:
    """`devagent --model X ask "hi"` as `devagent ask --model X "hi"`: the app's options may
    come before a subcommand. --no-voice means nothing to a subcommand and is dropped; any
    other goes after the subcommand's name, where its parser accepts it or says why not."""
    i = 0
    while i < len(argv) and argv[i].startswith("-") and argv[i] not in ("-h", "--help"):
        i += 2 if argv[i] in VALUE_OPTIONS else 1
    if i == 0 or i >= len(argv) or argv[i] not in SUBCOMMANDS:
        return argv
    options = [a for a in argv[:i] if a != "--no-voice"]
    return [argv[i], *options, *argv[i + 1 :]]


def main(argv: list[str] | None = None) -> int:
    argv = subcommand_first(list(sys.argv[1:] if argv is None else argv))
    if argv and argv[0] in SUBCOMMANDS:
        name = argv[0]
        module_name, text = SUBCOMMANDS[name]
        module = importlib.import_module(module_name)
        parser = argparse.ArgumentParser(prog=f"devagent {name}", description=text)
        module.add_arguments(name, parser)
        args = parser.parse_args(argv[1:])
        return int(module.run(name, args) or 0)

    args = app_parser().parse_args(argv)
    if args.resume:
        # `devagent --resume ../shop`: what followed was the path, not an id.
        args.resume, rest = resume_id(args.resume)
        if rest is not None and args.path == ".":
            args.path = rest
    no_voice = args.no_voice or os.environ.get("DEVAGENT_VOICE", "").lower() in ("off", "0", "no")
    return run_app(args, no_voice=no_voice)


def resume_id(value: str) -> tuple[str, str | None]:
    """(the id, "" for the latest; and what followed --resume when it was not an id)."""
    from agent.conversation.saved_sessions import resume_value

    wanted, rest = resume_value(value)
    return wanted or "", rest


def run_app(args: argparse.Namespace, *, no_voice: bool = False) -> int:
    """Open the app on `args.path`; `no_voice` loads no speech models and opens no audio device."""
    from agent.heap import collector_held
    from tui import open_app  # the package's front door: the app and its terminal

    with collector_held():  # until the first frame (DevAgentApp.on_ready)
        return open_app(args, no_voice=no_voice)
