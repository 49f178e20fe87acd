"""A `dotnet` stand-in for the fixture solution: no SDK, MSBuild-shaped output.

It is copied into a bin folder as `dotnet` and put first on PATH, so the agent's build and
test tools run it exactly as they would run the SDK. It reads the working tree each time:
a `.Patch` member access fails with CS1061 for as long as `ChangedFile` no longer declares
`Patch`, so fixing the call site really turns the build green. Standard library only, and it
imports nothing from devagent: it runs as its own process under whatever Python made it.
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

SDK_VERSION = "8.0.404"
MSBUILD_BANNER = "MSBuild version 17.8.5+b5265ef37 for .NET"
VALUE_OPTIONS = {
    "-c", "--configuration", "-f", "--framework", "-v", "--verbosity", "-o", "--output",
    "-r", "--runtime", "--filter", "-l", "--logger", "-a", "--arch", "--os", "-s", "--settings",
    "--results-directory", "--property",
}
DECLARATION = re.compile(r"\b(?:string|int|bool|long)\??\s+(\w+)\s*[,){=;]")
MEMBER_ACCESS = re.compile(r"\.(Patch)\b")
TEST_METHOD = re.compile(r"\[Fact\]\s*public\s+void\s+(\w+)")
CS1061 = (
    "error CS1061: 'ChangedFile' does not contain a definition for '{name}' and no accessible "
    "extension method '{name}' accepting a first argument of type 'ChangedFile' could be found "
    "(are you missing a using directive or an assembly reference?)"
)
CS1591 = (
    "warning CS1591: Missing XML comment for publicly visible type or member "
    "'ChangedFile.ChangedFile(string, string, string?)'"
)


class Project:
    def __init__(self, csproj: Path):
        self.csproj = csproj.resolve()
        self.dir = self.csproj.parent
        self.name = self.csproj.stem
        text = self.csproj.read_text(encoding="utf-8")
        assembly = re.search(r"<AssemblyName>([^<]+)</AssemblyName>", text)
        self.assembly = assembly.group(1) if assembly else self.name
        self.is_test = "Microsoft.NET.Test.Sdk" in text
        self.references = [
            (self.dir / ref.replace("\\", "/")).resolve()
            for ref in re.findall(r'<ProjectReference Include="([^"]+)"', text)
        ]

    def sources(self) -> list[Path]:
        return sorted(
            p for p in self.dir.rglob("*.cs") if not ({"bin", "obj"} & set(p.relative_to(self.dir).parts))
        )

    def output(self) -> Path:
        return self.dir / "bin" / "Debug" / "net8.0" / f"{self.assembly}.dll"


def parse(argv: list[str]) -> tuple[str | None, dict[str, str]]:
    target = None
    options: dict[str, str] = {}
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg.startswith("-"):
            if arg.startswith("--") and "=" in arg:
                name, _, value = arg.partition("=")
            elif ":" in arg:
                name, _, value = arg.partition(":")
            elif arg in VALUE_OPTIONS and i + 1 < len(argv):
                name, value = arg, argv[i + 1]
                i += 1
            else:
                name, value = arg, ""
            options[name] = value
        elif target is None:
            target = arg
        i += 1
    return target, options


def find_target(target: str | None, cwd: Path) -> Path | str:
    """The solution or project file to build, or the MSBuild error line that says why not."""
    path = (cwd / target) if target else cwd
    if target and not path.exists():
        return f"MSBUILD : error MSB1009: Project file does not exist.\nSwitch: {target}"
    if path.is_file():
        return path.resolve()
    found = sorted(path.glob("*.sln")) or sorted(path.glob("*.csproj"))
    if not found:
        return (
            "MSBUILD : error MSB1003: Specify a project or solution file. The current working "
            "directory does not contain a project or solution file."
        )
    if len(found) > 1:
        return (
            "MSBUILD : error MSB1011: Specify which project or solution file to use because this "
            "folder contains more than one project or solution file."
        )
    return found[0].resolve()


def projects_of(file: Path) -> list[Project]:
    """Every project the target builds, references first, as MSBuild orders them."""
    if file.suffix == ".sln":
        text = file.read_text(encoding="utf-8")
        roots = [
            (file.parent / rel.replace("\\", "/")).resolve()
            for rel in re.findall(r'"([^"]+\.csproj)"', text)
        ]
    else:
        roots = [file]
    ordered: list[Project] = []
    seen: set[Path] = set()

    def visit(csproj: Path) -> None:
        if csproj in seen or not csproj.exists():
            return
        seen.add(csproj)
        project = Project(csproj)
        for ref in project.references:
            visit(ref)
        ordered.append(project)

    for root in roots:
        visit(root)
    return ordered


def compile_errors(project: Project, by_path: dict[Path, Project]) -> list[str]:
    declared: set[str] = set()
    for p in [project] + [by_path[r] for r in project.references if r in by_path]:
        for source in p.sources():
            declared.update(DECLARATION.findall(source.read_text(encoding="utf-8", errors="replace")))
    errors = []
    for source in project.sources():
        for number, line in enumerate(source.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            for match in MEMBER_ACCESS.finditer(line):
                if match.group(1) not in declared:
                    column = match.start(1) + 1
                    message = CS1061.format(name=match.group(1))
                    errors.append(f"{source}({number},{column}): {message} [{project.csproj}]")
    return errors


def doc_warnings(project: Project) -> list[str]:
    model = project.dir / "Models" / "ChangedFile.cs"
    if not model.exists():
        return []
    for number, line in enumerate(model.read_text(encoding="utf-8").splitlines(), 1):
        if "record ChangedFile(" in line:
            column = line.index("ChangedFile(") + 1
            return [f"{model}({number},{column}): {CS1591} [{project.csproj}]"]
    return []


def build(file: Path, out: list[str]) -> tuple[list[Project], bool]:
    """Compiles every project of the target; returns them and whether all compiled."""
    projects = projects_of(file)
    by_path = {p.csproj: p for p in projects}
    out += [MSBUILD_BANNER, "  Determining projects to restore...", "  All projects are up-to-date for restore."]
    errors: list[str] = []
    warnings: list[str] = []
    failed: set[Path] = set()
    for project in projects:
        if any(ref in failed for ref in project.references):
            failed.add(project.csproj)
            continue
        project_errors = compile_errors(project, by_path)
        if project_errors:
            # The compiler reports the documentation warnings of a project it could not finish.
            project_warnings = doc_warnings(project)
            out += project_warnings + project_errors
            warnings += project_warnings
            errors += project_errors
            failed.add(project.csproj)
        else:
            out.append(f"  {project.name} -> {project.output()}")
    out.append("")
    if errors:
        out += ["Build FAILED.", ""] + warnings + errors
    else:
        out.append("Build succeeded.")
    out += [f"    {len(warnings)} Warning(s)", f"    {len(errors)} Error(s)", "", "Time Elapsed 00:00:02.41"]
    return projects, not errors


def matches(name: str, expression: str | None) -> bool:
    if not expression:
        return True
    for clause in re.split(r"[|&]", expression):
        key, op, value = re.split(r"(~|!=|=)", clause, maxsplit=1) if re.search(r"[~=]", clause) else ("", "~", clause)
        value = value.strip()
        if op == "~" and value in name:
            return True
        if op == "=" and (name == value or name.endswith("." + value)):
            return True
        if op == "!=" and not (name == value or name.endswith("." + value)):
            return True
    return False


def test(file: Path, options: dict[str, str], out: list[str]) -> int:
    projects, ok = build(file, out)
    # `dotnet test` keeps the build's diagnostics but drops its summary block.
    if not ok:
        return 1
    del out[-6:]
    expression = options.get("--filter")
    status = 0
    for project in (p for p in projects if p.is_test):
        names = [
            f"{project.name}.{source.stem}.{method}"
            for source in project.sources()
            for method in TEST_METHOD.findall(source.read_text(encoding="utf-8"))
        ]
        chosen = [n for n in names if matches(n, expression)]
        out += [
            f"Test run for {project.output()} (.NETCoreApp,Version=v8.0)",
            "Microsoft (R) Test Execution Command Line Tool Version 17.8.0 (x64)",
            "Copyright (c) Microsoft Corporation.  All rights reserved.",
            "",
            "Starting test execution, please wait...",
            "A total of 1 test files matched the specified pattern.",
        ]
        if not chosen:
            out.append(f"No test matches the given testcase filter `{expression}` in {project.output()}")
            continue
        total = len(chosen)
        out.append(
            f"\nPassed!  - Failed:     0, Passed: {total:>5}, Skipped:     0, Total: {total:>5}, "
            f"Duration: {11 * total} ms - {project.assembly}.dll (net8.0)"
        )
    return status


def log_call(argv: list[str]) -> None:
    log = Path(os.environ.get("DEVAGENT_EVAL_DOTNET_LOG") or Path(__file__).with_name("dotnet-calls.jsonl"))
    try:
        with log.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps({"argv": argv, "cwd": os.getcwd()}) + "\n")
    except OSError:
        pass


def main(argv: list[str]) -> int:
    log_call(argv)
    if not argv or argv[0] in ("-h", "--help"):
        print("Usage: dotnet [sdk-options] [command] [command-options] [arguments]")
        return 0
    command, rest = argv[0], argv[1:]
    if command == "--version":
        print(SDK_VERSION)
        return 0
    if command == "--list-sdks":
        print(f"{SDK_VERSION} [/usr/share/dotnet/sdk]")
        return 0
    if command == "--info":
        print(f".NET SDK:\n Version:           {SDK_VERSION}\n Commit:            3b47b2bbd0")
        return 0
    if command not in ("build", "test", "restore", "clean"):
        print(f"Could not execute because the specified command or file was not found.\n  * {command}")
        return 1
    target, options = parse(rest)
    file = find_target(target, Path.cwd())
    if isinstance(file, str):
        print(file)
        return 1
    out: list[str] = []
    if command == "restore":
        out = ["  Determining projects to restore...", "  All projects are up-to-date for restore."]
        status = 0
    elif command == "clean":
        out = [MSBUILD_BANNER, "", "Build succeeded.", "    0 Warning(s)", "    0 Error(s)"]
        status = 0
    elif command == "build":
        status = 0 if build(file, out)[1] else 1
    else:
        status = test(file, options, out)
    print("\n".join(out))
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
