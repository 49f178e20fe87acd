"""How each test runner is asked for a machine-readable report, and where it writes it.

Reports go to a fresh folder outside the repository (never into the developer's tree),
removed after the run. A Node test script is changed only where that is safe: arguments
after `npm run test --` reach the last command of the script, so they are added only when
the script is one command of a known runner; node's own runner takes its reporters from
NODE_OPTIONS, which reaches it wherever it sits in the script. `dotnet test` is asked for
TRX files unless Microsoft.Testing.Platform runs it, which refuses VSTest's options.
Everything else is read from the console.
"""

from __future__ import annotations

import os
import re
import shlex
import tempfile
import uuid

from agent.tools.toolchain.summary import Report
from agent.tools.toolchain.user_environment import user_environment

# Order matters: "vitest" must not be read as a mention of "jest".
NODE_RUNNERS = ("vitest", "jest", "mocha", "ava")
# global.json's choice of the new test platform for `dotnet test` (.NET 10 and later)
TESTING_PLATFORM = re.compile(r'"runner"\s*:\s*"Microsoft\.Testing\.Platform"', re.IGNORECASE)


def report_folder() -> str:
    """A fresh path for the run's reports; the run makes it (mode 0700) and removes it."""
    return os.path.join(tempfile.gettempdir(), f"devagent-report-{uuid.uuid4().hex}")


def pytest_args(folder: str, repo: str) -> tuple[list[str], Report]:
    path = os.path.join(folder, "pytest.xml")
    # xunit1 names each case's file, so failures read as node ids (tests/x.py::test_y).
    return [f"--junitxml={path}", "-o", "junit_family=xunit1"], Report("junit", path, repo)


def node_runner(script: str) -> str | None:
    """The test runner a package.json test script runs: jest, vitest, mocha, ava, node --test."""
    try:
        words = shlex.split(script)
    except ValueError:
        words = script.split()
    for i, word in enumerate(words):
        name = os.path.basename(word)
        if name == "node" and "--test" in words[i + 1 :]:
            return "node --test"
        if name in NODE_RUNNERS:
            return name
    return None


def _single_command(script: str) -> bool:
    return not re.search(r"&&|\|\||[;|&<>`$]", script)


def node_args(script: str, runner: str | None, folder: str, repo: str) -> tuple[list[str], dict[str, str], Report | None]:
    """Arguments after `--` and environment additions that make the runner write a report."""
    if runner == "node --test":
        path = os.path.join(folder, "node.xml")
        options = (
            "--test-reporter=spec --test-reporter-destination=stdout "
            f"--test-reporter=junit --test-reporter-destination={path}"
        )
        existing = user_environment().get("NODE_OPTIONS", "").strip()
        return [], {"NODE_OPTIONS": f"{existing} {options}".strip()}, Report("junit", path, repo)
    if runner is None or not _single_command(script):
        return [], {}, None
    if runner == "jest":
        path = os.path.join(folder, "jest.json")
        return ["--json", f"--outputFile={path}"], {}, Report("jest-json", path, repo)
    if runner == "vitest":
        path = os.path.join(folder, "vitest.xml")
        return ["--reporter=default", "--reporter=junit", f"--outputFile.junit={path}"], {}, Report("junit", path, repo)
    if runner == "mocha":
        path = os.path.join(folder, "mocha.xml")
        return ["--reporter", "xunit", "--reporter-option", f"output={path}"], {}, Report("junit", path, repo)
    return [], {}, None  # AVA writes no JUnit of its own: its console is read


def go_report(folder: str, repo: str) -> Report:
    """go test -json prints its events on stdout; the run keeps them here."""
    return Report("go-json", os.path.join(folder, "go.json"), repo)


def dotnet_args(folder: str, repo: str) -> tuple[list[str], Report | None]:
    """Arguments that make `dotnet test` write its TRX files into the folder. No LogFileName:
    every test project of a solution would write that one file, and only the last would stay."""
    if _testing_platform(repo):
        return [], None
    return ["--logger", "trx", "--results-directory", folder], Report("trx", folder, repo)


def _testing_platform(repo: str) -> bool:
    """Whether the global.json dotnet finds from the repository (the first one up the tree)
    hands `dotnet test` to Microsoft.Testing.Platform."""
    folder = os.path.abspath(repo)
    while True:
        path = os.path.join(folder, "global.json")
        if os.path.isfile(path):
            try:
                with open(path, encoding="utf-8", errors="replace") as handle:
                    return TESTING_PLATFORM.search(handle.read()) is not None
            except OSError:
                return False
        parent = os.path.dirname(folder)
        if parent == folder:
            return False
        folder = parent
