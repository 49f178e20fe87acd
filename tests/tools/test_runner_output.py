"""Every runner's summary, read from output captured from a real project's own test suite
(each file in runner_output/ says which project, version and command in its header).

These read files only, so they run everywhere; test_runners_live.py runs the runners that
are installed."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from agent.tools.toolchain import log_noise
from agent.tools.toolchain.console_summaries import GRAMMARS
from agent.tools.toolchain.console_summaries import read as read_console
from agent.tools.toolchain.report_files import go_console, read_go_json, read_jest_json, read_junit
from agent.tools.toolchain.summary import Report
from agent.tools.toolchain.summary_readers import read
from agent.tools.toolchain.trx_report import read_trx

OUTPUT = Path(__file__).parent / "runner_output"


def load(name: str) -> str:
    """A fixture without its "#| " header lines."""
    lines = (OUTPUT / name).read_text(encoding="utf-8").splitlines(keepends=True)
    return "".join(line for line in lines if not line.startswith("#| "))


def counts(summary) -> tuple[int, int, int, int]:
    return summary.passed, summary.failed, summary.errors, summary.skipped


def test_every_fixture_names_its_project():
    for path in OUTPUT.iterdir():
        head = path.read_text(encoding="utf-8")[:600]
        assert any(mark in head for mark in ("#| ", "<!--", '"_fixture"')), path.name
        assert re.search(r"\b\d+\.\d+(\.\d+)?\b", head), f"{path.name} should name the runner's and project's versions"
        assert path.stat().st_size < 40_000, f"{path.name} should stay small"


# (fixture, grammar, (passed, failed, errors, skipped), first failure or error named with its reason)
CONSOLE = [
    ("pytest_collection_errors.txt", "pytest", (0, 0, 8, 0),
     "tests/property/test_isoparse_prop.py: ModuleNotFoundError: No module named 'hypothesis'"),
    ("pytest_failures.txt", "pytest", (247, 8, 0, 0), "tests/test_easter.py::test_easter_western[easter_date5]: assert datet..."),
    ("pytest_internal_error.txt", "pytest", (0, 0, 8, 0),
     "pytest INTERNALERROR: pytest.PytestUnknownMarkWarning: Unknown pytest.mark.no_cover - is this a typo?"),
    ("unittest_failures_and_errors.txt", "unittest", (921, 3, 5, 0),
     "test_even (tests.test_more.ChunkedTests.test_even): TypeError: chunk size 3 is not supported"),
    ("jest_failures.txt", "jest", (155, 12, 0, 0),
     "ms(string) › should convert w to ms: expect(received).toBe(expected) // Object.is equality; Expected: 1814400000; Received: 1555200000"),
    ("jest_suite_error.txt", "jest", (139, 0, 1, 0), "src/format.test.ts: Cannot find module './humanize' from 'src/format.test.ts'"),
    ("vitest_failures.txt", "vitest", (21, 2, 0, 0),
     "test/defu.test.ts > defu > should concat array values by default: AssertionError: expected { array: [ 'c', 'd', 'a', 'b' ] }"),
    ("mocha_failures.txt", "mocha", (53, 9, 0, 0),
     'vary(res, field) when existing Vary should not duplicate existing value: Error: expected "Vary" of "Accept", got "Accept, Accept"'),
    ("ava_failures.txt", "ava", (14, 6, 0, 0), "camelCase: test.js:64; - 'hello1world'; + 'hello1World'"),
    ("ava_passed.txt", "ava", (20, 0, 0, 0), None),
    ("ava_thrown_and_timeout.txt", "ava", (2, 9, 1, 0), "test/broken.test.js: Error [ERR_MODULE_NOT_FOUND]: Cannot find module"),
    ("cargo_failures.txt", "cargo", (10, 1, 0, 0), 'test_u128_0: assertion `left == right` failed; left: "1"; right: "0"'),
]


@pytest.mark.parametrize("name, grammar, expected, first", CONSOLE, ids=[c[0] for c in CONSOLE])
def test_console_output_of_real_projects(name, grammar, expected, first):
    summary = read_console(GRAMMARS[grammar], load(name))
    assert summary.seen
    assert counts(summary) == expected
    named = summary.errored + summary.failures
    if first is None:
        assert named == []
    else:
        assert named[0].startswith(first), named[0]
        # every failure and error is named, each with a reason
        assert len(named) == min(expected[1] + expected[2], len(named)) and all(": " in n for n in named)


def test_ava_failures_are_named_by_their_titles_whatever_ava_runs_on_after_them():
    """AVA's "[fail]" line runs the failure's kind or message on after the title; the name is
    the title its block below carries, and the reason comes from that block."""
    summary = read_console(GRAMMARS["ava"], load("ava_thrown_and_timeout.txt"))
    assert summary.failures == [
        "money › converts dollars to cents: test/money.test.js:9; - 13; + 125",
        "money › formats with two decimals: test/money.test.js:13; - '$3.0'; + '$3.00'",
        "refund › refund of nothing throws: TypeError: refund amount must be positive",
        "orders › order total is rounded: test/orders.test.js:4; total was 10.004",
        "orders › order history is sorted: test/orders.test.js:12; + 4,",
        "orders › order id must be refused when empty: test/orders.test.js:16; Function returned: 'fine'",
        "orders › order items count: test/orders.test.js:26; Value is not `true`: false",
        "orders › order ships async: RangeError: no carrier for zone 9",
        "orders › order stays pending: Error: Test timeout exceeded",
    ]


@pytest.mark.parametrize(
    "name, kind",
    [("jest_failures.txt", "node"), ("vitest_failures.txt", "node"), ("mocha_failures.txt", "node"),
     ("ava_failures.txt", "node"), ("ava_thrown_and_timeout.txt", "node"), ("unittest_failures_and_errors.txt", "pytest"),
     ("pytest_failures.txt", "pytest")],
)
def test_the_runner_is_recognised_from_its_output(name, kind):
    expected = next(c for c in CONSOLE if c[0] == name)[2]
    assert counts(read(kind, load(name))) == expected


def test_the_panic_of_a_go_test_is_its_reason():
    summary = read_go_json(load("go_failures.jsonl"))
    assert summary.failures[1].startswith("TestNullUUIDMarshalJSON: panic: uuid: Parse(")


def test_go_and_node_test_runs_are_read_from_their_reports_only():
    # Both always write the report devagent asks for: their console is not read as well.
    assert read("go", go_console(load("go_failures.jsonl"))) is None
    assert read("node --test", "✖ adds (1.2ms)\nℹ pass 0\nℹ fail 1\n") is None
    report = OUTPUT / "go_failures.jsonl"
    summary = read("go", "", Report("go-json", str(report)))
    assert summary is not None and counts(summary) == (11, 2, 0, 0) and summary.source == "go-json"


REPORTS = [
    ("pytest_collection_errors.xml", read_junit, (0, 0, 8, 0),
     "tests.property.test_isoparse_prop: ModuleNotFoundError: No module named 'hypothesis'"),
    ("pytest_failures.xml", read_junit, (247, 8, 0, 0),
     "tests.test_easter.test_easter_western[easter_date5]: assert datetime.date(1995, 4, 16) == datetime.date(1995, 4, 15)"),
    ("vitest_failures.xml", read_junit, (21, 2, 0, 0),
     "test/defu.test.ts > defu > should concat array values by default: expected { array: [ 'c', 'd', 'a', 'b' ] }"),
    # mocha's suite says errors="9" failures="0"; its cases hold <failure>: they are failures.
    ("mocha_failures.xml", read_junit, (53, 9, 0, 0),
     'vary(res, field) when existing Vary > should not duplicate existing value: Error: expected "Vary" of "Accept"'),
    ("node_test_failures.xml", read_junit, (0, 1, 0, 0), "test.ccount(value, character): should throw when character is invalid (#1)"),
    ("jest_failures.json", read_jest_json, (155, 12, 0, 0),
     "ms(string) should convert w to ms: Error: expect(received).toBe(expected) // Object.is equality; Expected: 1814400000"),
    ("jest_suite_error.json", lambda text: read_jest_json(text, "/home/dev/src/ms"), (139, 0, 1, 0),
     "src/format.test.ts: Cannot find module './humanize' from 'src/format.test.ts'"),
    ("go_failures.jsonl", read_go_json, (11, 2, 0, 0), "TestJSON: json_test.go:27: invalid UUID format"),
]


@pytest.mark.parametrize("name, reader, expected, first", REPORTS, ids=[r[0] for r in REPORTS])
def test_reports_of_real_projects(name, reader, expected, first):
    summary = reader(load(name))
    assert counts(summary) == expected
    named = summary.errored + summary.failures
    assert named[0].startswith(first), named[0]
    assert len(named) == expected[1] + expected[2]


# dotnet's TRX: (fixture, (passed, failed, errors, skipped), outcome, first failure named)
TRX = [
    ("dotnet_xunit_failures.trx", (5, 5, 0, 1), "failed",
     "DotnetTests.XUnitTests.CalculatorTests.Should be even number(i: 3): Assert.True() Failure; Expected: True; Actual: False"),
    # NUnit names a result by its method: the class comes from the test's definition
    ("dotnet_nunit_failures.trx", (2, 3, 0, 1), "failed", "SampleProject.NUnit.TestServiceTests.FailTest: Expected: True; But was: False"),
    # a data-driven test counts its three rows, not itself as a fourth
    ("dotnet_mstest_passed.trx", (5, 0, 0, 0), "ok", None),
    ("dotnet_nunit_no_tests.trx", (0, 0, 0, 0), "empty", None),
]


@pytest.mark.parametrize("name, expected, outcome, first", TRX, ids=[t[0] for t in TRX])
def test_trx_files_of_real_projects(name, expected, outcome, first):
    summary = read_trx((OUTPUT / name).read_bytes())
    assert summary.seen and counts(summary) == expected
    # dotnet exits non-zero exactly when a test failed
    assert summary.outcome(exit_failed=expected[1] > 0) == outcome
    named = summary.errored + summary.failures
    assert len(named) == expected[1] + expected[2]
    if first is not None:
        assert named[0] == first


def test_trx_keeps_each_failure_and_its_exception():
    summary = read_trx((OUTPUT / "dotnet_xunit_failures.trx").read_bytes())
    assert "DotnetTests.XUnitTests.CalculatorTests.Failing_Test: Assert.Equal() Failure; Expected: 3; Actual: 2" in summary.failures
    assert "DotnetTests.XUnitTests.CalculatorTests.Exception_In_TargetTest: System.DivideByZeroException : Attempted to divide by zero." in summary.failures
    # the adapter's "[FAIL]" run infos are marked Error: they are the failures again, not errors
    assert summary.errors == 0


def test_a_trx_of_a_crashed_test_host_is_an_error():
    # The run info vstest writes when the test host dies (this text from a real report);
    # the tests it had not reached are missing from the file.
    crash = (
        "<RunInfos><RunInfo computerName=\"ci\" outcome=\"Error\" timestamp=\"2026-08-01T10:00:00\"><Text>"
        "The active test run was aborted. Reason: Test host process crashed : Stack overflow.</Text></RunInfo></RunInfos>"
    )
    data = (OUTPUT / "dotnet_mstest_passed.trx").read_bytes().replace(b"</ResultSummary>", crash.encode() + b"</ResultSummary>")
    summary = read_trx(data)
    assert counts(summary) == (5, 0, 1, 0)
    assert summary.errored == ["(test run): The active test run was aborted. Reason: Test host process crashed : Stack overflow."]
    assert summary.outcome(exit_failed=True) == "error"


def test_the_report_names_the_cause_the_console_leaves_out():
    # pytest's short summary says "ERROR tests/test_rrule.py"; the cause is in the report.
    console = load("pytest_collection_errors.txt")
    assert "ERROR tests/test_rrule.py\n" in console
    report = read_junit(load("pytest_collection_errors.xml"))
    assert "tests.test_rrule: ModuleNotFoundError: No module named 'freezegun'" in report.errored


def test_go_json_carries_the_console_text_for_the_log():
    text = go_console(load("go_failures.jsonl"))
    assert "--- FAIL: TestJSON" in text and '"Action"' not in text


def test_npm_output_loses_its_padding_and_keeps_every_visible_character():
    raw = load("npm_exec_ava.txt")
    cleaned = log_noise.clean(raw)
    assert len(cleaned) < len(raw) - 200
    assert all(line == line.rstrip() for line in cleaned.splitlines())
    assert "\n\n\n" not in cleaned
    assert "".join(raw.split()) == "".join(cleaned.split())


def test_progress_redraws_and_spinners_go():
    raw = "⠙\n⠹\n[#####.....] / reify:jest: timing\nDetermining test suites to run...\r\nPASS a.test.js\n  50%\r 100%\n"
    assert log_noise.clean(raw) == "PASS a.test.js\n 100%\n"


# AVA 7.0.0 (from /tmp/real/runners) on a two-test probe whose test file requires 'ava'
# from a folder where it is not installed: a file that never ran is an error, not a pass.
AVA_UNCAUGHT = """
> probe@1.0.0 test
> /tmp/real/runners/node_modules/.bin/ava

  Uncaught exception in test.js

  test.js:1

   1: const test = require('ava');
   2: const {half} = require('./half');

  Error: Cannot find module 'ava'
  Require stack:
  - /tmp/pytest-of-root/pytest-145/test_javascript_runners_ava_0/pkg/test.js
  - /tmp/real/runners/node_modules/ava/lib/worker/base.js

  › Object.<anonymous> (test.js:1:14)

  ✘ test.js exited with a non-zero exit code: 1
  ─

  1 uncaught exception
"""


def test_an_ava_file_that_could_not_load_is_an_error():
    summary = read("node", AVA_UNCAUGHT)
    assert counts(summary) == (0, 0, 1, 0)
    assert summary.errored == ["test.js: Error: Cannot find module 'ava'"]
    assert summary.outcome(exit_failed=True) == "error"
