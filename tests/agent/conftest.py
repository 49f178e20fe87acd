"""The session's tests against the Claude double retry with the session's own backoff,
from a shorter first wait: every dropped stream and refused call here would otherwise
wait out half a second or more of real time. The waits a server asks for (retry-after)
and the formula itself are unchanged, and tests that time a retry set their own."""

from __future__ import annotations

import pytest

QUICK_FIRST_RETRY = 0.05


@pytest.fixture(autouse=True)
def quick_retries(request, monkeypatch):
    if "claude_double" in request.fixturenames:
        import agent.loop.claude

        monkeypatch.setattr(agent.loop.claude, "RETRY_FIRST_DELAY", QUICK_FIRST_RETRY)
