"""Fixtures shared by every test area.

`claude_double` starts the Messages API stand-in (tests/claude_double.py) and points the
real anthropic SDK at it through the environment. It also moves the user's data, config
and state folders into the test's tmp dir, so a test run never reads or writes real
memories, transcripts, config or logs.
"""

from __future__ import annotations

import pytest

from tests.claude_double import ClaudeDouble

TEST_API_KEY = "sk-ant-test-double-key"


@pytest.fixture(autouse=True)
def user_dirs(tmp_path_factory, monkeypatch):
    """XDG data and config folders of the test's own, for every test.

    Autouse as a safety net: a test that forgets to isolate itself still cannot write into
    the real user's memories, transcripts or config. A test may set its own on top.
    """
    root = tmp_path_factory.mktemp("xdg")
    data, config, state = root / "data", root / "config", root / "state"
    data.mkdir()
    config.mkdir()
    state.mkdir()
    monkeypatch.setenv("XDG_DATA_HOME", str(data))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config))
    # the logs (stderr.log, devagent.log) of an app or `devagent ask` a test starts
    monkeypatch.setenv("XDG_STATE_HOME", str(state))
    return {"data": data, "config": config, "state": state}


@pytest.fixture
def claude_double(user_dirs, monkeypatch):
    double = ClaudeDouble().start()
    monkeypatch.setenv("ANTHROPIC_BASE_URL", double.url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", TEST_API_KEY)
    # Model and effort come from the environment when set; a developer's shell must not
    # change what the tests send.
    for name in ("DEVAGENT_MODEL", "DEVAGENT_EFFORT", "DEVAGENT_MEMORY", "ANTHROPIC_AUTH_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    try:
        yield double
    finally:
        double.stop()
