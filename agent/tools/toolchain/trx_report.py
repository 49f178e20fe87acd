"""Test summaries from the TRX files `dotnet test --logger trx` writes: one file per test
project and target framework, all in the folder the run was given.

Counts come from the results themselves, not the file's <Counters>: those leave skipped
tests out of every count but the total, and count a data-driven test once more than its
rows. The XML is read with the standard library: its expat stops entity-expansion bombs,
and the file is one that dotnet has just written into a folder of the tool's own.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator
from xml.etree import ElementTree

from agent.tools.toolchain.summary import MAX_REPORT_BYTES, TestSummary

NS = "{http://microsoft.com/schemas/VisualStudio/TeamTest/2010}"

# How each result outcome counts; an outcome this table does not know counts as skipped,
# never as passed.
OUTCOMES = {
    "Passed": "passed", "PassedButRunAborted": "passed",
    "Failed": "failed", "Timeout": "failed",
    # these never ran to a verdict: the test host died, or the test could not be started
    "Error": "errors", "Aborted": "errors", "NotRunnable": "errors", "Disconnected": "errors",
}
# Lines below a failure's first that carry the values compared (xUnit, NUnit).
COMPARED = re.compile(r"^(?:Expected|Actual|But was)\b", re.IGNORECASE)
# MSTest's opening line of a thrown exception; the exception is on the next line.
THREW = re.compile(r"^Test method \S+ threw exception:?$")
ABORTED = re.compile(r"test run was aborted", re.IGNORECASE)


def read_folder(folder: str) -> TestSummary | None:
    """The summary of every TRX file in `folder`, or None when there is none. Raises
    (OSError, ParseError, ValueError) on a file that cannot be read: the console is then read."""
    names = sorted(n for n in os.listdir(folder) if n.lower().endswith(".trx"))
    if not names:
        return None
    total = TestSummary(seen=True)
    for name in names:
        path = os.path.join(folder, name)
        if os.path.getsize(path) > MAX_REPORT_BYTES:
            raise ValueError(f"{name} is too large to read")
        with open(path, "rb") as handle:
            read_trx(handle.read(), total)
    return total


def read_trx(data: bytes, summary: TestSummary | None = None) -> TestSummary:
    """One TRX file's results, added to `summary` when given."""
    root = ElementTree.fromstring(data)  # expat reads past the byte-order mark dotnet writes
    if root.tag != f"{NS}TestRun":
        raise ValueError("not a TRX file")
    classes = _classes(root)
    summary = summary if summary is not None else TestSummary(seen=True)
    results = root.find(f"{NS}Results")
    for result in _leaves(results if results is not None else []):
        kind = OUTCOMES.get(result.get("outcome", ""), "skipped")
        setattr(summary, kind, getattr(summary, kind) + 1)
        if kind == "passed" or kind == "skipped":
            continue
        name = _name(result.get("testName") or "(unnamed test)", classes.get(result.get("testId", "")))
        reason = _reason(result) or ("timed out" if result.get("outcome") == "Timeout" else "")
        summary.add_failure(name, reason, error=kind == "errors")
    for text in root.iterfind(f"{NS}ResultSummary/{NS}RunInfos/{NS}RunInfo/{NS}Text"):
        # A crashed test host ends the run: the tests it had not reached never ran.
        if text.text and ABORTED.search(text.text):
            summary.errors += 1
            summary.add_failure("(test run)", text.text.strip().splitlines()[0], error=True)
    return summary


def _leaves(results: Iterable[ElementTree.Element]) -> Iterator[ElementTree.Element]:
    """Each result that is a verdict of its own: a data-driven test's rows, not the test."""
    for result in results:
        inner = result.find(f"{NS}InnerResults")
        if inner is not None and len(inner):
            yield from _leaves(inner)
        elif result.get("outcome") is not None:
            yield result


def _classes(root: ElementTree.Element) -> dict[str, str]:
    """Test id to class name: NUnit and MSTest name a result by its method alone."""
    found = {}
    for test in root.iterfind(f"{NS}TestDefinitions/*"):
        method = test.find(f"{NS}TestMethod")
        class_name = method.get("className") if method is not None else None
        test_id = test.get("id")
        if class_name and test_id:
            # MSTest of old wrote the assembly after the class: "Ns.Class, Assembly, Version=..."
            found[test_id] = class_name.split(",")[0].strip()
    return found


def _name(test_name: str, class_name: str | None) -> str:
    if class_name and not test_name.startswith(class_name + "."):
        return f"{class_name}.{test_name}"
    return test_name


def _reason(result: ElementTree.Element) -> str:
    """The first line of the failure's message, with the values it compared."""
    info = result.find(f"{NS}Output/{NS}ErrorInfo")
    if info is None:
        return ""
    for tag in ("Message", "StackTrace"):
        element = info.find(f"{NS}{tag}")
        lines = [line.strip() for line in (element.text or "").splitlines() if line.strip()] if element is not None else []
        if lines and THREW.match(lines[0]):
            lines = lines[1:]
        if lines:
            compared = [line for line in lines[1:4] if COMPARED.match(line)]
            return "; ".join([lines[0], *compared])
    return ""
