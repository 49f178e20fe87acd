"""build and test: run the repository's toolchain and hand the model a digest, not a log.

A .NET build log runs to thousands of lines, most of them one warning repeated; the model
gets the errors first with file, line and code, warnings counted by code, and a note where
anything was cut. The full log travels in ToolResult.log for the screen pane.

A build that runs and fails is a successful tool call (is_error=False): the failure is the
answer. is_error is kept for calls that could not produce an answer: bad input, a missing
toolchain, a timeout, a cancelled turn.
"""

from __future__ import annotations

import os
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent.events import ToolOutcome
from agent.tools.base import ToolContext, ToolInputError, ToolResult, optional_str
from agent.tools.guard import guarded
from agent.tools.masking import Masked, mask_text, masking_note
from agent.tools.toolchain import log_noise, plans, sandbox
from agent.tools.toolchain.diagnostics import DiagnosticKey, Report, parse_diagnostics
from agent.tools.toolchain.processes import Outcome, run_command
from agent.tools.toolchain.python_environments import EnvironmentMissing
from agent.tools.toolchain.report_files import go_console
from agent.tools.toolchain.summary import MAX_FAILURES, TestSummary
from agent.tools.toolchain.summary_readers import read as read_tests

DEFAULT_TIMEOUT = 600.0
MAX_TEXT_CHARS = 6_000
TAIL_LINES = 25


def timeout_for(config: Any, kind: str) -> float:
    """Seconds a build or test may take: `<kind>_timeout` on the config or in its extras."""
    for source in (config, getattr(config, "extra", None)):
        if source is None:
            continue
        for name in (f"{kind}_timeout", "tool_timeout"):
            value = source.get(name) if isinstance(source, dict) else getattr(source, name, None)
            if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0:
                return float(value)
    return DEFAULT_TIMEOUT


def _seconds(value: float) -> str:
    return f"{value:.1f} s" if value < 120 else f"{value / 60:.1f} min"


def _tail(log: str, count: int = TAIL_LINES) -> list[str]:
    lines = [line for line in log.splitlines() if line.strip()]
    return lines[-count:]


def _cap(text: str) -> str:
    if len(text) <= MAX_TEXT_CHARS:
        return text
    cut = text[:MAX_TEXT_CHARS].rsplit("\n", 1)[0]
    return cut + "\n[... cut here: the full log has the rest.]"


class _Runner:
    kind = "build"
    name = "build"

    def run(self, input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        return guarded(self.name, lambda: self._run(input, ctx))

    def summarize_input(self, input: dict[str, Any]) -> str:
        if not isinstance(input, dict):
            return self.kind
        parts = [str(input.get("project") or "")]
        if self.kind == "test" and input.get("filter"):
            parts.append(f"filter {input.get('filter')}")
        text = " ".join(p for p in parts if p).strip()
        return text[:80] or ("whole repository" if self.kind == "build" else "all tests")

    def _run(self, input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        if not isinstance(input, dict):
            raise ToolInputError("Error: the input must be an object.")
        project = optional_str(input, "project")
        test_filter = optional_str(input, "filter") if self.kind == "test" else None
        repo = Path(ctx.repo)
        if not repo.is_dir():
            return ToolResult(text=f"Error: the repository folder {repo} does not exist.", is_error=True, summary="no folder")
        try:
            plan = plans.plan(repo, self.kind, project, test_filter, ctx.config)
        except (plans.NothingToRun, EnvironmentMissing) as nothing:
            return ToolResult(text=str(nothing), is_error=True, summary=nothing.summary, outcome=ToolOutcome.EMPTY)
        # A command the user configured for this repository was written by the user for it;
        # what devagent chose to run is asked about, with the plan made, so that what the
        # user is shown is exactly what runs.
        if ctx.consent is not None and plan.toolchain != "custom":
            from agent.events import CodeRun

            commands = tuple(step.command_line() for step in plan.steps)
            refused = ctx.consent.may_run(CodeRun(self.kind, commands, repo, plan.environment))
            if refused is not None:
                return ToolResult(text=refused, is_error=True, summary="not run: repository not trusted",
                                  outcome=ToolOutcome.CANCELLED, outside_text=False)
        timeout = timeout_for(ctx.config, self.kind)
        return self._execute(plan, repo, ctx, timeout)

    def _execute(self, plan: plans.Plan, repo: Path, ctx: ToolContext, timeout: float) -> ToolResult:
        if plan.report_folder is None:
            return self._steps(plan, repo, ctx, timeout)
        try:
            os.mkdir(plan.report_folder, 0o700)
        except OSError:
            plan.report = None  # no report then: the console is read
        try:
            return self._steps(plan, repo, ctx, timeout)
        finally:
            shutil.rmtree(plan.report_folder, ignore_errors=True)

    def _steps(self, plan: plans.Plan, repo: Path, ctx: ToolContext, timeout: float) -> ToolResult:
        chunks: list[str] = []
        outcomes: list[tuple[plans.Step, Outcome]] = []
        notes = list(plan.notes)
        spent = 0.0
        box = _sandbox(plan, repo, ctx, notes)
        for step in plan.steps:
            try:
                # the working folder is the session's root descriptor: what took the path's place is not it
                outcome = run_command(step.argv, ctx.base, timeout=max(1.0, timeout - spent), cancel=ctx.cancel, env=plan.env,
                                      sandbox=box)
            except FileNotFoundError:
                program = Path(step.argv[0]).name
                if step.optional_module:
                    notes.append(f"{step.optional_module} is configured but {program} was not found, so it did not run.")
                    continue
                return ToolResult(
                    text=f"Error: {program} is not installed on this machine (not found on PATH), so the {self.kind} could not run.",
                    is_error=True,
                    summary=f"no {program}",
                )
            except PermissionError:
                return ToolResult(
                    text=f"Error: {step.argv[0]} is not executable, so the {self.kind} could not run.",
                    is_error=True,
                    summary="not executable",
                )
            spent += outcome.duration
            if step.optional_module and re.search(rf"No module named '?{re.escape(step.optional_module)}\b", outcome.output):
                where = _where(plan, step)
                notes.append(f"{step.optional_module} is configured but not installed for {where}, so it did not run.")
                if step.optional_module == "pytest":
                    return ToolResult(text=f"Error: pytest is not installed for {where}, so the tests could not run.", is_error=True, summary="no pytest")
                continue
            output = outcome.output
            if step.output_format == "go-json":
                output = _keep_go_report(plan, output)
            chunks.append(f"$ {step.command_line()}\n{log_noise.clean(output).rstrip()}\n")
            outcomes.append((step, outcome))
            if outcome.cancelled or outcome.timed_out:
                break
        # Each step is masked on its own, with its line numbers counted in the joined log.
        masked_chunks: list[str] = []
        hits: list[Masked] = []
        offset = 0
        for chunk in chunks:
            masked, found = mask_text(chunk, "output line", line_offset=offset)
            masked_chunks.append(masked)
            hits += found
            offset += chunk.count("\n") + 1
        return self._digest(plan, outcomes, masked_chunks, notes, hits, repo, timeout)

    def _digest(
        self,
        plan: plans.Plan,
        outcomes: list[tuple[plans.Step, Outcome]],
        chunks: list[str],
        notes: list[str],
        hits: list[Masked],
        repo: Path,
        timeout: float,
    ) -> ToolResult:
        log = "\n".join(chunks)
        name = plans.NAMES.get(plan.toolchain, plan.toolchain)
        if plan.environment:
            name += f" ({plan.environment})"
        what = f"{name}: " + "; ".join(s.label[:120] for s, _ in outcomes)
        duration = sum(o.duration for _, o in outcomes)
        note = masking_note(hits)
        if any(o.cancelled for _, o in outcomes):
            text = f"The {self.kind} was cancelled ({what}); its processes were stopped."
            return ToolResult(text=_join(text, [note]), is_error=True, summary="cancelled", log=log, outcome=ToolOutcome.CANCELLED)
        if any(o.timed_out for _, o in outcomes):
            tail = "\n".join(_tail(log, 10))
            text = (f"The {self.kind} did not finish within {_seconds(timeout)} and was stopped ({what}). "
                    f"Last lines of its output:\n{tail}")
            return ToolResult(text=_join(text, [note]), is_error=True, summary="timed out", log=log, outcome=ToolOutcome.ERROR)

        diagnostics = []
        seen: set[DiagnosticKey] = set()
        for (step, _), section in zip(outcomes, chunks):
            for diagnostic in parse_diagnostics(section, repo, style=step.style):
                if diagnostic.key() not in seen:
                    seen.add(diagnostic.key())
                    diagnostics.append(diagnostic)
        report = Report.of(diagnostics)
        codes = ", ".join(str(o.returncode) for _, o in outcomes if o.returncode != 0)
        ran = _Ran(what, f"exit code {codes}, " if codes else "", _seconds(duration), bool(codes))
        if self.kind == "build":
            verdict = _build_verdict(report, ran)
        else:
            verdict = _test_verdict(read_tests(plan.results, log, plan.report), report, ran)
            notes += verdict.notes
        lines = verdict.lines + report.lines()
        if ran.failed and not report.errors and not verdict.listed:
            lines.append("Last lines of the output:")
            lines += [f"  {line}" for line in _tail(log)]
        text = _cap("\n".join(lines))
        # The tool line says which environment ran it: devagent's own must never pass for the repository's.
        summary = f"{verdict.summary} · {plan.environment}" if plan.environment else verdict.summary
        return ToolResult(text=_join(text, notes + [note]), summary=summary, log=log, outcome=verdict.outcome)


@dataclass
class _Ran:
    what: str  # toolchain and commands
    status: str  # "exit code 1, " or ""
    took: str
    failed: bool  # some step exited non-zero


@dataclass
class _Verdict:
    lines: list[str]
    summary: str
    outcome: ToolOutcome
    listed: bool = False  # the failures are named, so the log's tail adds nothing
    notes: list[str] = field(default_factory=list)


def _build_verdict(report: Report, ran: _Ran) -> _Verdict:
    failed = ran.failed or bool(report.errors)
    head = f"Build {'failed' if failed else 'succeeded'} ({ran.what}; {ran.status}{ran.took}): {report.counts()}."
    if not failed:
        w = len(report.warnings)
        return _Verdict([head], f"ok, {w} warning{'s' if w != 1 else ''}", ToolOutcome.OK)
    # A build that failed without a diagnostic the parser knows still failed: say how.
    summary = report.counts() if report.errors else f"failed ({ran.status.rstrip(', ')})"
    return _Verdict([head], summary, ToolOutcome.FAILED)


def _test_verdict(tests: TestSummary | None, report: Report, ran: _Ran) -> _Verdict:
    where = f"({ran.what}; {ran.status}{ran.took})"
    if tests is not None and tests.seen:
        outcome = tests.outcome(ran.failed)
        word = {ToolOutcome.OK: "Tests passed", ToolOutcome.EMPTY: "No tests ran"}.get(outcome, "Tests failed")
        verdict = _Verdict([f"{word} {where}: {tests.counts()}."], tests.counts(), outcome)
    elif report.errors:
        head = f"Tests did not run: the build failed {where}: {report.counts()}."
        verdict = _Verdict([head], f"{report.counts()}, tests did not run", ToolOutcome.ERROR)
    elif ran.failed:
        verdict = _Verdict([f"Tests failed {where}; no test summary was found in the output."], "failed", ToolOutcome.FAILED)
    else:
        verdict = _Verdict([f"Tests finished {where}; no test summary was found in the output."], "finished", ToolOutcome.OK)
    if tests is not None:
        for title, entries in (("Errors (these could not run):", tests.errored), ("Failed tests:", tests.failures)):
            if not entries:
                continue
            verdict.lines.append(title)
            verdict.lines += [f"  {f}" for f in entries[:MAX_FAILURES]]
            if len(entries) > MAX_FAILURES:
                verdict.lines.append(f"  ... {len(entries) - MAX_FAILURES} more not listed (cut here; the full log has them).")
            verdict.listed = True
        verdict.notes += tests.notes
    return verdict


def _sandbox(plan: plans.Plan, repo: Path, ctx: ToolContext, notes: list[str]) -> sandbox.Sandbox | None:
    """The sandbox the steps run in (agent.tools.toolchain.sandbox): the repository and the
    report folder writable, the network only where the user's config allows it for this
    repository. Where bubblewrap cannot run, the steps run as the user, and the result says so."""
    unavailable = sandbox.available()
    if unavailable is not None:
        notes.append(f"It ran without a sandbox, with the user's own access: {unavailable}.")
        return None
    writable = (Path(plan.report_folder),) if plan.report_folder and os.path.isdir(plan.report_folder) else ()
    return sandbox.Sandbox(repo, network=getattr(ctx.config, "network", False) is True, writable=writable)


def _keep_go_report(plan: plans.Plan, output: str) -> str:
    """go test -json: the events are the report; the console text inside them is the log."""
    if plan.report is not None:
        try:
            with open(plan.report.path, "w", encoding="utf-8") as handle:
                handle.write(output)
        except OSError:
            plan.report = None
    return go_console(output)


def _where(plan: plans.Plan, step: plans.Step) -> str:
    """The interpreter a module was missing from, as the user would name it."""
    if plan.environment in ("uv's .venv", "poetry run"):
        return f"the repository's {plan.environment} environment"
    return step.argv[0]


def _join(text: str, notes: list[str]) -> str:
    notes = [n for n in notes if n]
    return text + ("\n\n" + "\n".join(notes) if notes else "")


PROJECT_DESCRIPTION = "Instead of the whole repository: a solution, project, folder, package or workspace."


class BuildTool(_Runner):
    kind = "build"
    name = "build"

    def definition(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": (
                "Build with the repository's own toolchain (.NET, Python with its type checker, "
                "Node, Rust, Go): errors with file, line and code, warnings counted by code."
            ),
            "input_schema": {
                "type": "object",
                "properties": {"project": {"type": "string", "description": PROJECT_DESCRIPTION}},
            },
        }


class RunTestsTool(_Runner):
    kind = "test"
    name = "test"

    def definition(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": (
                "Run the tests with the repository's own toolchain and environment: the counts, "
                "each failed test by the id filter takes, files that could not run, and build errors."
            ),
            "input_schema": {
                "type": "object",
                "properties": {
                    "project": {"type": "string", "description": PROJECT_DESCRIPTION},
                    "filter": {
                        "type": "string",
                        "description": (
                            "Which tests, in the runner's syntax: pytest node ids or -k "
                            "expression, dotnet --filter, a cargo or Jest name pattern, go -run regexp."
                        ),
                    },
                },
            },
        }
