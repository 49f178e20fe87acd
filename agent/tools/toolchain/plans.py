"""Which toolchain builds a repository, and the exact commands for build and test.

Detection looks at marker files only, so it needs no toolchain installed. .NET comes first
because a .NET repository often carries a package.json (a web front end) or Python scripts
next to its solution, and the solution is what the developer means by "the build".
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent.tools.base import ToolInputError
from agent.tools.paths import resolve_in_repository
from agent.tools.toolchain import python_environments, report_requests
from agent.tools.toolchain.python_environments import PythonEnv
from agent.tools.toolchain.summary import Report
from agent.tools.toolchain.user_environment import user_environment

# Output and dependency folders: never where the projects the developer edits live.
SKIP_DIRS = {
    ".git", "bin", "obj", "node_modules", ".venv", "venv", "target", "dist", "build",
    "__pycache__", ".tox", ".mypy_cache", ".pytest_cache", "packages", ".idea", ".vs",
}
DOTNET_SOLUTIONS = (".sln", ".slnx")
DOTNET_PROJECTS = (".csproj", ".fsproj", ".vbproj")
SEARCH_DEPTH = 4
NPM_PLACEHOLDER_TEST = "no test specified"

# Parse-friendly, non-interactive output from every tool; nothing waits on a terminal.
COMMON_ENV = {
    "NO_COLOR": "1",
    "FORCE_COLOR": "0",
    "TERM": "dumb",
    "CI": "1",  # jest and vitest would otherwise start in watch mode and never exit
    "DOTNET_CLI_TELEMETRY_OPTOUT": "1",
    "DOTNET_NOLOGO": "1",
    "DOTNET_CLI_UI_LANGUAGE": "en",
    "MSBUILDTERMINALLOGGER": "off",  # the live logger rewrites lines; the classic one is parseable
    "MSBUILDDISABLENODEREUSE": "1",  # worker nodes would outlive the build and hold its pipe
    # MSBuild reads the environment as properties: no compiler server left holding the pipe
    # (the process runner would kill it after a grace period, making every build pay for it).
    "UseSharedCompilation": "false",
    "CARGO_TERM_COLOR": "never",
    "PYTHONUNBUFFERED": "1",
    "GIT_TERMINAL_PROMPT": "0",
}

# The Python "build": compile every source in memory, so a syntax error anywhere is found
# without writing __pycache__ into the developer's tree.
PY_COMPILE = r"""
import os, sys
skip = set(sys.argv[2].split(","))
root = sys.argv[1]
bad = 0
count = 0
walk = [(os.path.dirname(root), [], [os.path.basename(root)])] if os.path.isfile(root) else os.walk(root)
for folder, dirs, files in walk:
    dirs[:] = sorted(d for d in dirs if d not in skip and not d.startswith("."))
    for name in sorted(files):
        if not name.endswith(".py"):
            continue
        path = os.path.join(folder, name)
        count += 1
        try:
            with open(path, "rb") as f:
                compile(f.read(), path, "exec", dont_inherit=True)
        except SyntaxError as e:
            bad += 1
            rel = os.path.relpath(path)
            print(f"{rel}:{e.lineno or 1}:{e.offset or 1}: error: {type(e).__name__}: {e.msg}")
        except (ValueError, OSError) as e:
            bad += 1
            print(f"{os.path.relpath(path)}:1:1: error: {e}")
print(f"compiled {count} Python files, {bad} with errors")
sys.exit(1 if bad else 0)
"""


@dataclass
class Step:
    argv: list[str]
    label: str
    style: str = "msbuild"  # how diagnostics.parse_diagnostics reads its output
    optional_module: str | None = None  # a missing module here is a note, not a failure
    output_format: str | None = None  # "go-json": the output is a report; its text is inside

    def command_line(self) -> str:
        """The command as it really runs, for the log's `$` line: the label is the short name
        the model reads, and `$ pytest` over a run of `uv run --frozen python -m pytest -q`
        would send a user who copies it to a different interpreter. A configured command is
        shown as written (it runs under /bin/sh -c); a script passed as an argument is named
        by its length, not printed."""
        if self.argv[:2] == ["/bin/sh", "-c"] and len(self.argv) == 3:
            return self.argv[2]
        return " ".join(
            f"<{arg.count(chr(10)) + 1}-line script>" if "\n" in arg else shlex.quote(arg) for arg in self.argv
        )


@dataclass
class Plan:
    toolchain: str
    steps: list[Step]
    results: str | None = None  # which test summary reader applies
    notes: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=lambda: dict(COMMON_ENV))
    environment: str | None = None  # the repository's Python environment, for the tool line
    report: Report | None = None  # the machine-readable report the runner was asked for
    report_folder: str | None = None  # made for the report; removed after the run


def _walk(repo: Path, suffixes: tuple[str, ...], depth: int = SEARCH_DEPTH) -> list[Path]:
    found: list[Path] = []
    root_depth = len(repo.parts)
    for folder, dirs, files in os.walk(repo):
        here = Path(folder)
        if len(here.parts) - root_depth >= depth:
            dirs[:] = []
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith("."))
        found += [here / f for f in sorted(files) if f.lower().endswith(suffixes)]
    return found


def detect(repo: Path) -> str | None:
    """"dotnet", "python", "node", "rust", "go" or None, from marker files alone."""
    if _walk(repo, DOTNET_SOLUTIONS + DOTNET_PROJECTS, depth=3):
        return "dotnet"
    if any((repo / m).exists() for m in ("pyproject.toml", "setup.py", "setup.cfg", "pytest.ini", "tox.ini", "requirements.txt")):
        return "python"
    if (repo / "package.json").is_file():
        return "node"
    if (repo / "Cargo.toml").is_file():
        return "rust"
    if (repo / "go.mod").is_file():
        return "go"
    if any(repo.glob("*.py")) or any((repo / "tests").glob("*.py")):
        return "python"
    return None


NAMES = {"dotnet": ".NET", "python": "Python", "node": "Node", "rust": "Rust", "go": "Go", "custom": "configured command"}


def _check_argument(value: str | None, what: str) -> str | None:
    if value is None:
        return None
    value = value.strip()
    if not value:
        return None
    # Everything goes into argv without a shell; a leading dash would still be read as an option.
    if value.startswith("-"):
        raise ToolInputError(f"Error: {what} may not start with '-': {value!r}.")
    if "\0" in value or "\n" in value:
        raise ToolInputError(f"Error: {what} contains a control character.")
    return value


def _relative(path: Path, repo: Path) -> str:
    return path.relative_to(repo.resolve()).as_posix()


# ---- .NET -------------------------------------------------------------------------------


def dotnet_target(repo: Path, project: str | None) -> str:
    """The solution or project to hand to dotnet, relative to the repository root."""
    root = repo.resolve()
    if project:
        looks_like_path = "/" in project or project.lower().endswith(DOTNET_SOLUTIONS + DOTNET_PROJECTS)
        if looks_like_path or (root / project).exists():
            full = resolve_in_repository(project, repo)
            if full.is_dir():
                inside = sorted(p for p in full.iterdir() if p.suffix.lower() in DOTNET_SOLUTIONS + DOTNET_PROJECTS)
                if len(inside) == 1:
                    return _relative(inside[0], repo)
                if not inside:
                    raise ToolInputError(f"Error: {project} holds no solution or project file.")
                raise ToolInputError(f"Error: {project} holds several: {', '.join(p.name for p in inside)}. Name one.")
            if not full.exists():
                raise ToolInputError(f"Error: there is no {project} in the repository.")
            return _relative(full, repo)
        wanted = project.lower()
        candidates = _walk(root, DOTNET_SOLUTIONS + DOTNET_PROJECTS)
        matches = [p for p in candidates if p.stem.lower() == wanted]
        if not matches:
            # "Core" for "ClaudeReviewBot.Core": developers say the last part of the name.
            matches = [p for p in candidates if p.stem.lower().endswith("." + wanted)]
        projects = [p for p in matches if p.suffix.lower() in DOTNET_PROJECTS] or matches
        if len(projects) == 1:
            return _relative(projects[0], repo)
        names = ", ".join(_relative(p, repo) for p in (projects or candidates)[:20])
        if not projects:
            raise ToolInputError(f"Error: no project called {project}. The repository has: {names}.")
        raise ToolInputError(f"Error: {project} matches several: {names}. Give the path of one.")
    for suffixes in (DOTNET_SOLUTIONS, DOTNET_PROJECTS):
        here = sorted(p for p in root.iterdir() if p.is_file() and p.suffix.lower() in suffixes)
        if len(here) == 1:
            return here[0].name
        if len(here) > 1:
            raise ToolInputError(
                f"Error: the repository root holds several: {', '.join(p.name for p in here)}. Pass one as project."
            )
    for suffixes in (DOTNET_SOLUTIONS, DOTNET_PROJECTS):
        deeper = _walk(root, suffixes)
        if len(deeper) == 1:
            return _relative(deeper[0], repo)
        if len(deeper) > 1:
            names = ", ".join(_relative(p, repo) for p in deeper[:20])
            raise ToolInputError(f"Error: no solution at the root and several to choose from: {names}. Pass one as project.")
    raise ToolInputError("Error: no .NET solution or project file found in the repository.")


def dotnet_plan(repo: Path, kind: str, project: str | None, test_filter: str | None) -> Plan:
    target = dotnet_target(repo, project)
    argv = ["dotnet", kind, target, "-nologo"]
    label = f"dotnet {kind} {target}"
    if kind != "test":
        return Plan("dotnet", [Step(argv, label)])
    if test_filter:
        argv += ["--filter", test_filter]
    folder = report_requests.report_folder()
    extra, report = report_requests.dotnet_args(folder, str(repo))
    step = Step(argv + extra, label)
    return Plan("dotnet", [step], results="dotnet", report=report, report_folder=folder if report else None)


# ---- Python -----------------------------------------------------------------------------


def python_env(repo: Path) -> PythonEnv:
    """The repository's own Python environment, found from the user's environment."""
    return python_environments.find(repo, user_environment())


def _ini_has(path: Path, section: str) -> bool:
    try:
        return re.search(rf"^\[{re.escape(section)}\]", path.read_text(encoding="utf-8", errors="replace"), re.M) is not None
    except OSError:
        return False


def configured_type_checker(repo: Path) -> str | None:
    """"mypy" or "pyright" when the project configures one; a build runs only what is asked for."""
    tool = python_environments.pyproject(repo).get("tool", {})
    if "mypy" in tool or (repo / "mypy.ini").is_file() or (repo / ".mypy.ini").is_file() or _ini_has(repo / "setup.cfg", "mypy"):
        return "mypy"
    if "pyright" in tool or (repo / "pyrightconfig.json").is_file():
        return "pyright"
    return None


def _python_plan_env(found: PythonEnv) -> dict[str, str]:
    return {**COMMON_ENV, **found.env}


def pytest_node_ids(test_filter: str, repo: Path) -> list[str]:
    """The filter as pytest node ids (tests/a.py::TestB::test_c[x]), as the test tool reports
    failures, or [] when it is a -k expression. Several may be given, separated by spaces; a
    space inside a parameter (test_c[a b]) stays in its id. Each file must be in the repository."""
    if "::" not in test_filter and not re.search(r"\.py(\s|$)", test_filter):
        return []
    ids: list[str] = []
    for word in test_filter.split():
        if ids and "::" not in word and not word.endswith(".py"):
            ids[-1] += " " + word
        else:
            ids.append(word)
    for node_id in ids:
        path = node_id.split("::", 1)[0]
        if not path.endswith(".py"):
            raise ToolInputError(
                f"Error: {node_id!r} is neither a pytest node id (path/to/test_x.py::TestClass::test_name) nor a -k expression."
            )
        full = resolve_in_repository(path, repo)
        if not full.is_file():
            raise ToolInputError(f"Error: there is no test file {path} in the repository.")
    return ids


def python_plan(repo: Path, kind: str, project: str | None, test_filter: str | None) -> Plan:
    found = python_env(repo)
    target = "."
    if project:
        target = _relative(resolve_in_repository(project, repo), repo) or "."
    notes = list(found.notes)
    if kind == "test":
        argv = found.pytest + ["-q", "-rfE", "--color=no", "-p", "no:cacheprovider"]
        if project:
            argv.append(target)
        node_ids = pytest_node_ids(test_filter, repo) if test_filter else []
        if node_ids:
            argv += node_ids
        elif test_filter:
            argv += ["-k", test_filter]
        if not found.passes_arguments and (project or test_filter):
            notes.append("The tox configuration passes no {posargs} to its commands, so the project and filter were not used.")
        folder = report_requests.report_folder()
        extra, report = report_requests.pytest_args(folder, str(repo))
        step = Step(argv + extra, "pytest" + (f" {target}" if project else ""), style="colon", optional_module="pytest")
        # Wide enough that pytest's short summary does not cut the reasons it prints.
        env = {**_python_plan_env(found), "COLUMNS": "200"}
        return Plan("python", [step], results="pytest", notes=notes, env=env, environment=found.label, report=report, report_folder=folder)
    python = found.python
    steps = [Step(python + ["-c", PY_COMPILE, target, ",".join(sorted(SKIP_DIRS))], f"compile {target}", style="colon")]
    checker = configured_type_checker(repo)
    if checker == "mypy":
        argv = python + ["-m", "mypy", "--no-color-output", "--no-error-summary", "--show-column-numbers"]
        tool = python_environments.pyproject(repo).get("tool", {}).get("mypy", {})
        if project or not tool.get("files"):
            argv.append(target)
        steps.append(Step(argv, f"mypy {target}", style="colon", optional_module="mypy"))
    elif checker == "pyright":
        env = _python_plan_env(found)
        exe = shutil.which("pyright", path=env.get("PATH") or user_environment().get("PATH"))
        argv = [exe] if exe else python + ["-m", "pyright"]
        if project:
            argv.append(target)
        steps.append(Step(argv, "pyright" + (f" {target}" if project else ""), style="colon", optional_module="pyright"))
    return Plan("python", steps, notes=notes, env=_python_plan_env(found), environment=found.label)


# ---- Node, Rust, Go ---------------------------------------------------------------------


def node_plan(repo: Path, kind: str, project: str | None, test_filter: str | None) -> Plan:
    try:
        package = json.loads((repo / "package.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ToolInputError(f"Error: package.json could not be read ({exc}).") from exc
    scripts = package.get("scripts") if isinstance(package, dict) else None
    scripts = scripts if isinstance(scripts, dict) else {}
    script = scripts.get(kind)
    if not isinstance(script, str) or (kind == "test" and NPM_PLACEHOLDER_TEST in script):
        have = ", ".join(sorted(scripts)) or "none"
        raise ToolInputError(f"Error: package.json has no {kind} script (scripts: {have}).")
    argv = ["npm", "run", kind]
    if project:
        argv += ["--workspace", project]
    label = " ".join(argv[:3]) + (f" ({project})" if project else "")
    if kind != "test":
        return Plan("node", [Step(argv, label, style="colon")])
    runner = report_requests.node_runner(script)
    folder = report_requests.report_folder()
    extra, env, report = report_requests.node_args(script, runner, folder, str(repo))
    # Jest and Vitest both read a trailing positional as a test file/name pattern.
    extra = ([test_filter] if test_filter else []) + extra
    if extra:
        argv += ["--", *extra]
    plan = Plan("node", [Step(argv, label, style="colon")], results=runner or "node", report=report, report_folder=folder)
    plan.env.update(env)
    return plan


def rust_plan(repo: Path, kind: str, project: str | None, test_filter: str | None) -> Plan:
    argv = ["cargo", kind, "--message-format=short", "--color", "never"]
    if project:
        argv += ["-p", project]
    if kind == "test" and test_filter:
        argv.append(test_filter)
    return Plan("rust", [Step(argv, f"cargo {kind}" + (f" -p {project}" if project else ""), style="colon")], results="cargo" if kind == "test" else None)


def go_plan(repo: Path, kind: str, project: str | None, test_filter: str | None) -> Plan:
    pattern = "./..."
    if project:
        if not re.fullmatch(r"[\w./-]+", project) or any(p == ".." for p in project.split("/")):
            raise ToolInputError(f"Error: {project!r} is not a package path like ./cmd/app or ./internal/...")
        pattern = project if project.startswith(".") else "./" + project
    if kind != "test":
        return Plan("go", [Step(["go", kind, pattern], f"go {kind} {pattern}", style="go")])
    argv = ["go", "test", "-json", pattern] + (["-run", test_filter] if test_filter else [])
    folder = report_requests.report_folder()
    step = Step(argv, f"go test {pattern}", style="go", output_format="go-json")
    return Plan("go", [step], results="go", report=report_requests.go_report(folder, str(repo)), report_folder=folder)


PLANNERS = {"dotnet": dotnet_plan, "python": python_plan, "node": node_plan, "rust": rust_plan, "go": go_plan}


def override_plan(command: str, detected: str | None, kind: str, project: str | None, test_filter: str | None) -> Plan:
    """The user's own command from the config file. It is the user's text, so it runs in a shell."""
    notes = []
    values = {"project": project or "", "filter": test_filter or ""}
    text = command
    for name, value in values.items():
        if "{" + name + "}" in text:
            text = text.replace("{" + name + "}", shlex.quote(value) if value else "")
        elif value:
            notes.append(f"The configured {kind} command has no {{{name}}} placeholder, so {name} {value!r} was not used.")
    style = {"python": "colon", "node": "colon", "rust": "colon", "go": "go"}.get(detected or "", "msbuild")
    results = {"dotnet": "dotnet", "python": "pytest", "rust": "cargo", "go": "go", "node": "node"}.get(detected or "") if kind == "test" else None
    return Plan("custom", [Step(["/bin/sh", "-c", text], text, style=style)], results=results, notes=notes)


def plan(repo: Path, kind: str, project: str | None, test_filter: str | None, config: Any) -> Plan:
    """The commands for `kind` ("build" or "test"); ToolInputError when there is nothing to run."""
    project = _check_argument(project, "project")
    test_filter = _check_argument(test_filter, "filter")
    detected = detect(repo)
    override = getattr(config, f"{kind}_command", None) if config is not None else None
    if isinstance(override, str) and override.strip():
        return override_plan(override.strip(), detected, kind, project, test_filter)
    if detected is None:
        raise NothingToRun(repo, kind)
    return PLANNERS[detected](repo, kind, project, test_filter)


class NothingToRun(Exception):
    """The repository has no toolchain devagent knows and no configured command: nothing the
    model sent was wrong, so this is no bad input; the text says how the user sets one."""

    def __init__(self, repo: Path, kind: str) -> None:
        from agent.settings.config import config_file

        self.summary = "nothing to build" if kind == "build" else "no tests to run"
        example = "make" if kind == "build" else "make check"
        super().__init__(
            f"There is nothing to {'build' if kind == 'build' else 'test'} here: no build system "
            "recognised in the repository (looked for .NET solutions and projects, pyproject.toml "
            "or setup.py, package.json, Cargo.toml and go.mod), and no "
            f"{kind} command is configured for it. Tell the user they can set one in "
            f"{config_file()}:\n[repos.{_toml_key(str(repo))}]\n{kind} = \"{example}\""
        )


def _toml_key(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
