"""Warming the client leaves the first request nothing to build: the SDK's validator for
streamed events (pydantic builds it on first use, a tenth of a second or more) is made
while the session loads, not while the user waits for the first word."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.double.server import reply

ROOT = Path(__file__).resolve().parents[2]

PROBE = """
import json, sys
from pathlib import Path
from anthropic._models import _CachedTypeAdapter
from agent.settings.config import AgentConfig
from agent.loop.session import Session
from tui.turns.driver import warm_client

repo = Path(sys.argv[1])
session = Session(repo, AgentConfig.from_env_and_args(repo=repo))
warm_client(session)
before = _CachedTypeAdapter.cache_info()
events = []
session.send("which island is it?", events.append)
after = _CachedTypeAdapter.cache_info()
print(json.dumps({"built_by_request": after.misses - before.misses, "words": "".join(
    getattr(e, "text", "") for e in events if type(e).__name__ == "TextDelta")}))
"""


@pytest.mark.slow
def test_the_first_request_builds_no_validator(claude_double, tmp_path):
    claude_double.add(reply("Zanzibar is the island."))
    repo = tmp_path / "repo"
    repo.mkdir()
    # a fresh interpreter: in this one, other tests have built the validators already
    result = subprocess.run([sys.executable, "-c", PROBE, str(repo)], cwd=ROOT, capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]
    seen = json.loads(result.stdout.strip().splitlines()[-1])
    assert seen["words"] == "Zanzibar is the island."
    assert seen["built_by_request"] == 0
