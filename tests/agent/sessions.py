"""One way to start a Session in the agent tests.

Trust is a parameter of its own: a repository's build and test commands run only for a
session given a WorkspaceTrust that allows them (`trusted(repo)`, as `devagent ask --trust`
would); without one the session asks nobody and refuses them, as an untrusted folder does.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from agent.loop.session import Session
from agent.settings.config import AgentConfig
from agent.tools.base import Tool
from agent.workspace_trust import WorkspaceTrust


def trusted(repo: Path) -> WorkspaceTrust:
    """Trust for this run only: nothing is written to the user's trust file."""
    return WorkspaceTrust(repo, for_this_run=True)


def session(repo: Path, *, trust: WorkspaceTrust | None = None, tools: list[Tool] | None = None,
            now: datetime | None = None, **config) -> Session:
    """A Session on `repo` with AgentConfig(**config); `tools` None gives the session's own."""
    return Session(repo, AgentConfig(**config), tools=tools, now=now, trust=trust)
