"""`devagent ask`: one session of typed turns, without the app.

Each reply is printed as it streams; tool calls and errors go to stderr so stdout holds
the replies and, last, one JSON line of usage for scripts to parse. The model's progress
notes between tool calls (`[… checking the build first]`) and a tool input that takes a
while to arrive (`[writing src/app.py…]`) go to stderr as well, one line each. Every `ask` is a new
session of the repository, so memory modes behave as they do between app sessions.

A tool line ends with the app's mark and a word for how the run ended (`[build × failed:
2 errors, 0 warnings]`), and the JSON line counts the runs by outcome under "tools". The
exit status stays about devagent itself (1: a turn could not be answered, 2: a wrong call):
a build that fails is an answer, and a turn that fixes it may run it again and pass.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from agent.events import (
    AgentError,
    Compacted,
    Event,
    Notice,
    Progress,
    TextDelta,
    ToolFinished,
    ToolInputArriving,
    ToolStarted,
    TurnFinished,
)
from tui.format import sanitize
from tui.outcomes import OUTCOME_MARKS

if TYPE_CHECKING:
    from agent.decisions import Decisions
    from agent.loop.session import Session
    from agent.settings.config import AgentConfig


def add_arguments(name: str, parser: argparse.ArgumentParser) -> None:
    from tui.cli.main import add_agent_options

    parser.add_argument("--repo", default=".", help="the repository (default: .)")
    from tui.cli.main import add_resume_option

    add_agent_options(parser)
    add_resume_option(parser)
    parser.add_argument("--trust", action="store_true",
                        help="let build and test run the repository's code for this run (nothing is remembered)")
    parser.add_argument("--allow", action="append", default=[], metavar="COMMAND",
                        help="a command text run_command may run in this run, exactly as written (again for more)")
    parser.add_argument("turns", nargs="*", metavar="TURN", help="what you would say, one turn each")


def run(name: str, args: argparse.Namespace) -> int:
    from agent.settings.config import AgentConfig
    from tui.terminal import start_logging

    start_logging()
    repo = Path(args.repo).expanduser()
    problem = _refusal(repo, args)
    if problem:
        print(problem, file=sys.stderr)
        return 2
    config = AgentConfig.from_env_and_args(args, repo=repo)
    if config.notice:
        print(f"devagent: {config.notice}", file=sys.stderr)
    from agent.tools.editor.journal import recover

    for note in recover(repo.resolve()):  # a change set a killed devagent left half written
        print(f"devagent: {note}", file=sys.stderr)

    from agent.conversation import saved_sessions as sessions
    sessions.prune_for(config)
    from agent.instructions.files import warm

    warm(repo)  # beside the session's imports, not after them
    session = _open(repo, config, args.resume, trusted=bool(getattr(args, "trust", False)),
                    allowed=tuple(getattr(args, "allow", None) or ()))
    if isinstance(session, int):
        return session
    waiting = session.instructions.waiting_for_trust()
    if waiting:
        print(f"devagent: {waiting}", file=sys.stderr)
    printer = Printer(sys.stdout, sys.stderr, session.decisions)
    try:
        for turn in args.turns:
            session.send(turn, printer)
    except KeyboardInterrupt:
        printer.failed = True
    finally:
        session.close()
    # close() may spend a call (summary mode); the session's own total counts it.
    record = {**session.usage.to_dict(), "turns": len(args.turns), "model": session.config.model,
              "memory": session.config.memory_mode, "tools": dict(printer.tools)}
    if session.transcript is not None and session.transcript.path.exists():
        record["transcript"] = str(session.transcript.path)
    printer.out.write(json.dumps(record) + "\n")
    printer.out.flush()
    return 1 if printer.failed else 0


def _refusal(repo: Path, args: argparse.Namespace) -> str | None:
    """Why the call cannot run, before any session starts; `args` gets its turns sorted
    out of --resume on the way."""
    from agent.settings.config import api_key_problem

    if not repo.is_dir():
        return f"devagent ask: {repo} is not a folder."
    problem = api_key_problem()
    if problem:
        return problem
    if args.resume:
        # `ask --resume "first turn"`: what followed --resume was a turn, not an id.
        from agent.conversation.saved_sessions import resume_value

        args.resume, rest = resume_value(args.resume)
        args.resume = args.resume or ""
        if rest is not None:
            args.turns.insert(0, rest)
    if not args.turns:
        return "devagent ask: say at least one turn."
    return None


def _open(repo: Path, config: AgentConfig, resume: str | None, trusted: bool = False,
          allowed: tuple[str, ...] = ()) -> Session | int:
    """A new session, or the saved one `resume` names ("" the latest); else the exit status."""
    from agent.command_consent import CommandConsent
    from agent.loop.resume import open_saved
    from agent.loop.session import Session
    from agent.workspace_trust import WorkspaceTrust

    # Nobody is there to ask: the repository's code runs only when it was trusted before
    # (`devagent trust`) or with --trust for this run, and a command only when allowed before.
    trust = WorkspaceTrust(repo, for_this_run=trusted)
    commands = CommandConsent(repo, allowed=allowed)

    try:
        if resume is None:
            return Session(repo, config, trust=trust, commands=commands)
        session, said = open_saved(repo, config, resume or None, trust=trust, commands=commands)
        if session is None:
            print(f"devagent ask: {said}", file=sys.stderr)
            return 2
        print(f"devagent: {said}", file=sys.stderr)
        return session
    except Exception as error:
        print(f"devagent ask: could not start a session: {error}", file=sys.stderr)
        return 1


class Printer:
    """The session's sink: the reply to stdout as it streams, the rest to stderr."""

    def __init__(self, out: TextIO, err: TextIO, decisions: Decisions | None = None) -> None:
        self.out, self.err = out, err
        self.decisions = decisions  # the session's, where a held change is answered "keep"
        self.failed = False  # a turn could not be answered
        self.tools: Counter[str] = Counter()  # tool runs by outcome, for the JSON line
        self._writing: set[str] = set()  # tool calls whose slow input was said

    def __call__(self, event: Event) -> None:
        match event:
            case TextDelta(text=text):
                self.out.write(sanitize(text))
                self.out.flush()
            case Progress(text=text):
                self.err.write(f"[… {_printable(text)}]\n")
            case ToolInputArriving():
                # said once, and only for an input slow to come (a long file being written)
                if event.seconds >= SLOW_INPUT_SECONDS and event.tool_id not in self._writing:
                    self._writing.add(event.tool_id)
                    self.err.write(f"[writing {_printable(event.target or event.name)}…]\n")
            case ToolStarted():
                self.err.write(f"[{_printable(event.name)}{_summary(event.summary)}]\n")
            case ToolFinished():
                shown = OUTCOME_MARKS[event.ended]
                self.tools[str(event.outcome)] += 1
                self.err.write(f"[{_printable(event.name)} {shown.mark} {shown.word}{_summary(event.summary)}]\n")
            case AgentError(message=message):
                self.failed = True
                self.err.write(f"devagent: {sanitize(message)}\n")
            case Notice(message=message):
                self.err.write(f"devagent: {sanitize(message)}\n")
            case Compacted():
                self.err.write("[earlier conversation summarised]\n")
            case TurnFinished():
                self.out.write("\n")
                self.out.flush()
            case _:
                self._code_change(event)

    def _code_change(self, event: object) -> None:
        # In review nobody is there to decide: the diff goes to stdout for the script,
        # and nothing is written.
        from agent.decisions import Decision
        from agent.events import CodeChangeHeld
        from agent.loop.held_changes import ASK

        if isinstance(event, CodeChangeHeld):
            self.out.write(sanitize(f"\n[would change {event.what}; not applied]\n{event.diff}"))
            self.out.flush()
            if self.decisions is not None:
                self.decisions.post(Decision(event.id, False, ASK))


# An input still arriving after this long is worth a line: the model is writing a file.
SLOW_INPUT_SECONDS = 1.0


def _printable(text: str) -> str:
    """One line of the model's, a tool's or a file's words, with nothing a terminal would act
    on: an escape sequence shows as ␛ and text, as in the app (tui.format.sanitize)."""
    return " ".join(sanitize(text).split())


def _summary(summary: str) -> str:
    return f": {_printable(summary)}" if summary else ""
