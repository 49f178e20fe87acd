"""A devagent session in a process of its own that applies one reply's change set, as the
app does when the user presses Enter, for the tests that kill it halfway.

`python -m tests.tools.applying_process REPO`: one turn in review mode against the Claude
double the environment names (ANTHROPIC_BASE_URL), every held change set applied.
"""

from __future__ import annotations

import sys
from pathlib import Path

from agent.decisions import Decision
from agent.events import AgentError, CodeChangeHeld
from agent.loop.session import Session
from agent.settings.config import AgentConfig


def main(repo: str) -> None:
    def sink(event: object) -> None:
        if isinstance(event, CodeChangeHeld):
            session.decisions.post(Decision(event.id, True))
        elif isinstance(event, AgentError):
            print(event, file=sys.stderr)

    session = Session(Path(repo), AgentConfig(memory_mode="none", code_writes="review"))
    session.send("Rename it everywhere.", sink)
    session.close()


if __name__ == "__main__":
    main(*sys.argv[1:])
