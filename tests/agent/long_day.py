"""A scripted day of work: many turns through the Claude double, each with a build (every
fourth) or a read of a 20 KB file, and now and then something worth remembering.

Shared by tests/agent/test_long_day.py and benchmarks/long_session.py. Everything is real
but the model: a git repository, the read_file and build tools running a real command, the
memory tool writing into a real store, the SDK talking HTTP to the double, which applies
context management and refuses requests over the window as tests/double/context.py says.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from agent.events import AgentError, ContextStatus, TurnFinished
from agent.loop.session import Session
from agent.settings.config import AgentConfig
from agent.workspace_trust import WorkspaceTrust
from tests.double.server import ClaudeDouble, Request, reply, text, tool_use
from tests.repos import git_repo

MONDAY = datetime(2026, 11, 9, 9, 0, tzinfo=UTC)
NOTICE_START = "(devagent: this conversation is at about"
BIG_FILE = "src/inventory.py"
# Made by the build script: a log the build tool turns into its digest.
BUILD = """import sys
for n in range(600):
    print(f"src/module_{n:03}.py:{n + 1}: warning W{n % 7:03}: unused name 'value_{n}' in this module")
print("build finished with 600 warnings")
"""


def make_repo(root: Path) -> Path:
    rows = [f"def item_{n:03}(stock: int) -> int:  # keeps {n} on the shelf\n" for n in range(400)]
    return git_repo(root / "work" / "inventory", {BIG_FILE: "".join(rows)[:20_000], "build.py": BUILD})


class DayModel:
    """The double's responder: answers a question with one tool call and a tool result with
    a few sentences. Every tenth turn, and once when devagent gives notice, it saves a
    memory instead (a preference, never tool state)."""

    def __init__(self) -> None:
        self.memories = 0

    def __call__(self, request: Request) -> dict | None:
        last = request.messages[-1] if request.messages else {}
        content = last.get("content") if isinstance(last.get("content"), list) else []
        if any(b.get("type") == "tool_result" for b in content):
            answer = "I looked at it. " + "The stock functions all follow the same pattern and nothing is broken. " * 3
            return reply(text(answer.strip()), chunk=4000)
        said = " ".join(b.get("text", "") for b in content if b.get("type") == "text")
        turn = int(said.rsplit("turn ", 1)[-1].split(":")[0]) if "turn " in said else 0
        if NOTICE_START in said or turn % 10 == 0:
            self.memories += 1
            note = f"---\nname: preference-{self.memories}\ntype: user\ndescription: how the user works\n---\nThe user prefers small commits ({self.memories}).\n"
            return reply(tool_use("memory", {"command": "create", "path": f"/memories/preference_{self.memories}.md", "file_text": note}), chunk=4000)
        if turn % 4:
            return reply(tool_use("read_file", {"path": BIG_FILE}), chunk=4000)
        return reply(tool_use("build", {}), chunk=4000)


@dataclass
class Day:
    """What a day of `turns` turns did: per request, the context the double counted; per
    turn, whether it succeeded and what it cost."""

    requests: list[int] = field(default_factory=list)
    ok: list[bool] = field(default_factory=list)
    cost: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    session: Session | None = None
    memory_calls: int = 0


def run_day(double: ClaudeDouble, root: Path, *, turns: int = 200, managed: bool = True, model: str = "claude-haiku-5-5") -> Day:
    repo = make_repo(root)
    model_ = DayModel()
    double.responder = model_
    double.simulate_cache = True
    config = AgentConfig(
        model=model,
        memory_mode="on-demand",
        context_management=managed,
        build_command=f"{sys.executable} build.py",
        max_retries=0,
    )
    session = Session(repo, config, now=MONDAY, trust=WorkspaceTrust(repo, for_this_run=True))
    day = Day(session=session)
    for n in range(1, turns + 1):
        events: list = []
        session.send(f"Next one, turn {n}: what does the code say now?", events.append)
        day.requests += [e.used for e in events if isinstance(e, ContextStatus)]
        errors = [e.message for e in events if isinstance(e, AgentError)]
        finished = next(e for e in events if isinstance(e, TurnFinished))
        day.ok.append(not errors)
        day.errors.append(errors[0] if errors else "")
        day.cost.append(finished.usage.cost_usd)
    day.memory_calls = model_.memories
    return day
