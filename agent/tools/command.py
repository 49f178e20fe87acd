"""run_command: one shell command the user approved, run in the sandbox.

The model gives the text and a one-line reason; it runs only once the repository is
trusted (agent.workspace_trust) and the user said yes to it (agent.command_consent), as
`/bin/sh -c TEXT` in bubblewrap (agent.tools.toolchain.sandbox), with the repository's own
`.venv/bin` and `node_modules/.bin` first on PATH: the repository writable,
nothing of the home but the toolchain caches, no network unless the user allowed it,
standard input empty. Its output streams to the screen pane as it comes (`CommandOutput`),
Esc or the time limit kills the sandbox's whole pid namespace, and the model gets the exit
code and the output, capped (its start and its end), masked and marked like every tool
result. The files it changed are recorded, with their content before, outside the
repository (agent.tools.toolchain.file_changes), for undo and rewind.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from typing import Any

from agent.events import CommandEnded, CommandOutput, CommandStarted, ToolOutcome
from agent.tools.base import ToolContext, ToolInputError, ToolResult, required_str
from agent.tools.guard import guarded
from agent.tools.masking import mask_text
from agent.tools.toolchain import file_changes, sandbox
from agent.tools.toolchain.processes import Outcome, run_command

DEFAULT_TIMEOUT = 600.0
MAX_COMMAND_CHARS = 4_000
MAX_REASON_CHARS = 300
HEAD_CHARS = 2_000
TAIL_CHARS = 4_000
MAX_LISTED_FILES = 30
# How often the screen pane hears of new output: a chatty command must not flood the app.
OUTPUT_EVERY = 0.1


class _Stream:
    """Hands complete lines of output on, masked, at most every OUTPUT_EVERY seconds."""

    def __init__(self, emit: Any, turn: int, run: str) -> None:
        self.emit, self.turn, self.run = emit, turn, run
        self.pending = b""
        self.sent = 0.0
        self.lock = threading.Lock()

    def __call__(self, chunk: bytes) -> None:
        with self.lock:
            self.pending += chunk
            if time.monotonic() - self.sent >= OUTPUT_EVERY and b"\n" in self.pending:
                whole, _, self.pending = self.pending.rpartition(b"\n")
                self._send(whole + b"\n")

    def flush(self) -> None:
        with self.lock:
            if self.pending:
                self._send(self.pending)
                self.pending = b""

    def _send(self, data: bytes) -> None:
        self.sent = time.monotonic()
        self.emit(CommandOutput(self.turn, self.run, mask_text(data.decode("utf-8", "replace"), "output line")[0]))


def _cap(output: str) -> str:
    if len(output) <= HEAD_CHARS + TAIL_CHARS:
        return output
    head = output[:HEAD_CHARS].rsplit("\n", 1)[0]
    tail = output[-TAIL_CHARS:].split("\n", 1)[-1]
    return f"{head}\n[... {len(output) - len(head) - len(tail):,} characters cut here; the screen pane has the whole output ...]\n{tail}"


def _seconds(value: float) -> str:
    return f"{value:.1f} s" if value < 120 else f"{value / 60:.1f} min"


def _timeout(config: Any) -> float:
    value = getattr(config, "command_timeout", None) or (getattr(config, "extra", None) or {}).get("command_timeout")
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0 else DEFAULT_TIMEOUT


class RunCommandTool:
    name = "run_command"

    def __init__(self) -> None:
        self.session_id = f"{time.strftime('%Y%m%d%H%M%S')}-{id(self):x}"

    def definition(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": (
                "Run one shell command in the repository once the user approves it (/bin/sh -c, in a sandbox: "
                "the repository writable, no network unless asked for, none of the user's home or keys). Use "
                "build and test where they fit."
            ),
            "input_schema": {
                "type": "object",
                "properties": {
                    "command": {"type": "string", "description": "The exact command, e.g. ruff format ."},
                    "reason": {"type": "string", "description": "One line: why, for the user."},
                    "network": {"type": "boolean", "description": "Only if it must reach the network."},
                },
                "required": ["command", "reason"],
            },
        }

    def summarize_input(self, input: dict[str, Any]) -> str:
        command = input.get("command") if isinstance(input, dict) else None
        return str(command)[:80] if command else "a command"

    def run(self, input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        return guarded(self.name, lambda: self._run(input, ctx), ctx.cancel)

    def _run(self, input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        command = required_str(input, "command").strip()
        reason = " ".join(required_str(input, "reason").split())[:MAX_REASON_CHARS]
        if len(command) > MAX_COMMAND_CHARS or "\0" in command:
            raise ToolInputError(f"Error: a command is one text of at most {MAX_COMMAND_CHARS:,} characters, without NUL.")
        network = input.get("network") is True
        repo = Path(ctx.repo)
        if not repo.is_dir():
            return ToolResult(text=f"Error: the repository folder {repo} does not exist.", is_error=True, summary="no folder")
        if ctx.commands is None:
            return _refused("Not run: commands cannot be approved here, so none runs.")
        if ctx.consent is not None:  # never before the repository is trusted
            from agent.events import CodeRun

            refused = ctx.consent.may_run(CodeRun("run_command", (command,), repo))
            if refused is not None:
                return _refused(refused)
        unsandboxed = sandbox.available()
        answer = ctx.commands.approve(command, reason, network, unsandboxed)
        if isinstance(answer, str):
            return _refused(answer, "declined" if "said no" in answer else "not run")
        request = f"run-{time.monotonic_ns()}"
        ctx.commands.emit(CommandStarted(ctx.turn, request, answer.command, answer.network, unsandboxed is None))
        notes = [answer.said(command)]
        if unsandboxed is not None:
            notes.append(f"It ran outside any sandbox, as the user allowed: {unsandboxed}.")
        before, why_not = _snapshot(repo)
        stream = _Stream(ctx.commands.emit, ctx.turn, request)
        outcome = run_command(["/bin/sh", "-c", answer.command], ctx.base, timeout=_timeout(ctx.config), cancel=ctx.cancel,
                              env=_project_path(repo),
                              sandbox=sandbox.Sandbox(repo, answer.network) if unsandboxed is None else None,
                              on_output=stream)
        stream.flush()
        ctx.commands.emit(CommandEnded(ctx.turn, request, _ended(outcome)))
        notes.append(self._changes(repo, answer.command, before, why_not, ctx))
        return _result(answer.command, outcome, notes)

    def _changes(self, repo: Path, command: str, before: str | None, why_not: str, ctx: ToolContext) -> str:
        after, why_after = _snapshot(repo) if before is not None else (None, why_not)
        if before is None or after is None:
            return f"Which files it changed is not known ({why_after}), so undo and rewind cannot put them back."
        try:
            found = file_changes.record(repo, command, before, after, turn=ctx.turn, session=self.session_id)
        except (OSError, file_changes.SnapshotFailed) as error:
            return f"Which files it changed could not be recorded ({error})."
        if not found.files:
            return "It changed no file in the repository."
        _checkpoint(found, ctx)
        listed = ", ".join(f"{f.path} ({f.status})" for f in found.files[:MAX_LISTED_FILES])
        more = f" and {len(found.files) - MAX_LISTED_FILES} more" if len(found.files) > MAX_LISTED_FILES else ""
        return f"Files it changed: {listed}{more}."


# The repository's own programs come first, as in a shell where its environment is active:
# `ruff` is the ruff its .venv pins, `eslint` the one in node_modules.
PROJECT_BINS = (".venv/bin", "node_modules/.bin")


def _project_path(repo: Path) -> dict[str, str]:
    from agent.tools.toolchain.user_environment import user_environment

    real = Path(os.path.realpath(repo))
    found = [str(real / b) for b in PROJECT_BINS if (real / b).is_dir() and not (real / b).is_symlink()]
    if not found:
        return {}
    env = {"PATH": os.pathsep.join([*found, user_environment().get("PATH", os.defpath)])}
    if found[0].endswith(".venv/bin"):
        env["VIRTUAL_ENV"] = str(real / ".venv")
    return env


def _checkpoint(found: file_changes.CommandChanges, ctx: ToolContext) -> None:
    """Tells the turn's checkpoint (the rewind) each changed file with its text before; a
    file that is not text is left to the store's record alone."""
    if ctx.checkpoint is None:
        return
    rows: list[tuple[str, str | None]] = []
    for changed in found.files:
        before = found.before_content(changed.path)
        try:
            rows.append((changed.path, None if before is None else before.decode("utf-8")))
        except UnicodeDecodeError:
            continue
    ctx.checkpoint.record_files(rows)


def _snapshot(repo: Path) -> tuple[str | None, str]:
    try:
        return file_changes.snapshot(repo), ""
    except (OSError, file_changes.SnapshotFailed) as error:
        return None, str(error)
    except Exception as error:  # the lock timing out, say: the command still runs
        return None, f"{type(error).__name__}: {error}"


def _ended(outcome: Outcome) -> str:
    if outcome.cancelled:
        return "cancelled: the command and everything it started were stopped"
    if outcome.timed_out:
        return f"stopped after {_seconds(outcome.duration)}: the time limit"
    return f"exit code {outcome.returncode} in {_seconds(outcome.duration)}"


def _result(command: str, outcome: Outcome, notes: list[str]) -> ToolResult:
    output = outcome.output.rstrip()
    head = f"$ {command}\n{_ended(outcome).capitalize()}."
    text = f"{head}\n{_cap(output) if output else '(no output)'}\n\n" + "\n".join(n for n in notes if n)
    log = f"$ {command}\n{output}\n[{_ended(outcome)}]"
    if outcome.cancelled:
        return ToolResult(text=text, is_error=True, summary="cancelled", log=log, outcome=ToolOutcome.CANCELLED)
    if outcome.timed_out:
        return ToolResult(text=text, is_error=True, summary="timed out", log=log, outcome=ToolOutcome.ERROR)
    failed = outcome.returncode != 0
    return ToolResult(text=text, summary=f"exit code {outcome.returncode}", log=log,
                      outcome=ToolOutcome.FAILED if failed else ToolOutcome.OK)


def _refused(text: str, summary: str = "not run") -> ToolResult:
    return ToolResult(text=text, is_error=True, summary=summary, outcome=ToolOutcome.CANCELLED, outside_text=False)
