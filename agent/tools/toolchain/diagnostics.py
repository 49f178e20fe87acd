"""Compiler diagnostics pulled out of a build log, so the model reads a list, not a log.

MSBuild prints each diagnostic where it happens and again in its summary, and once per
target framework of a multi-targeted project; one CS1061 can appear four times. The list
keeps each one once. Warnings are mostly counted by code, because a project with doc
comments switched on emits hundreds of CS1591 that say nothing individually.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

MAX_ERRORS = 20
MAX_WARNING_CODES = 10

# path(line,col): error CS1061: message [project]; also path(line,col,endline,endcol), a
# tool name instead of a path ("MSBUILD : error MSB1009"), and msbuild.exe's "12>" prefix.
MSBUILD = re.compile(
    r"^\s*(?:\d+>)?(?P<file>(?:[A-Za-z]:)?[^\s(:][^(:]*?)"
    r"(?:\((?P<line>\d+)(?:,(?P<col>\d+))?(?:,\d+,\d+)?\))?"
    r"\s*:\s*(?:fatal\s+)?(?P<sev>error|warning)\s*(?P<code>[A-Za-z]+\d+)?\s*:\s*"
    r"(?P<msg>.*?)(?:\s+\[(?P<proj>[^\]]+)\])?\s*$"
)
# file:line:col: error[E0425]: message (cargo --message-format=short), file:line: error: msg
# [code] (mypy), file:line:col: message (go), file:line:col - error TS2322: message (tsc).
COLON = re.compile(
    r"^\s*(?P<file>[^\s:][^:]*?):(?P<line>\d+)(?::(?P<col>\d+))?(?::\s*|\s+-\s+)"
    r"(?:(?P<sev>error|warning|note)(?:\[(?P<rcode>[A-Z]\d+)\])?\s*(?P<code>TS\d+)?\s*:\s*)?"
    r"(?P<msg>.+?)(?:\s+\[(?P<mcode>[a-z][a-z-]+)\])?\s*$"
)
# pyright: "  /repo/a.py:12:5 - error: message (reportX)"
PYRIGHT_RULE = re.compile(r"\s+\((?P<rule>report\w+)\)$")


# What makes two diagnostics the same fix: severity, file, line, column, code, message.
DiagnosticKey = tuple[str, str | None, int | None, int | None, str | None, str]


@dataclass(frozen=True)
class Diagnostic:
    severity: str  # "error" | "warning"
    message: str
    file: str | None = None
    line: int | None = None
    column: int | None = None
    code: str | None = None
    project: str | None = None

    def key(self) -> DiagnosticKey:
        # The project is left out on purpose: the same line in two target frameworks is one fix.
        return (self.severity, self.file, self.line, self.column, self.code, self.message)

    def location(self) -> str:
        if not self.file:
            return ""
        if self.line is None:
            return self.file
        return f"{self.file}:{self.line}" + (f":{self.column}" if self.column else "")

    def describe(self) -> str:
        head = " ".join(x for x in (self.location(), self.code) if x)
        project = f" [{self.project}]" if self.project else ""
        return f"{head}: {self.message}{project}" if head else f"{self.message}{project}"


@lru_cache(maxsize=32)
def _root_prefix(repo: Path) -> str:
    try:
        return str(repo.resolve()).rstrip(os.sep) + os.sep
    except OSError:
        return str(repo).rstrip(os.sep) + os.sep


def _relative(path: str | None, repo: Path | None) -> str | None:
    if not path or repo is None:
        return path
    path = path.strip()
    root = _root_prefix(repo)
    if path.startswith(root):
        return path[len(root):]
    if path.startswith("./"):
        return path[2:]
    return path


def parse_msbuild_line(line: str, repo: Path | None = None) -> Diagnostic | None:
    m = MSBUILD.match(line)
    if not m:
        return None
    file = m.group("file").strip()
    if file.upper() in ("MSBUILD", "CSC", "VBC", "FSC", "EXEC", "NUGET") or file.startswith("CSC"):
        file = None
    project = m.group("proj")
    if project:
        # "x.csproj::TargetFramework=net8.0": the framework is useful, the full path is not.
        path, _, extra = project.partition("::")
        project = re.split(r"[\\/]", path)[-1] + (f" {extra}" if extra else "")
    return Diagnostic(
        severity=m.group("sev"),
        message=m.group("msg").strip(),
        file=_relative(file, repo),
        line=int(m.group("line")) if m.group("line") else None,
        column=int(m.group("col")) if m.group("col") else None,
        code=m.group("code"),
        project=project,
    )


def parse_colon_line(line: str, repo: Path | None = None, *, default_severity: str | None = None) -> Diagnostic | None:
    m = COLON.match(line)
    if not m:
        return None
    severity = m.group("sev") or default_severity
    if severity not in ("error", "warning"):
        return None
    file = m.group("file")
    # "Error: 2 tests failed" style lines and URLs are not locations.
    if file.lower() in ("error", "warning", "note", "http", "https") or "://" in line[: len(file) + 3]:
        return None
    message = m.group("msg").strip()
    code = m.group("rcode") or m.group("code") or m.group("mcode")
    rule = PYRIGHT_RULE.search(message)
    if rule:
        code = rule.group("rule")
        message = message[: rule.start()].strip()
    return Diagnostic(
        severity=severity,
        message=message,
        file=_relative(file, repo),
        line=int(m.group("line")),
        column=int(m.group("col")) if m.group("col") else None,
        code=code,
    )


def parse_diagnostics(log: str, repo: Path | None = None, *, style: str = "msbuild") -> list[Diagnostic]:
    """Every distinct diagnostic in order of first appearance.

    style "msbuild" reads path(line,col) lines and, for tools MSBuild runs, path:line:col
    lines that name a severity; "colon" reads compiler lines of the gcc shape; "go" takes
    any path:line:col line as an error, since go prints no severity.
    """
    seen: set[DiagnosticKey] = set()
    found: list[Diagnostic] = []
    for raw in log.splitlines():
        line = raw.rstrip("\r")
        diagnostic = None
        # Most of a log is progress lines; both shapes with a severity name it in lower case.
        if style != "go" and "error" not in line and "warning" not in line:
            continue
        if style == "msbuild":
            diagnostic = parse_msbuild_line(line, repo) or parse_colon_line(line, repo)
        elif style == "colon":
            diagnostic = parse_colon_line(line, repo) or parse_msbuild_line(line, repo)
        elif style == "go" and re.match(r"^\s*(?:\./)?[\w./-]+\.go:\d+(?::\d+)?: ", line):
            diagnostic = parse_colon_line(line, repo, default_severity="error")
        if diagnostic is None or diagnostic.key() in seen:
            continue
        seen.add(diagnostic.key())
        found.append(diagnostic)
    return found


@dataclass
class Report:
    errors: list[Diagnostic]
    warnings: list[Diagnostic]

    @classmethod
    def of(cls, diagnostics: list[Diagnostic]) -> Report:
        return cls(
            errors=[d for d in diagnostics if d.severity == "error"],
            warnings=[d for d in diagnostics if d.severity == "warning"],
        )

    def warning_counts(self) -> list[tuple[str, int]]:
        counts = Counter(d.code or "(no code)" for d in self.warnings)
        return counts.most_common()

    def counts(self) -> str:
        e, w = len(self.errors), len(self.warnings)
        return f"{e} error{'s' if e != 1 else ''}, {w} warning{'s' if w != 1 else ''}"

    def lines(self, max_errors: int = MAX_ERRORS) -> list[str]:
        out: list[str] = []
        if self.errors:
            out.append("Errors:")
            out += [f"  {d.describe()}" for d in self.errors[:max_errors]]
            if len(self.errors) > max_errors:
                out.append(f"  ... {len(self.errors) - max_errors} more errors not listed (cut here; the full log has them).")
        if self.warnings:
            counts = self.warning_counts()
            out.append("Warnings by code:")
            for code, n in counts[:MAX_WARNING_CODES]:
                example = next(d for d in self.warnings if (d.code or "(no code)") == code)
                where = example.location()
                out.append(f"  {code} x{n}, e.g. {where + ': ' if where else ''}{_short(example.message)}")
            if len(counts) > MAX_WARNING_CODES:
                rest = sum(n for _, n in counts[MAX_WARNING_CODES:])
                out.append(f"  ... {len(counts) - MAX_WARNING_CODES} more codes, {rest} warnings (cut here).")
        return out


def _short(message: str, limit: int = 160) -> str:
    return message if len(message) <= limit else message[: limit - 3] + "..."
