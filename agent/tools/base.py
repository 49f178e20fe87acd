"""The contract every developer tool keeps with the tool-use loop.

A tool is called with the model's JSON input and a ToolContext, and always returns a
ToolResult: failures are text the model can read (is_error=True), never exceptions, so one
bad call cannot end a turn.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from agent.settings.choices import ScreenFormat

if TYPE_CHECKING:  # both are light, but the tools must load even before they exist
    from collections.abc import Iterable

    from agent.cancel import Cancellation
    from agent.command_consent import TurnCommands
    from agent.settings.config import AgentConfig
    from agent.tools.editor.confined_files import RepositoryRoot
    from agent.workspace_trust import CodeConsent


@dataclass
class ToolContext:
    repo: Path
    # Optional so a tool can run outside a turn (scripts, tests); the loop always passes both.
    cancel: Cancellation | None = None
    config: AgentConfig | Any = None
    # Asked before a tool runs the repository's own code (agent.workspace_trust). None: the
    # caller runs the tool outside a conversation on a folder it vouches for (a script, the
    # evaluation's own fixture); the session always passes one.
    consent: CodeConsent | None = None
    # Asked before run_command runs a command (agent.command_consent); None: no command runs.
    commands: TurnCommands | None = None
    turn: int = 0  # the turn the call belongs to (what a command changed is recorded under it)
    # The running turn's checkpoint (agent.checkpoints.store.TurnCheckpoint): a tool that changes
    # repository files or memory tells it what it changed, so a rewind can put it back. None
    # outside a session.
    checkpoint: TurnRecord | None = None
    # The repository folder as the session opened it (a descriptor): every read, write and
    # working folder goes through `base`. None outside a session: the path is used.
    root: RepositoryRoot | None = None

    @property
    def base(self) -> Path:
        """Where every access below the repository starts: the session's root descriptor
        (confined_files.RepositoryRoot.at), which no folder put in the path's place can
        redirect; the resolved path outside a session. `repo` stays the name to show."""
        return self.root.at if self.root is not None else Path(self.repo).resolve()


class TurnRecord(Protocol):
    """What a tool tells the turn's checkpoint. A command's changed files: `record_files`
    with each path (relative to the repository) and its text before the command, None where
    there was no file; call it once the command has ended (the text after is read then)."""

    def record_files(self, changed: Iterable[tuple[str, str | None]]) -> None: ...

    def record_file_texts(self, changed: Iterable[tuple[str, str | None, str | None]]) -> None: ...

    def record_memory(self, changed: Iterable[tuple[str, str | None, str | None]]) -> None: ...

    def record_held_memory(self, change_id: str) -> None: ...


@dataclass(frozen=True)
class HeldCall:
    """A call whose write waits in the reply's change set for the user (the text editor in
    review). The loop keeps it, by its type, in the place of the call's tool result until
    the set is settled (agent.loop.held_changes), which writes that result."""

    change: str  # the id of the change set it waits in
    said: str  # the tool's own sentence, which the model hears once the set is applied
    tool_use_id: str = ""  # the call's, filled in by the loop


@dataclass
class ToolResult:
    text: str
    is_error: bool = False
    summary: str = ""
    log: str | None = None
    screen: tuple[str, str, ScreenFormat] | None = None
    # An agent.events.ToolOutcome value; "" leaves it to is_error (ok or error).
    outcome: str = ""
    # The tool's own code raised and a catch-all wrote the text: a bug, where is_error alone
    # could be the model's bad input. The contract tests fail on it.
    crashed: bool = False
    # The text holds outside words (a file, a program's output) and reaches the model inside
    # the data mark; False for a tool's own sentences, which keep the wording it documents.
    outside_text: bool = True
    # The call's write waits for the user: its result comes once the change set is settled.
    held: HeldCall | None = None


@runtime_checkable
class Tool(Protocol):
    name: str

    def definition(self) -> dict[str, Any]: ...

    def summarize_input(self, input: dict[str, Any]) -> str: ...

    def run(self, input: dict[str, Any], ctx: ToolContext) -> ToolResult: ...


class ToolInputError(ValueError):
    """The model sent an input the tool cannot use; the message is written for the model."""


def optional_str(input: dict[str, Any], key: str) -> str | None:
    value = input.get(key)
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise ToolInputError(f"Error: {key} must be a string, got {type(value).__name__}.")
    return value


def required_str(input: dict[str, Any], key: str) -> str:
    value = optional_str(input, key)
    if value is None:
        raise ToolInputError(f"Error: missing {key}.")
    return value


def optional_int(input: dict[str, Any], key: str) -> int | None:
    value = input.get(key)
    if value is None:
        return None
    # JSON has one number type: 3.0 is a fair line number, 1.5 is not, and True is not a number.
    if isinstance(value, bool):
        raise ToolInputError(f"Error: {key} must be a whole number.")
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        value = int(value.strip())
    if not isinstance(value, int):
        raise ToolInputError(f"Error: {key} must be a whole number, got {value!r}.")
    return value
