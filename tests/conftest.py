"""Fixtures shared by every test area.

`claude_double` starts the Messages API stand-in (tests/double/server.py) and points the
real anthropic SDK at it through the environment. It also moves the user's data, config
and state folders into the test's tmp dir, so a test run never reads or writes real
memories, transcripts, config or logs.

The collection hook below sorts the tests for the quick loop (`-m "not slow"`).
"""

from __future__ import annotations

import inspect
import os
import shutil
import tempfile

import pytest

from tests import system_packages
from tests.double.server import ClaudeDouble
from tests.repos import git_repo

TEST_API_KEY = "sk-ant-test-double-key"

# The fixtures of tests/voice/conftest.py that load the real Whisper and Piper models or
# start a PulseAudio server: a test that asks for one is an audio test.
AUDIO_FIXTURES = frozenset({"pulse", "voice", "transcriber", "speech", "speech_wav"})


def _drives_the_app(item: pytest.Item) -> bool:
    """A coroutine test runs the app under Pilot and a snapshot test renders it: the app's
    start and its layout passes alone take most of a second."""
    function = getattr(item, "function", None)
    return inspect.iscoroutinefunction(function) or "snap_compare" in getattr(item, "fixturenames", ())


@pytest.hookimpl(tryfirst=True)  # before -m deselects anything
def pytest_collection_modifyitems(items):
    """Marks the audio tests, and makes every audio, e2e and app test slow too, so that the
    quick loop is the one expression `-m "not slow"` (pyproject.toml lists the markers)."""
    for item in items:
        if AUDIO_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.audio)
        if item.get_closest_marker("audio") or item.get_closest_marker("e2e") or _drives_the_app(item):
            item.add_marker(pytest.mark.slow)



def pytest_configure(config) -> None:
    """Under pytest-xdist, each worker gets a temp folder of its own (TMPDIR, inherited by
    every process a test starts): a test that checks the system temp folder for what it
    left behind (tests/tools/repos.py reports_left, libpulse's pulse-XXXX) must not see
    what a test on the other worker has in it at that moment."""
    worker = getattr(config, "workerinput", {}).get("workerid")
    if worker:
        folder = tempfile.mkdtemp(prefix=f"devagent-tests-{worker}-")
        os.environ["TMPDIR"] = folder
        tempfile.tempdir = None  # gettempdir() reads TMPDIR again
        config.stash[_WORKER_TMP] = folder


def pytest_unconfigure(config) -> None:
    folder = config.stash.get(_WORKER_TMP, None)
    if folder:
        shutil.rmtree(folder, ignore_errors=True)


_WORKER_TMP = pytest.StashKey[str]()


def pytest_runtest_setup(item: pytest.Item) -> None:
    """A test marked `system_packages(...)` skips where one is missing (fails under CI=true)."""
    for marker in item.iter_markers("system_packages"):
        system_packages.need(*marker.args)


def pytest_terminal_summary(terminalreporter) -> None:
    """Names, at the end of the run, what to install for the tests that skipped."""
    skipped = terminalreporter.stats.get("skipped", [])
    lines = system_packages.summary_lines([str(getattr(report, "longrepr", "")) for report in skipped])
    if lines:
        terminalreporter.section("system packages")
        for line in lines:
            terminalreporter.write_line(line)


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


@pytest.fixture
def make_repo(tmp_path):
    """Builds git repositories in the test's tmp dir: `make_repo(name, files, commit=...)`
    makes tmp_path/<under>/<name> (under "sandbox" unless told; "" for tmp_path itself) with
    tests.repos.git_repo."""

    def make(name: str = "shop", files=None, *, commit: bool = False, under: str = "sandbox"):
        return git_repo(tmp_path / under / name, files, commit=commit)

    return make


@pytest.fixture
def repo(make_repo):
    """An empty git repository, tmp_path/sandbox/shop; a folder's conftest or a test module
    overrides it with the files its tests stand on."""
    return make_repo()


@pytest.fixture
def unsandboxed(monkeypatch):
    """build and test run their steps outside the sandbox (agent.tools.toolchain.sandbox), for
    the tests whose stand-in toolchains record what ran in files outside the repository, or
    read their settings from variables the sandbox does not pass on: those tests are about
    the plans and the processes, and tests/tools/test_build_sandbox.py is about the sandbox."""
    from agent.tools import build

    monkeypatch.setattr(build, "_sandbox", lambda plan, repo, ctx, notes: None)
