"""A `dotnet` stand-in that prints what the real SDK prints, for the build and test tools.

Installed as an executable named `dotnet` first on PATH. It reads the working tree: every
`.Patch` member access in a .cs file is a CS1061 error, every public member without a `///`
comment above it a CS1591 warning. Like MSBuild it prints each diagnostic where it occurs
and again in the summary, once per target framework of a multi-targeted project.

Environment knobs for the process tests: FAKE_DOTNET_SLEEP (seconds to hang, after starting
a child process that hangs too), FAKE_DOTNET_PIDS (file to write both pids to) and
FAKE_DOTNET_ARGV (file to append each call's arguments to, NUL-separated, one call a line).
FAKE_DOTNET_TRX names TRX files (separated by os.pathsep) that `test --logger trx` copies
into its --results-directory, one per test project as the real logger writes them; without
it no TRX appears, as when a test platform ignores the logger.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path


def hang() -> None:
    seconds = float(os.environ["FAKE_DOTNET_SLEEP"])
    child = subprocess.Popen([sys.executable, "-c", f"import time; time.sleep({seconds})"])
    pids = os.environ.get("FAKE_DOTNET_PIDS")
    if pids:
        Path(pids).write_text(f"{os.getpid()} {child.pid}\n")
    print("MSBuild version 17.8.5+b5265ef37 for .NET", flush=True)
    time.sleep(seconds)


def target_file(target: str | None) -> Path | None:
    cwd = Path.cwd()
    if target:
        path = cwd / target
        return path if path.is_file() else None
    found = sorted(cwd.glob("*.sln")) or sorted(cwd.glob("*.csproj"))
    return found[0] if len(found) == 1 else None


def projects(file: Path) -> list[Path]:
    if file.suffix == ".sln":
        return [
            (file.parent / rel.replace("\\", "/")).resolve()
            for rel in re.findall(r'"([^"]+\.csproj)"', file.read_text())
        ]
    return [file.resolve()]


def frameworks(csproj: Path) -> list[str]:
    text = csproj.read_text()
    many = re.search(r"<TargetFrameworks>([^<]+)</TargetFrameworks>", text)
    if many:
        return [f.strip() for f in many.group(1).split(";") if f.strip()]
    return [""]


def diagnostics(csproj: Path) -> tuple[list[str], list[str]]:
    errors, warnings = [], []
    for source in sorted(csproj.parent.rglob("*.cs")):
        if {"bin", "obj"} & set(source.relative_to(csproj.parent).parts):
            continue
        lines = source.read_text().splitlines()
        for number, line in enumerate(lines, 1):
            for match in re.finditer(r"\.Patch\b", line):
                errors.append(
                    f"{source}({number},{match.start() + 2}): error CS1061: 'ChangedFile' does not "
                    "contain a definition for 'Patch' and no accessible extension method 'Patch' "
                    "accepting a first argument of type 'ChangedFile' could be found (are you "
                    "missing a using directive or an assembly reference?)"
                )
            member = re.match(r"\s*public\s+(?:\w+\s+)*?(\w+)\s*[({]", line)
            documented = number > 1 and lines[number - 2].strip().startswith("///")
            if member and not documented:
                warnings.append(
                    f"{source}({number},{line.index(member.group(1)) + 1}): warning CS1591: Missing "
                    f"XML comment for publicly visible type or member '{member.group(1)}'"
                )
    return errors, warnings


def write_trx(argv: list[str]) -> None:
    loggers = [argv[i + 1] for i, a in enumerate(argv[:-1]) if a in ("--logger", "-l")]
    if not any(logger.split(";")[0] == "trx" for logger in loggers) or "--results-directory" not in argv:
        return
    folder = Path(argv[argv.index("--results-directory") + 1])
    folder.mkdir(parents=True, exist_ok=True)
    for n, source in enumerate(p for p in os.environ.get("FAKE_DOTNET_TRX", "").split(os.pathsep) if p):
        # the logger's own naming: user, machine, time to the millisecond
        shutil.copyfile(source, folder / f"dev_buildhost_2026-11-30_11_08_2{n}.{100 + n}.trx")


def main(argv: list[str]) -> int:
    if os.environ.get("FAKE_DOTNET_ARGV"):
        with open(os.environ["FAKE_DOTNET_ARGV"], "a") as log:
            log.write("\0".join(argv) + "\n")
    if os.environ.get("FAKE_DOTNET_SLEEP"):
        hang()
        return 1
    command = argv[0] if argv else ""
    target = next((a for a in argv[1:] if not a.startswith("-")), None)
    if "--filter" in argv:
        target = next((a for a in argv[1:argv.index("--filter")] if not a.startswith("-")), None)
    file = target_file(target)
    if file is None:
        print("MSBUILD : error MSB1009: Project file does not exist.")
        print(f"Switch: {target}")
        return 1
    print("MSBuild version 17.8.5+b5265ef37 for .NET")
    print("  Determining projects to restore...")
    print("  All projects are up-to-date for restore.")
    for extra in Path.cwd().glob("echo-during-build.txt"):
        # Stands for an Exec task that prints a config file, as deploy scripts do.
        print(extra.read_text().rstrip())
    all_errors, all_warnings = [], []
    for csproj in projects(file):
        errors, warnings = diagnostics(csproj)
        for framework in frameworks(csproj):
            suffix = f"::TargetFramework={framework}" if framework else ""
            tagged_w = [f"{w} [{csproj}{suffix}]" for w in warnings]
            tagged_e = [f"{e} [{csproj}{suffix}]" for e in errors]
            print("\n".join(tagged_w + tagged_e))
            all_errors += tagged_e
            all_warnings += tagged_w
            if not errors:
                tf = framework or "net8.0"
                print(f"  {csproj.stem} -> {csproj.parent}/bin/Debug/{tf}/{csproj.stem}.dll")
    print()
    if all_errors:
        print("Build FAILED.\n")
    else:
        print("Build succeeded.\n")
    print("\n".join(all_warnings + all_errors))
    print(f"    {len(all_warnings)} Warning(s)")
    print(f"    {len(all_errors)} Error(s)")
    print("\nTime Elapsed 00:00:01.93")
    if all_errors:
        return 1
    if command == "test":
        names = []
        for csproj in projects(file):
            for source in csproj.parent.rglob("*Tests.cs"):
                names += re.findall(r"\[Fact\]\s*public void (\w+)", source.read_text())
        failing = [n for n in names if "Fails" in n]
        for name in failing:
            print(f"  Failed {name} [12 ms]")
            print("  Error Message:")
            print("   Assert.Equal() Failure: Values differ")
        write_trx(argv)
        verdict = "Failed!" if failing else "Passed!"
        print(
            f"{verdict}  - Failed: {len(failing):>5}, Passed: {len(names) - len(failing):>5}, "
            f"Skipped:     0, Total: {len(names):>5}, Duration: 31 ms - Shop.Tests.dll (net8.0)"
        )
        return 1 if failing else 0
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
