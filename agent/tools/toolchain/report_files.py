"""Test summaries from the reports runners write when asked: JUnit XML (pytest, Vitest,
mocha's xunit, node's junit reporter), Jest's JSON, `go test -json` and dotnet's TRX files
(read in trx_report).

A report names every failed test with its message, where console output is cut to the
terminal's width or leaves the cause out (pytest's "ERROR tests/x.py"). JUnit XML is read
with junitparser; its XML goes through Python's expat, whose limits stop entity-expansion
bombs, and a report larger than MAX_REPORT_BYTES is not read at all (the console is).
Counts come from the test cases themselves, not the suites' attributes, because mocha
counts its failures as errors there.
"""

from __future__ import annotations

import json
import os
import re
from xml.etree.ElementTree import ParseError

from junitparser import Error, Failure, JUnitXml, Skipped, TestCase, TestSuite

from agent.tools.toolchain import trx_report
from agent.tools.toolchain.summary import EXCEPTION_LINE, MAX_REPORT_BYTES, Report, TestSummary


def read(report: Report) -> TestSummary | None:
    """The summary in the report, or None when it is missing or cannot be read."""
    try:
        if report.format == "trx":
            summary = trx_report.read_folder(report.path)
        elif os.path.getsize(report.path) > MAX_REPORT_BYTES:
            return None
        else:
            summary = _read_file(report)
    except (OSError, KeyError, ValueError, ParseError, TypeError, AttributeError):
        return None
    if summary is not None:
        summary.source = report.format
    return summary


def _read_file(report: Report) -> TestSummary:
    with open(report.path, encoding="utf-8", errors="replace") as handle:
        text = handle.read()
    if report.format == "go-json":
        return read_go_json(text)
    return {"junit": read_junit, "jest-json": read_jest_json}[report.format](text, report.root)


def _first_meaningful(message: str | None, text: str | None) -> str:
    """The line that says why: the message, unless it is a runner's placeholder; else the
    exception line in the text ("E   ModuleNotFoundError: ..."), else its first line."""
    message = (message or "").strip()
    lines = [line for line in (text or "").splitlines() if line.strip()]
    exceptions = [m.group("why") for m in map(EXCEPTION_LINE.match, lines) if m]
    marked = [line[1:].strip() for line in lines if re.match(r"^E\s", line)]
    if message and message not in ("collection failure", "failed on setup", "failed on teardown"):
        first = message.splitlines()[0]
        if not first.startswith("failed on setup with"):
            return first
    for candidates in ([m for m in marked if EXCEPTION_LINE.match(m)], marked, exceptions, lines):
        if candidates:
            return candidates[0].strip()
    return message


def _cases(xml: JUnitXml | TestSuite) -> list[TestCase]:
    if isinstance(xml, TestSuite) and not isinstance(xml, JUnitXml):
        return list(xml)
    cases: list[TestCase] = []
    for suite in xml:
        cases += list(suite)
    # node's junit reporter puts test cases straight under <testsuites>.
    # junitparser leaves fromelem unannotated; it returns the TestCase it is called on
    cases += [TestCase.fromelem(e) for e in xml._elem.findall("testcase")]  # type: ignore[no-untyped-call]
    return cases


def read_junit(text: str, root: str | None = None) -> TestSummary:
    if not text.lstrip().startswith("<"):
        raise ValueError("not XML")
    tree = JUnitXml.fromstring(text.encode("utf-8"))
    summary = TestSummary(seen=True)
    for case in _cases(tree):
        name = _case_name(case.classname, case.name, case._elem.get("file"), root)
        results = case.result
        if any(isinstance(r, Error) for r in results):
            error = next(r for r in results if isinstance(r, Error))
            summary.errors += 1
            summary.add_failure(name, _first_meaningful(error.message, error.text), error=True)
        elif any(isinstance(r, Failure) for r in results):
            failure = next(r for r in results if isinstance(r, Failure))
            summary.failed += 1
            summary.add_failure(name, _first_meaningful(failure.message, failure.text))
        elif any(isinstance(r, Skipped) for r in results):
            summary.skipped += 1
        else:
            summary.passed += 1
    declared = _declared_tests(tree)
    if declared is not None and declared > summary.passed + summary.failed + summary.errors + summary.skipped:
        # A trimmed or partial report: the cases not listed passed.
        summary.passed = declared - summary.failed - summary.errors - summary.skipped
    return summary


def _case_name(classname: str | None, name: str | None, file: str | None = None, root: str | None = None) -> str:
    if not classname and name and root and re.fullmatch(r"[\w.]+", name):
        # pytest names a module it could not collect by its dotted path.
        path = name.replace(".", "/") + ".py"
        if os.path.isfile(os.path.join(root, path)):
            return path
    if classname and name and root and file and file.endswith(".py"):
        node_id = _pytest_node_id(classname, name, root)
        if node_id is not None:
            return node_id
    if file and file.endswith(".py") and classname and name and not os.path.isabs(file):
        # pytest (xunit1 reports name the file): its own node id, which pytest takes back.
        module = file[:-3].replace("/", ".")
        inner = classname[len(module) + 1 :] if classname.startswith(module + ".") else ""
        return "::".join(p for p in (file, inner.replace(".", "::"), name) if p)
    # pytest's classname is a dotted module, Vitest's and mocha's a file or a suite title.
    joiner = "." if classname and re.fullmatch(r"[\w.]+", classname) else " > "
    return joiner.join(p for p in (classname, name) if p) or "(unnamed test)"


def _pytest_node_id(classname: str, name: str, root: str) -> str | None:
    """pytest's node id from a JUnit case, which it reruns when given back.

    pytest writes the node id's file as a dotted classname (tests/a/test_b.py::TestC ->
    tests.a.test_b.TestC). The `file` attribute is no help for an inherited test: it names
    the file the method was written in, not the one whose class collected it. So the
    longest dotted prefix that is a .py file under the root is the file, and the rest are
    classes."""
    if not re.fullmatch(r"[\w.]+", classname):
        return None
    parts = classname.split(".")
    for cut in range(len(parts), 0, -1):
        path = "/".join(parts[:cut]) + ".py"
        if os.path.isfile(os.path.join(root, path)):
            return "::".join([path, *parts[cut:], name])
    return None


def _declared_tests(root: JUnitXml | TestSuite) -> int | None:
    try:
        value = root._elem.get("tests")
        if value is None and not isinstance(root, TestSuite):
            values = [s._elem.get("tests") for s in root]
            return sum(int(v) for v in values) if values and all(v is not None for v in values) else None
        return int(value) if value is not None else None
    except (TypeError, ValueError):
        return None


def read_jest_json(text: str, root: str | None = None) -> TestSummary:
    data = json.loads(text)
    summary = TestSummary(seen=True)
    summary.passed = int(data.get("numPassedTests", 0))
    summary.failed = int(data.get("numFailedTests", 0))
    summary.skipped = int(data.get("numPendingTests", 0)) + int(data.get("numTodoTests", 0))
    for suite in data.get("testResults", []):
        for case in suite.get("assertionResults", []):
            if case.get("status") == "failed":
                messages = case.get("failureMessages") or [""]
                summary.add_failure(case.get("fullName") or case.get("title", "?"), _jest_reason(messages[0]))
        if suite.get("status") == "failed" and not any(c.get("status") == "failed" for c in suite.get("assertionResults", [])):
            # The suite failed to run: its message says why.
            summary.errors += 1
            summary.add_failure(_short_path(suite.get("name", "?"), root), _jest_reason(suite.get("message", "")), error=True)
    return summary


def _jest_reason(message: str) -> str:
    lines = [line.strip() for line in re.sub(r"\x1b\[[0-9;]*m", "", message).splitlines() if line.strip()]
    lines = [line for line in lines if not line.startswith("●")]
    if not lines:
        return ""
    why = lines[0]
    extra = [line for line in lines[1:4] if line.startswith(("Expected:", "Received:"))]
    return "; ".join([why, *extra])


def _short_path(path: str, root: str | None) -> str:
    prefix = (root or "").rstrip(os.sep) + os.sep
    return path[len(prefix):] if root and path.startswith(prefix) else path


def read_go_json(text: str) -> TestSummary:
    summary = TestSummary()
    output: dict[tuple[str, str], list[str]] = {}
    for line in text.splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            continue  # build errors are printed as text between the events
        if not isinstance(event, dict):
            continue
        action, test, package = event.get("Action"), event.get("Test"), event.get("Package", "")
        if action == "output" and test:
            output.setdefault((package, test), []).append(event.get("Output", ""))
        if action in ("pass", "fail", "skip"):
            summary.seen = True
            if not test:
                continue
            if action == "pass":
                summary.passed += 1
            elif action == "skip":
                summary.skipped += 1
            else:
                summary.failed += 1
                summary.add_failure(test, _go_reason(output.get((package, test), [])))
    return summary


def _go_reason(lines: list[str]) -> str:
    for line in lines:
        text = line.strip()
        if not text or text.startswith(("=== RUN", "--- FAIL", "=== PAUSE", "=== CONT")):
            continue
        return text
    return ""


def go_console(text: str) -> str:
    """The console output carried inside `go test -json` events, for the log."""
    out: list[str] = []
    for line in text.splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            out.append(line + "\n")
            continue
        if isinstance(event, dict) and event.get("Action") == "output":
            out.append(event.get("Output", ""))
    return "".join(out)
