"""`devagent ask`: one session of typed turns, without the app.

Each reply is printed as it streams; tool calls and errors go to stderr so stdout holds
the replies and, last, one JSON line of usage for scripts to parse. Every `ask` is a new
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


def add_arguments(name: str, parser: argparse.ArgumentParser) -> None:
    from tui.cli import add_agent_options

    parser.add_argument("--repo", default=".", help="the repository (default: .)")
    from tui.cli import add_resume_option

    add_agent_options(parser)
    add_resume_option(parser)
    parser.add_argument("turns", nargs="*", metavar="TURN", help="what you would say, one turn each")


def run(name: str, args: argparse.Namespace) -> int:
    from agent.config import AgentConfig, api_key_problem
    from tui.terminal import start_logging

    start_logging()
    repo = Path(args.repo).expanduser()
    if not repo.is_dir():
        print(f"devagent ask: {repo} is not a folder.", file=sys.stderr)
        return 2
    problem = api_key_problem()
    if problem:
        print(problem, file=sys.stderr)
        return 2
    if args.resume:
        # `ask --resume "first turn"`: what followed --resume was a turn, not an id.
        from agent.sessions import resume_value

        args.resume, rest = resume_value(args.resume)
        args.resume = args.resume or ""
        if rest is not None:
            args.turns.insert(0, rest)
    if not args.turns:
        print("devagent ask: say at least one turn.", file=sys.stderr)
        return 2
    config = AgentConfig.from_env_and_args(args, repo=repo)
    if config.notice:
        print(f"devagent: {config.notice}", file=sys.stderr)

    from agent import sessions
    from agent.events import AgentError, Compacted, Notice, TextDelta, ToolFinished, ToolStarted, TurnFinished
    from agent.session import Session
    from tui.outcomes import OUTCOME_MARKS

    sessions.prune_for(config)

    out, err = sys.stdout, sys.stderr
    failed = False
    tools: Counter[str] = Counter()

    def sink(event) -> None:
        nonlocal failed
        if isinstance(event, TextDelta):
            out.write(event.text)
            out.flush()
        elif isinstance(event, ToolStarted):
            err.write(f"[{event.name}{': ' + event.summary if event.summary else ''}]\n")
        elif isinstance(event, ToolFinished):
            shown = OUTCOME_MARKS[event.outcome]
            tools[str(event.outcome)] += 1
            err.write(f"[{event.name} {shown.mark} {shown.word}{': ' + event.summary if event.summary else ''}]\n")
        elif isinstance(event, AgentError):
            failed = True
            err.write(f"devagent: {event.message}\n")
        elif isinstance(event, Notice):
            err.write(f"devagent: {event.message}\n")
        elif isinstance(event, Compacted):
            err.write("[earlier conversation summarised]\n")
        elif isinstance(event, TurnFinished):
            out.write("\n")
            out.flush()

    try:
        if args.resume is None:
            session = Session(repo, config)
        else:
            session, said = sessions.open_saved(repo, config, args.resume or None)
            if session is None:
                print(f"devagent ask: {said}", file=sys.stderr)
                return 2
            print(f"devagent: {said}", file=sys.stderr)
    except Exception as error:
        print(f"devagent ask: could not start a session: {error}", file=sys.stderr)
        return 1
    try:
        for turn in args.turns:
            session.send(turn, sink)
    except KeyboardInterrupt:
        failed = True
    finally:
        session.close()
    # close() may spend a call (summary mode); the session's own total counts it.
    total = session.usage
    record = {**total.to_dict(), "turns": len(args.turns), "model": session.config.model, "memory": session.config.memory_mode, "tools": dict(tools)}
    if session.transcript is not None and session.transcript.path.exists():
        record["transcript"] = str(session.transcript.path)
    out.write(json.dumps(record) + "\n")
    out.flush()
    return 1 if failed else 0
