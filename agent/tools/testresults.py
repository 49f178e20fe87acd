"""Test runner summaries: how many passed and failed, and which tests failed, from the log."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from agent.events import ToolOutcome

MAX_FAILURES = 15
MAX_DETAIL_CHARS = 300


@dataclass
class TestSummary:
    passed: int = 0
    failed: int = 0
    skipped: int = 0
    errors: int = 0
    seen: bool = False  # whether a summary line was found at all
    failures: list[str] = field(default_factory=list)  # "name: first line of the reason"
    notes: list[str] = field(default_factory=list)

    def counts(self) -> str:
        parts = [f"{self.failed} failed", f"{self.passed} passed"]
        if self.errors:
            parts.insert(1, f"{self.errors} error{'s' if self.errors != 1 else ''}")
        if self.skipped:
            parts.append(f"{self.skipped} skipped")
        return ", ".join(parts)

    def outcome(self, exit_failed: bool) -> ToolOutcome:
        """How the run ended: errors outrank failures (part of the suite never ran), and a
        run in which no test passed or failed ran nothing, whatever its exit code."""
        if self.errors:
            return ToolOutcome.ERROR
        if self.failed:
            return ToolOutcome.FAILED
        if self.passed == 0:
            return ToolOutcome.EMPTY
        return ToolOutcome.FAILED if exit_failed else ToolOutcome.OK

    def add_failure(self, name: str, detail: str = "") -> None:
        detail = " ".join(detail.split())
        if len(detail) > MAX_DETAIL_CHARS:
            detail = detail[: MAX_DETAIL_CHARS - 3] + "..."
        entry = f"{name}: {detail}" if detail else name
        for i, known in enumerate(self.failures):
            if known == name:
                # Runners often name a failure before they print its reason.
                if detail:
                    self.failures[i] = entry
                return
            if known.startswith(name + ": "):
                return
        self.failures.append(entry)


def _reason(following: list[str], is_label: Callable[[str], bool]) -> str:
    """The first line under a failed test's header that says why, skipping the runner's
    own label line ("Error Message:", "thread ... panicked at"); "" when none is near."""
    for line in following[:5]:
        if line.strip() and not is_label(line):
            return line.strip()
    return ""


def read_dotnet(log: str) -> TestSummary:
    s = TestSummary()
    lines = log.splitlines()
    for i, line in enumerate(lines):
        m = re.search(r"(Passed|Failed)!\s+-\s+Failed:\s*(\d+),\s*Passed:\s*(\d+),\s*Skipped:\s*(\d+)", line)
        if m:
            s.seen = True
            s.failed += int(m.group(2))
            s.passed += int(m.group(3))
            s.skipped += int(m.group(4))
            continue
        m = re.match(r"^\s*Failed\s+(\S+)\s+\[", line)
        if m:
            s.add_failure(m.group(1), _reason(lines[i + 1 :], lambda f: f.strip() == "Error Message:"))
        if "No test matches the given testcase filter" in line:
            s.seen = True
            s.notes.append(line.strip())
    return s


def read_pytest(log: str) -> TestSummary:
    s = TestSummary()
    for line in log.splitlines():
        m = re.match(r"^(FAILED|ERROR)\s+(\S+)(?:\s+-\s+(.*))?$", line)
        if m:
            s.add_failure(m.group(2), m.group(3) or ("error" if m.group(1) == "ERROR" else ""))
            continue
        tail = re.match(r"^=*\s*((?:\d+ \w+(?:, )?)+)\s+in\s+[\d.]+s", line)
        if tail or re.match(r"^=*\s*no tests ran", line):
            s.seen = True
            if tail:
                for number, word in re.findall(r"(\d+) (\w+)", tail.group(1)):
                    if word == "passed":
                        s.passed = int(number)
                    elif word == "failed":
                        s.failed = int(number)
                    elif word == "skipped":
                        s.skipped += int(number)
                    elif word in ("error", "errors"):
                        s.errors = int(number)
    return s


def read_cargo(log: str) -> TestSummary:
    s = TestSummary()
    lines = log.splitlines()
    for i, line in enumerate(lines):
        m = re.search(r"test result: \w+\. (\d+) passed; (\d+) failed; (\d+) ignored", line)
        if m:
            s.seen = True
            s.passed += int(m.group(1))
            s.failed += int(m.group(2))
            s.skipped += int(m.group(3))
            continue
        m = re.match(r"^---- (\S+) stdout ----", line)
        if m:
            s.add_failure(m.group(1), _reason(lines[i + 1 :], lambda f: "panicked at" in f))
        m = re.match(r"^test (\S+) \.\.\. FAILED", line)
        if m:
            s.add_failure(m.group(1))
    return s


def read_go(log: str) -> TestSummary:
    s = TestSummary()
    lines = log.splitlines()
    for i, line in enumerate(lines):
        m = re.match(r"^\s*--- (PASS|FAIL|SKIP): (\S+)", line)
        if m:
            s.seen = True
            if m.group(1) == "PASS":
                s.passed += 1
            elif m.group(1) == "SKIP":
                s.skipped += 1
            else:
                s.failed += 1
                detail = lines[i + 1].strip() if i + 1 < len(lines) and lines[i + 1].startswith("    ") else ""
                s.add_failure(m.group(2), detail)
        elif re.match(r"^(ok|FAIL)\s+\S+\s+[\d.]+s", line) or re.match(r"^ok\s+\S+\s+\(cached\)", line):
            s.seen = True
    if s.seen and s.passed == 0 and s.failed == 0:
        # Without -v go prints only failing tests; "ok pkg" lines are the passing packages.
        s.passed = sum(1 for line in lines if re.match(r"^ok\s+\S+", line))
        if s.passed:
            s.notes.append("go test prints packages, not tests, when they pass: passed counts packages.")
    return s


def read_node(log: str) -> TestSummary:
    s = TestSummary()
    for line in log.splitlines():
        # Jest: "Tests:       1 failed, 3 passed, 4 total"; Vitest: "Tests  1 failed | 3 passed (4)"
        m = re.match(r"^\s*Tests:?\s+(.*)$", line)
        if m and re.search(r"\d+ (passed|failed)", m.group(1)):
            s.seen = True
            for number, word in re.findall(r"(\d+) (passed|failed|skipped|todo)", m.group(1)):
                if word == "passed":
                    s.passed = int(number)
                elif word == "failed":
                    s.failed = int(number)
                else:
                    s.skipped += int(number)
            continue
        # node --test (TAP): "# pass 3", "# fail 1"
        m = re.match(r"^[#ℹ]\s*(pass|fail|skipped|skip)\s+(\d+)$", line.strip())
        if m:
            s.seen = True
            if m.group(1) == "pass":
                s.passed = int(m.group(2))
            elif m.group(1) == "fail":
                s.failed = int(m.group(2))
            else:
                s.skipped = int(m.group(2))
            continue
        m = re.match(r"^\s*●\s+(.+?)\s*$", line)
        if m and "Console" not in m.group(1):
            s.add_failure(m.group(1))
            continue
        m = re.match(r"^\s*(?:FAIL|×|✗)\s+(.+?)\s*$", line)
        if m and not m.group(1).startswith("Tests"):
            s.add_failure(m.group(1))
            continue
        m = re.match(r"^not ok \d+ - (.+)$", line.strip())
        if m:
            s.add_failure(m.group(1))
    return s


READERS = {"dotnet": read_dotnet, "pytest": read_pytest, "cargo": read_cargo, "go": read_go, "node": read_node}


def read(kind: str | None, log: str) -> TestSummary | None:
    reader = READERS.get(kind or "")
    return reader(log) if reader else None
