"""Test-run summaries read from runner logs as the runners print them (dotnet and cargo share
one table-driven reader; see test_runner_output.py for the output of real projects)."""

from __future__ import annotations

from agent.tools.toolchain.console_summaries import CARGO, DOTNET, read

CARGO_LOG = """\
running 3 tests
test tests::adds ... ok
test tests::parses_empty ... FAILED
test tests::ignored_one ... ignored

failures:

---- tests::parses_empty stdout ----
thread 'tests::parses_empty' panicked at src/lib.rs:42:9:
assertion `left == right` failed: empty input must give no items

failures:
    tests::parses_empty

test result: FAILED. 1 passed; 1 failed; 1 ignored; 0 measured; 0 filtered out; finished in 0.00s
"""

DOTNET_LOG = """\
  Failed ReviewBot.Tests.OrchestratorTests.AppliesPatch [12 ms]
  Error Message:
   Assert.Equal() Failure: Values differ
  Stack Trace:
     at ReviewBot.Tests.OrchestratorTests.AppliesPatch() in /src/OrchestratorTests.cs:line 31

Failed!  - Failed:     1, Passed:    41, Skipped:     2, Total:    44, Duration: 1 s - ReviewBot.Tests.dll (net8.0)
"""


def test_cargo_failure_reason_skips_the_panic_line():
    summary = read(CARGO, CARGO_LOG)
    assert (summary.seen, summary.passed, summary.failed, summary.skipped) == (True, 1, 1, 1)
    assert summary.failures == ["tests::parses_empty: assertion `left == right` failed: empty input must give no items"]


def test_dotnet_failure_reason_skips_the_error_message_label():
    summary = read(DOTNET, DOTNET_LOG)
    assert (summary.seen, summary.passed, summary.failed, summary.skipped) == (True, 41, 1, 2)
    assert summary.failures == ["ReviewBot.Tests.OrchestratorTests.AppliesPatch: Assert.Equal() Failure: Values differ"]


def test_summaries_of_several_assemblies_or_crates_add_up():
    summary = read(DOTNET, DOTNET_LOG + DOTNET_LOG.replace("AppliesPatch", "Other").replace("ReviewBot.Tests.dll", "Two.dll"))
    assert (summary.passed, summary.failed, summary.skipped) == (82, 2, 4)
    assert read(CARGO, CARGO_LOG + CARGO_LOG).passed == 2


def test_a_header_with_no_reason_nearby_names_the_test_alone():
    summary = read(CARGO, "---- tests::quiet stdout ----\n\n\n\n\n\n\nlater text\n")
    assert summary.failures == ["tests::quiet"]
