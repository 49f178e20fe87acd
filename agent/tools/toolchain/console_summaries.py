"""Test summaries read from what a runner prints, where it writes no report devagent can ask for.

A runner's report is the path (report_files, trx_report); these grammars are for the runs
that have none: cargo (its JSON is nightly only), AVA (no JUnit of its own), unittest (no
report at all), `dotnet test` under Microsoft.Testing.Platform (which refuses VSTest's TRX
options), Jest, Vitest and mocha in a test script of several commands (report options
reach only the last one), pytest where tox passes no arguments or pytest stops before it
writes its report (INTERNALERROR), and a command the user configured. `go test -json` and
node's own runner always write their report, so they have no grammar here.

Each runner is a Grammar, a row of one table: the lines that carry its counts, and the
lines that name a failed or errored test together with where, below that line, its reason
is. One engine reads them all. Every pattern here was written against output captured
from a real project (tests/tools/runner_output says which).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from agent.tools.toolchain.summary import EXCEPTION_LINE, TestSummary

COUNT_WORDS = {
    "passed": "passed", "passing": "passed", "pass": "passed",
    "failed": "failed", "failing": "failed", "fail": "failed", "failures": "failed",
    "skipped": "skipped", "pending": "skipped", "todo": "skipped", "ignored": "skipped", "skip": "skipped",
    "error": "errors", "errors": "errors",
}


@dataclass(frozen=True)
class Rule:
    """A line naming a failed (or errored) test; the reason is inline or below it."""

    pattern: re.Pattern[str]  # group name; optional groups reason and kind
    error: bool = False
    reason: re.Pattern[str] | None = None  # the line below that says why (group why, or the line)
    skip: re.Pattern[str] | None = None  # the runner's own label lines between name and reason
    more: re.Pattern[str] | None = None  # lines right after the reason that belong to it
    fallback: re.Pattern[str] | None = None  # the reason when no line matches `reason`
    window: int = 6
    until: re.Pattern[str] | None = None  # where the test's block ends
    name_from: re.Pattern[str] | None = None  # an earlier line that names it (group name)


@dataclass(frozen=True)
class Grammar:
    name: str
    counts: tuple[re.Pattern[str], ...]  # named groups, or a group `words` holding "N word" pairs
    rules: tuple[Rule, ...] = ()
    accumulate: bool = False  # count lines add up: one per assembly, crate or package
    empty: re.Pattern[str] | None = None  # a line saying nothing ran
    finish: Callable[[list[str], TestSummary], None] | None = None


def _add_counts(match: re.Match[str], summary: TestSummary, accumulate: bool, seen: set[str]) -> None:
    found: dict[str, int] = {}
    groups = match.groupdict()
    words = groups.get("words")
    if words is not None:
        # "3 failed, 5 passed" and unittest's "failures=3, errors=5"
        pairs = re.findall(r"(\d+) ([a-z]+)", words) + [(n, w) for w, n in re.findall(r"([a-z]+)=(\d+)", words)]
        for number, word in pairs:
            key = COUNT_WORDS.get(word)
            if key:
                found[key] = found.get(key, 0) + int(number)
    if groups.get("n") is not None and COUNT_WORDS.get(groups.get("w") or ""):
        found[COUNT_WORDS[groups["w"]]] = int(groups["n"])
    for key in ("passed", "failed", "skipped", "errors"):
        if groups.get(key) is not None:
            found[key] = found.get(key, 0) + int(groups[key])
    for key, value in found.items():
        if accumulate or key not in seen:
            setattr(summary, key, (getattr(summary, key) if accumulate else 0) + value)
        else:  # a later line of the same kind (a re-printed summary) replaces the earlier one
            setattr(summary, key, value)
        seen.add(key)


def _reason(rule: Rule, lines: list[str], start: int) -> str:
    block = []
    for i in range(start, min(len(lines), start + rule.window)):
        if rule.until is not None and rule.until.search(lines[i]):
            break
        block.append(i)
    patterns = [p for p in (rule.reason, rule.fallback) if p is not None] if rule.reason is not None else [None]
    for pattern in patterns:
        for i in block:
            line = lines[i]
            if not line.strip() or (rule.skip is not None and rule.skip.search(line)):
                continue
            found = pattern.search(line) if pattern is not None else None
            if pattern is not None and not found:
                continue
            why = (found.groupdict().get("why") if found else None) or line.strip()
            return why + _more(rule, lines, i)
    return ""


def _more(rule: Rule, lines: list[str], at: int) -> str:
    extra = ""
    if rule.more is not None:
        for line in lines[at + 1 : at + 6]:
            if not line.strip():
                continue
            if not rule.more.search(line):
                break
            extra += "; " + line.strip()
    return extra


def _name(rule: Rule, match: re.Match[str], lines: list[str], index: int) -> str:
    if rule.name_from is not None:
        for earlier in reversed(lines[:index]):
            found = rule.name_from.search(earlier)
            if found:
                return found.group("name")
    return match.group("name").strip()


def read(grammar: Grammar, log: str) -> TestSummary:
    summary = TestSummary()
    lines = log.splitlines()
    seen: set[str] = set()
    for index, line in enumerate(lines):
        for pattern in grammar.counts:
            match = pattern.search(line)
            if match:
                summary.seen = True
                _add_counts(match, summary, grammar.accumulate, seen)
                break
        if grammar.empty is not None and grammar.empty.search(line):
            summary.seen = True
            summary.notes.append(f"The runner said: {line.strip()}")
        for rule in grammar.rules:
            match = rule.pattern.search(line)
            if not match:
                continue
            reason = (match.groupdict().get("reason") or "").strip()
            if not reason:
                reason = _reason(rule, lines, index + 1)
            error = rule.error or (match.groupdict().get("kind") or "") in ("ERROR", "error")
            summary.add_failure(_name(rule, match, lines, index), reason, error=error)
            break
    if grammar.finish is not None:
        grammar.finish(lines, summary)
    return summary


def _c(pattern: str, flags: int = 0) -> re.Pattern[str]:
    return re.compile(pattern, flags)


# ---- runner-specific finishing touches ---------------------------------------------------


def _pytest_finish(lines: list[str], s: TestSummary) -> None:
    # A crash inside pytest itself (a conftest, a plugin) ends in INTERNALERROR lines whose
    # last exception line is the cause.
    internal = [line[len("INTERNALERROR> "):] for line in lines if line.startswith("INTERNALERROR> ")]
    causes = [m.group("why") for m in map(EXCEPTION_LINE.match, internal) if m]
    if causes:
        s.seen = True
        s.add_failure("pytest INTERNALERROR", causes[-1], error=True)
        s.errors = max(s.errors, 1)


def _unittest_finish(lines: list[str], s: TestSummary) -> None:
    ran = next((int(m.group(1)) for m in map(re.compile(r"^Ran (\d+) tests? in ").match, lines) if m), None)
    if ran is not None:
        s.passed = max(0, ran - s.failed - s.errors - s.skipped)


def _ava_finish(lines: list[str], s: TestSummary) -> None:
    # The default reporter names only the worse count ("6 tests failed"); the rest are ✔ lines.
    if s.seen and not s.passed:
        s.passed = sum(1 for line in lines if re.match(r"^\s*✔ ", line))
    # Below the first "─" each failure has a block under its title alone. The "[fail]" line
    # has the title with the failure's kind or message run on ("… throws Error thrown in
    # test", "… rounded total was 10.004"), so the block titles say where the name ends.
    start = next((i for i, line in enumerate(lines) if line.strip() == "─"), len(lines))
    below = [line.strip() for line in lines[start:]]
    named = list(s.failures)
    s.failures.clear()
    titles: dict[str, str] = {}  # title -> what the [fail] line ran on after it
    for entry in named:
        title = max((b for b in below if b and (entry == b or entry.startswith(b + " "))), key=len, default=entry)
        titles[title] = entry[len(title):].strip()
    blocks = _ava_blocks(below, set(titles))
    for title, tail in titles.items():
        s.add_failure(title, _ava_reason(blocks.get(title, [])) or tail)


def _ava_blocks(below: list[str], titles: set[str]) -> dict[str, list[str]]:
    """Each failure's block, from its title to the next title or "─", without blank lines."""
    blocks: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in below:
        if line in titles and line not in blocks:
            current = blocks[line] = []
        elif line == "─":
            current = None
        elif current is not None and line:
            current.append(line)
    return blocks


_AVA_FRAME = re.compile(r"^\d+: |^› |^at ")  # the code frame, the link to it, a stack line


def _ava_reason(block: list[str]) -> str:
    """Where, and why: the difference's first two lines, the error a test threw or its
    promise rejected with, or the message and value an assertion printed."""
    where = next((b for b in block[:1] if re.fullmatch(r"\S+\.\w+:\d+", b)), "")
    rest = [b for b in block if b != where and not _AVA_FRAME.match(b)]
    diff = [b for b in rest if re.match(r"^[-+] ", b)][:2]
    if diff:
        why = diff
    else:
        errors = [m.group("why") for m in map(EXCEPTION_LINE.match, rest) if m and not m.group("why").endswith((":", "{"))]
        if errors:
            why = [errors[-1]]
        else:
            # "Value is not `true`:" then the value; a t.fail message stands alone
            why = [" ".join(rest[:2]) if rest and rest[0].endswith(":") else rest[0]] if rest else []
    return "; ".join(x for x in [where, *why] if x)


def _jest_finish(lines: list[str], s: TestSummary) -> None:
    # "Test Suites: 1 failed" with no failed test: a suite failed to run (counted by its blocks).
    s.errors = len(s.errored)


def _mocha_names(lines: list[str], s: TestSummary) -> None:
    # "  1) suite\n       nested\n         test title:\n     Error: why": the title runs to a
    # colon. The same numbers head the progress list above the counts, without reasons.
    counts = next((i for i, x in enumerate(lines) if re.match(r"^\s*\d+ (passing|failing)", x)), len(lines))
    for i in range(counts, len(lines)):
        head = re.match(r"^\s{2}(\d+)\) (.+)$", lines[i])
        if not head:
            continue
        parts, j = [head.group(2).strip()], i + 1
        while not parts[-1].endswith(":") and j < len(lines) and lines[j].strip():
            parts.append(lines[j].strip())
            j += 1
        while j < len(lines) and not lines[j].strip():
            j += 1
        reason = lines[j].strip() if j < len(lines) else ""
        s.add_failure(" ".join(parts).rstrip(":"), reason)


DOTNET = Grammar(
    "dotnet",
    counts=(_c(r"(?:Passed|Failed)!\s+-\s+Failed:\s*(?P<failed>\d+),\s*Passed:\s*(?P<passed>\d+),\s*Skipped:\s*(?P<skipped>\d+)"),),
    rules=(Rule(_c(r"^\s*Failed\s+(?P<name>\S+)\s+\["), skip=_c(r"^\s*Error Message:\s*$")),),
    accumulate=True,
    empty=_c(r"No test matches the given testcase filter"),
)
CARGO = Grammar(
    "cargo",
    counts=(_c(r"test result: \w+\. (?P<passed>\d+) passed; (?P<failed>\d+) failed; (?P<skipped>\d+) ignored"),),
    rules=(
        Rule(_c(r"^---- (?P<name>\S+) stdout ----"), skip=_c(r"panicked at"), more=_c(r"^\s*(left|right):")),
        Rule(_c(r"^test (?P<name>\S+) \.\.\. FAILED"), window=0),
    ),
    accumulate=True,
)
# pytest marks the lines that explain a failure with "E"; the exception line says the most.
PYTEST_E = _c(r"^E\s+(?P<why>\S.*)$")
PYTEST_E_EXCEPTION = _c(r"^E\s+(?P<why>(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception|Warning|Exit)\b.*)$")
PYTEST_BLOCK_END = _c(r"^_{3,} |^={3,} ")
PYTEST = Grammar(
    "pytest",
    counts=(_c(r"^=*\s*(?P<words>(?:\d+ \w+(?:, )?)+)\s+in\s+[\d.]+s"),),
    rules=(
        # "____ ERROR collecting tests/x.py ____": the cause is the block's first "E   " line.
        Rule(_c(r"^_{3,} ERROR collecting (?P<name>\S+) _{3,}$"), error=True, reason=PYTEST_E_EXCEPTION, fallback=PYTEST_E, window=60, until=PYTEST_BLOCK_END),
        Rule(_c(r"^_{3,} ERROR at (?:setup|teardown) of (?P<name>\S+) _{3,}$"), error=True, reason=PYTEST_E_EXCEPTION, fallback=PYTEST_E, window=60, until=PYTEST_BLOCK_END),
        Rule(_c(r"^(?P<kind>FAILED|ERROR)\s+(?P<name>\S+)(?:\s+-\s+(?P<reason>.*))?$")),
    ),
    empty=_c(r"^=*\s*no tests ran"),
    finish=_pytest_finish,
)
UNITTEST = Grammar(
    "unittest",
    counts=(_c(r"^(?:FAILED|OK)(?: \((?P<words>[^)]*)\))?$"),),
    rules=(
        Rule(_c(r"^(?P<kind>FAIL|ERROR): (?P<name>\S+(?: \([^)]*\))?)"), reason=EXCEPTION_LINE, window=60, until=_c(r"^={20,}$")),
    ),
    finish=_unittest_finish,
)
JEST = Grammar(
    "jest",
    counts=(_c(r"^Tests:\s+(?P<words>.*\d+ (?:passed|failed).*)$"),),
    rules=(
        Rule(_c(r"^\s*● Test suite failed to run"), error=True, name_from=_c(r"^FAIL\s+(?P<name>\S+)")),
        Rule(_c(r"^\s*● (?P<name>.+?)\s*$"), more=_c(r"^\s*(Expected|Received):")),
    ),
    finish=_jest_finish,
)
VITEST = Grammar(
    "vitest",
    counts=(_c(r"^\s*Tests\s+(?P<words>.*\d+ (?:passed|failed).*)$"),),
    rules=(Rule(_c(r"^\s*FAIL\s+(?P<name>\S+ > .+?)\s*$")),),
)
MOCHA = Grammar(
    "mocha",
    counts=(_c(r"^\s*(?P<words>\d+ (?:passing|failing|pending))\b"),),
    accumulate=True,
    finish=_mocha_names,
)
AVA = Grammar(
    "ava",
    counts=(
        _c(r"^\s*(?P<n>\d+) (?:tests? |known )?(?P<w>passed|failed|skipped|todo)$"),
        _c(r"^\s*(?P<errors>\d+) uncaught exceptions?$"),
    ),
    rules=(
        Rule(_c(r"^\s*✘ \[fail\]: (?P<name>.+?)(?: \([\d.]+m?s\))?$"), window=0),
        Rule(_c(r"^\s*Uncaught exception in (?P<name>\S+)"), error=True, reason=EXCEPTION_LINE, window=12),
    ),
    accumulate=True,
    finish=_ava_finish,
)
GRAMMARS = {g.name: g for g in (DOTNET, CARGO, PYTEST, UNITTEST, JEST, VITEST, MOCHA, AVA)}
# A test command whose runner is not known in advance: the first grammar that finds a
# count line wins.
FAMILIES = {
    "pytest": ("pytest", "unittest"),
    "node": ("jest", "vitest", "mocha", "ava"),
}


def read_console(kind: str, log: str) -> TestSummary | None:
    names = FAMILIES.get(kind, (kind,))
    first = None
    for name in names:
        grammar = GRAMMARS.get(name)
        if grammar is None:
            continue
        summary = read(grammar, log)
        if summary.seen:
            return summary
        first = first or summary
    return first
