"""Every event a turn reports to whoever drives it (the app, `devagent ask`, the evaluation),
and `Sink`, where they go: the loop's, a held code change's and a trust question's, and
the session's as the app's turn driver reports them. One module, so a front end finds
every event it may be handed in the `Event` union.

Plain frozen dataclasses, free of the SDK, so the app can import them while the SDK still
loads in the background. Every event carries the turn it belongs to: a consumer that
cancelled a turn drops the late events of that turn by comparing ids.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent.settings.choices import ScreenFormat

# apart, so the app can draw a tool line's mark before it imports the events; named here too
from agent.tool_outcome import ToolOutcome as ToolOutcome
from agent.tool_outcome import outcome_of as outcome_of


@dataclass(frozen=True)
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    api_calls: int = 0
    time_to_first_token: float | None = None
    total_time: float = 0.0
    cost_usd: float = 0.0

    def __add__(self, other: Usage) -> Usage:
        if self.time_to_first_token is None:
            first = other.time_to_first_token
        else:
            first = self.time_to_first_token
        return Usage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cache_read_tokens=self.cache_read_tokens + other.cache_read_tokens,
            cache_write_tokens=self.cache_write_tokens + other.cache_write_tokens,
            api_calls=self.api_calls + other.api_calls,
            time_to_first_token=first,
            total_time=self.total_time + other.total_time,
            cost_usd=self.cost_usd + other.cost_usd,
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "cache_read_tokens": self.cache_read_tokens,
            "cache_write_tokens": self.cache_write_tokens,
            "api_calls": self.api_calls,
            "time_to_first_token": None if self.time_to_first_token is None else round(self.time_to_first_token, 3),
            "total_time": round(self.total_time, 3),
            "cost_usd": round(self.cost_usd, 6),
        }


@dataclass(frozen=True)
class TurnStarted:
    turn: int
    text: str


@dataclass(frozen=True)
class TextDelta:
    turn: int
    text: str


@dataclass(frozen=True)
class ThinkingStarted:
    turn: int


@dataclass(frozen=True)
class Progress:
    """A note the model wrote for the user between tool calls (Sonnet 5.5 sends it in a
    thinking block): what it is doing, not its answer."""

    turn: int
    text: str

    @property
    def spoken(self) -> str:
        """Its first sentence, short enough to say between tool calls."""
        line = " ".join(self.text.split())
        cut = next((i + 1 for i, c in enumerate(line) if c in ".!?" and (i + 1 == len(line) or line[i + 1] == " ")), len(line))
        first = line[:cut]
        if len(first) > SPOKEN_PROGRESS:
            first = first[:SPOKEN_PROGRESS].rsplit(" ", 1)[0].rstrip(",;:") + "…"
        return first


# characters of a progress note said aloud: about four seconds of speech
SPOKEN_PROGRESS = 80


@dataclass(frozen=True)
class ToolInputArriving:
    """A tool call's input is on its way: `size` bytes of it so far (0 while the API holds it
    back to send it whole), `seconds` since it began, `target` the path it names, once seen."""

    turn: int
    tool_id: str
    name: str
    target: str
    size: int
    seconds: float

    @property
    def text(self) -> str:
        """"writing src/x.py… 12 KB" for the status line; only printable characters."""
        what = "".join(c for c in (self.target or self.name) if c.isprintable())[:60]
        if self.size >= 1024:
            amount = f"{self.size / 1024:.0f} KB"
        elif self.size:
            amount = f"{self.size} bytes"
        else:
            amount = f"{self.seconds:.0f} s"
        return f"writing {what}… {amount}"


@dataclass(frozen=True)
class ToolStarted:
    turn: int
    tool_id: str
    name: str
    summary: str


@dataclass(frozen=True)
class ToolFinished:
    turn: int
    tool_id: str
    name: str
    duration: float
    is_error: bool
    summary: str
    log: str | None = None
    outcome: ToolOutcome | str = ""  # "" when the tool did not say: then from is_error

    def __post_init__(self) -> None:
        object.__setattr__(self, "outcome", outcome_of(self.outcome, self.is_error))

    @property
    def ended(self) -> ToolOutcome:
        """`outcome`, which __post_init__ has made a ToolOutcome whatever it was given."""
        return outcome_of(self.outcome, self.is_error)


@dataclass(frozen=True)
class ShowOnScreen:
    turn: int
    title: str
    content: str
    format: ScreenFormat


@dataclass(frozen=True)
class TurnFinished:
    turn: int
    usage: Usage
    text: str
    cancelled: bool = False


@dataclass(frozen=True)
class AgentError:
    """One sentence a user can act on. The session stays usable after it."""

    turn: int
    message: str


@dataclass(frozen=True)
class ContextStatus:
    """How full the context was at the turn's latest request, and what the API cleared from it."""

    turn: int
    used: int
    window: int
    cleared_tool_uses: int = 0
    cleared_tokens: int = 0
    text: str = ""  # "context 48k of 200k (12 tool results cleared)"


@dataclass(frozen=True)
class Compacted:
    """The earlier conversation was summarised: by the API into a compaction block, or, when
    the API refused, by devagent's own summary request (`fallback`)."""

    turn: int
    summary: str
    fallback: bool = False


@dataclass(frozen=True)
class Notice:
    """Something the user should know that is not an error."""

    turn: int
    message: str


@dataclass(frozen=True)
class CodeChangeHeld:
    """A change set waits for the user: a `Decision` about `id` applies it (yes) or keeps the files."""

    turn: int
    id: str  # the change set's, which the decision names
    what: str  # the change in one line: `src/app.py (+3 −1)`
    diff: str  # its unified diff, credentials masked


@dataclass(frozen=True)
class CodeChangeSettled:
    """How a held change set ended: applied, kept, a conflict, or the turn was cancelled."""

    turn: int
    id: str  # the change set's, as CodeChangeHeld named it
    state: str  # applied, kept, conflict or cancelled
    what: str  # the change in one line, as CodeChangeHeld said it
    said: str  # what the model hears, in the held calls' tool results
    tool_ids: tuple[str, ...] = ()  # the held calls, whose tool lines now say how it ended
    shown: str = ""  # what the user is shown: what happened, in their words

    @property
    def for_user(self) -> str:
        return self.shown or self.said


@dataclass(frozen=True)
class CodeRun:
    """What a tool would run: shown to the user exactly as it runs."""

    tool: str  # "build" or "test"
    commands: tuple[str, ...]
    cwd: Path
    environment: str | None = None  # the repository's environment it runs in, when it has one


_requests = itertools.count(1)


@dataclass(frozen=True)
class TrustRequest:
    """The question to the user: whether `repo`'s code may run, as `run` would run it."""

    repo: Path
    run: CodeRun
    id: str = field(default_factory=lambda: f"trust-{next(_requests)}")  # the id its Decision names
    # An answer kept under the old key (the git folder), which is why it is asked again:
    # "trusted on <date>, kept under the old key, the git folder <path>"; "" when none.
    earlier: str = ""


@dataclass(frozen=True)
class TrustAsked:
    """A tool waits to run the repository's code: a yes `Decision` about `request.id` trusts it."""

    turn: int
    request: TrustRequest


_commands = itertools.count(1)


@dataclass(frozen=True)
class CommandRequest:
    """The question to the user: may `command` run in `repo`, for `reason` (agent.command_consent)."""

    repo: Path
    command: str
    reason: str
    network: bool  # the model says it needs the network; the user decides
    unsandboxed: str | None = None  # why the sandbox cannot run here; None when it can
    id: str = field(default_factory=lambda: f"command-{next(_commands)}")


@dataclass(frozen=True)
class CommandAsked:
    """A command waits for the user: a yes `Decision` about `request.id` runs it."""

    turn: int
    request: CommandRequest


@dataclass(frozen=True)
class CommandStarted:
    """An approved command runs (agent.tools.command): `CommandOutput` events with the same
    `run` follow, then one `CommandEnded`."""

    turn: int
    run: str
    command: str
    network: bool
    sandboxed: bool


@dataclass(frozen=True)
class CommandOutput:
    turn: int
    run: str
    text: str  # masked, whole lines


@dataclass(frozen=True)
class CommandEnded:
    turn: int
    run: str
    said: str  # "exit code 0 in 1.2 s", "cancelled: ...", "stopped after 10.0 min: the time limit"


# --- the session, as the app's turn driver reports it --------------------------------------


@dataclass(frozen=True)
class TurnDone:
    """The turn's thread returned: after its TurnFinished, or without one (it never began)."""

    turn: int = -1


@dataclass(frozen=True)
class LoadFailed:
    """The session could not start; every turn will say so."""

    message: str
    turn: int = -1


@dataclass(frozen=True)
class SessionNotice:
    """Which session is held, when that is news: a resumed one, or none to resume."""

    message: str
    turn: int = -1
    earlier: tuple[tuple[str, str], ...] = ()  # a resumed session's turns: (question, reply)


Event = (
    TurnStarted | TextDelta | ThinkingStarted | Progress | ToolInputArriving | ToolStarted | ToolFinished
    | ShowOnScreen | TurnFinished | AgentError | ContextStatus | Compacted | Notice
    | CodeChangeHeld | CodeChangeSettled | TrustAsked | CommandAsked | CommandStarted | CommandOutput | CommandEnded
    | TurnDone | LoadFailed | SessionNotice
)
# where a turn's events go: the app's inbox, `devagent ask`'s printer, the evaluation's log
Sink = Callable[[Event], None]
