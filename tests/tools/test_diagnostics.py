"""Diagnostics read from real-shaped compiler output."""

from __future__ import annotations

from pathlib import Path

from agent.tools.toolchain.diagnostics import Report, parse_diagnostics

REPO = Path("/home/dev/src/shop")

MSBUILD_LOG = """\
MSBuild version 17.8.5+b5265ef37 for .NET
  Determining projects to restore...
/home/dev/src/shop/src/Core/Models/ChangedFile.cs(4,15): warning CS1591: Missing XML comment for publicly visible type or member 'ChangedFile' [/home/dev/src/shop/src/Core/Core.csproj]
/home/dev/src/shop/src/Core/Models/ChangedFile.cs(9,16): warning CS1591: Missing XML comment for publicly visible type or member 'ChangedFile.Size()' [/home/dev/src/shop/src/Core/Core.csproj]
/home/dev/src/shop/src/Core/Review/Reviewer.cs(20,23): warning CS8618: Non-nullable property 'Name' must contain a non-null value when exiting constructor. [/home/dev/src/shop/src/Core/Core.csproj]
/home/dev/src/shop/src/Core/Review/ReviewOrchestrator.cs(111,31): error CS1061: 'ChangedFile' does not contain a definition for 'Patch' [/home/dev/src/shop/src/Core/Core.csproj]
/home/dev/src/shop/src/Core/Review/ReviewOrchestrator.cs(111,31): error CS1061: 'ChangedFile' does not contain a definition for 'Patch' [/home/dev/src/shop/src/Core/Core.csproj::TargetFramework=net9.0]
CSC : error CS5001: Program does not contain a static 'Main' method suitable for an entry point [/home/dev/src/shop/src/Cli/Cli.csproj]
/usr/share/dotnet/sdk/8.0.404/Microsoft.Common.CurrentVersion.targets(2413,5): warning MSB3277: Found conflicts between different versions of "System.Text.Json" [/home/dev/src/shop/src/Cli/Cli.csproj]

Build FAILED.

/home/dev/src/shop/src/Core/Models/ChangedFile.cs(4,15): warning CS1591: Missing XML comment for publicly visible type or member 'ChangedFile' [/home/dev/src/shop/src/Core/Core.csproj]
/home/dev/src/shop/src/Core/Review/ReviewOrchestrator.cs(111,31): error CS1061: 'ChangedFile' does not contain a definition for 'Patch' [/home/dev/src/shop/src/Core/Core.csproj]
    4 Warning(s)
    2 Error(s)

Time Elapsed 00:00:02.41
"""


def test_msbuild_log():
    found = parse_diagnostics(MSBUILD_LOG, REPO)
    report = Report.of(found)
    assert report.counts() == "2 errors, 4 warnings"
    first = report.errors[0]
    assert (first.file, first.line, first.column, first.code, first.project) == (
        "src/Core/Review/ReviewOrchestrator.cs", 111, 31, "CS1061", "Core.csproj",
    )
    tool = report.errors[1]
    assert (tool.file, tool.code, tool.project) == (None, "CS5001", "Cli.csproj")
    assert report.warning_counts() == [("CS1591", 2), ("CS8618", 1), ("MSB3277", 1)]
    # A file outside the repository keeps its full path.
    msb = next(d for d in report.warnings if d.code == "MSB3277")
    assert msb.file.startswith("/usr/share/dotnet/")


def test_report_lines_put_errors_first_and_cut_with_a_note():
    lines = Report.of(parse_diagnostics(MSBUILD_LOG, REPO)).lines()
    assert lines[0] == "Errors:"
    assert lines[1] == "  src/Core/Review/ReviewOrchestrator.cs:111:31 CS1061: 'ChangedFile' does not contain a definition for 'Patch' [Core.csproj]"
    assert lines[2] == "  CS5001: Program does not contain a static 'Main' method suitable for an entry point [Cli.csproj]"
    assert lines[3] == "Warnings by code:"
    assert lines[4].startswith("  CS1591 x2, e.g. src/Core/Models/ChangedFile.cs:4:15: Missing XML comment")
    many = "\n".join(f"/r/f{i}.cs({i},1): error CS0103: The name 'x{i}' does not exist in the current context [/r/a.csproj]" for i in range(1, 31))
    cut = Report.of(parse_diagnostics(many, Path("/r"))).lines()
    assert len([line for line in cut if "CS0103" in line]) == 20
    assert cut[-1] == "  ... 10 more errors not listed (cut here; the full log has them)."


def test_ordinary_lines_are_not_diagnostics():
    noise = """\
  Shop.Core -> /home/dev/src/shop/src/Core/bin/Debug/net8.0/Shop.Core.dll
Build succeeded.
    0 Warning(s)
    0 Error(s)
warning: this is cargo's own note without a location
Error: Cannot find module 'x'
See https://example.com:443/docs for details
tests/test_calc.py:9: AssertionError
    at Object.<anonymous> (src/cart.test.js:4:30)
"""
    assert parse_diagnostics(noise, REPO) == []


def test_other_compilers():
    log = """\
src/main.rs:2:13: error[E0425]: cannot find value `x` in this scope
src/lib.rs:7:9: warning: unused variable: `y`
calc/core.py:12: error: Incompatible return value type (got "str", expected "int")  [return-value]
calc/core.py:14:5: note: Revealed type is "builtins.int"
/home/dev/src/shop/calc/ui.py:3:8 - error: Import "missing" could not be resolved (reportMissingImports)
src/cart.ts(12,5): error TS2322: Type 'string' is not assignable to type 'number'.
"""
    found = parse_diagnostics(log, REPO, style="colon")
    assert [(d.file, d.line, d.code, d.severity) for d in found] == [
        ("src/main.rs", 2, "E0425", "error"),
        ("src/lib.rs", 7, None, "warning"),
        ("calc/core.py", 12, "return-value", "error"),
        ("calc/ui.py", 3, "reportMissingImports", "error"),
        ("src/cart.ts", 12, "TS2322", "error"),
    ]


def test_go_lines_are_errors():
    log = "# example.com/svc\n./main.go:4:6: undefined: missing\nnote: module requires Go 1.22\n"
    [d] = parse_diagnostics(log, REPO, style="go")
    assert (d.file, d.line, d.column, d.severity, d.message) == ("main.go", 4, 6, "error", "undefined: missing")
