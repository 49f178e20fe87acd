"""Settings of a session: model, effort, memory mode, and per-repository commands.

Precedence, lowest first: built-in defaults, the user's config file, environment variables,
command-line options. No SDK import here: the app reads this at start-up.

The config file is platformdirs' user_config_dir("devagent")/config.toml; agent.settings.config_file
reads it, says what it holds, and never fails on it::

    model = "claude-sonnet-5-5"        # optional defaults
    effort = "medium"
    memory_writes = "review"           # auto, review (the user accepts each) or off
    code_writes = "review"             # the agent's changes to files: review, auto or off
    max_write_mb_per_reply = 12        # what one reply's changes may write in all
    memory_aging_days = 30             # a memory neither written nor verified this long is aging
    welcome_back_hours = 8             # a checked briefing when you come back after this long

    [repos."/home/me/src/shop"]
    build = "make build"
    test = "make check"
    network = true                     # build and test may reach the network (sandboxed, they cannot by default)
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

from agent.settings import claude_models
from agent.settings import config_file as file_format
from agent.settings.choices import (
    CODE_WRITES,
    EFFORTS,
    MEMORY_MODES,
    MEMORY_WRITES,
    CodeWrites,
    Effort,
    MemoryMode,
    MemoryWrites,
    as_choice,
)
from agent.settings.config_file import Problem

__all__ = [
    "CODE_WRITES", "EFFORTS", "MEMORY_MODES", "MEMORY_WRITES", "AgentConfig", "Problem", "api_key_problem", "config_file",
    "load_user_config",
]


class Resumed(Protocol):
    """What a saved conversation says of its own settings (agent.conversation.transcripts.SavedSession)."""

    model: str
    memory_mode: str
    effort: str


@dataclass(frozen=True)
class AgentConfig:
    """A session's settings, each from the command line, the environment, config.toml or the default."""

    model: str = "claude-haiku-5-5"
    effort: Effort = "low"
    memory_mode: MemoryMode = "preloaded"
    memory_writes: MemoryWrites = "auto"
    code_writes: CodeWrites = "review"
    # What one reply's file changes may write in all, in MB (each file whole, as written):
    # one change to a file at the editor's 10 MB limit fits, a flood of large files does not.
    max_write_mb_per_reply: int = 12
    # Writes to /memories/user/ reach every repository's sessions: held for the user's
    # review unless they choose otherwise (memory_writes, when stricter, wins).
    user_memory_writes: MemoryWrites = "review"
    memory_aging_days: int = 30
    # A session opened this many hours after the repository's last one starts with a
    # checked briefing (agent.loop.welcome_back); False never gives it by itself.
    welcome_back: bool = True
    welcome_back_hours: int = 8
    # "adaptive" lets the model decide when to think; "off" sends what turns it off on the
    # model (agent.settings.claude_models); a number is a budget, for the models that take one.
    thinking: str = "adaptive"
    max_tokens: int = 8000
    # How many of the previous session's turns the window mode keeps.
    window_turns: int = 2
    # Per API call; the SDK retries 429, 529 and 5xx this many times with backoff.
    max_retries: int = 4
    request_timeout: float = 120.0
    # A tool use loop that never ends costs money: past this many calls a turn stops.
    max_api_calls_per_turn: int = 25
    # Context management (agent/conversation/window.py): off sends requests without it. None for a
    # threshold means the model's own default.
    context_management: bool = True
    clear_at: int | None = None
    compact_at: int | None = None
    keep_tool_uses: int | None = None
    # Saved transcripts older than this, or beyond this total size, are removed at start.
    transcripts_max_age_days: int = 90
    transcripts_max_mb: int = 500
    # Rewind's checkpoints ([checkpoints] in the file), likewise.
    checkpoints_max_age_days: int = 30
    checkpoints_max_mb: int = 200
    build_command: str | None = None
    test_command: str | None = None
    # [repos."path"] network = true: build and test reach the network from their sandbox
    # (agent.tools.toolchain.sandbox) in that repository; nowhere else.
    network: bool = False
    extra: dict[str, Any] = field(default_factory=dict)
    # What the settings ignored (a broken config file, a key of the wrong kind): the app
    # shows it, the command line prints it.
    problems: tuple[Problem, ...] = field(default=(), compare=False, repr=False)
    # The settings the user chose (file, environment, command line), and what the model
    # could not take of them (agent.settings.claude_models.fit), one sentence each.
    given: frozenset[str] = field(default=frozenset(), compare=False, repr=False)
    model_notes: tuple[str, ...] = field(default=(), compare=False, repr=False)

    @property
    def notice(self) -> str | None:
        """One line on every ignored setting and every one the model cannot take, or None."""
        parts = [file_format.notice(self.problems), *self.model_notes]
        return " ".join(p for p in parts if p) or None

    def fitted(self) -> AgentConfig:
        """These settings as the model takes them (agent.settings.claude_models), each change noted once."""
        changes, misfits = claude_models.fit(
            self.model, thinking=self.thinking, effort=self.effort, max_tokens=self.max_tokens,
            compact_at=self.compact_at, given=self.given,
        )
        notes = [f"{m.setting}: {m.why}." for m in misfits]
        fresh = tuple(n for n in notes if n not in self.model_notes)
        return replace(self, **changes, model_notes=(*self.model_notes, *fresh))

    @classmethod
    def from_env_and_args(cls, args: Any = None, repo: Path | None = None) -> AgentConfig:
        """The settings from every source, each layer over the one before: the defaults, the
        config file, the environment, the command line. An option `args` holds as None was
        not given, and leaves the layers below it in place."""
        file, problems = user_config()
        config = _from_file(cls(), file)
        given = set(_FILE_SETTINGS) & set(file) | ({"memory_mode"} if "memory" in file else set())
        for values in (_environment(), _options(args)):
            for name, (where, value) in values.items():
                good, why = SETTING_CHECKS[name](value)
                if why:
                    problems.append(Problem(where, None, why))
                else:
                    config = replace(config, **{name: good})
                    given.add(name)
        config = _thinking_fits(config, problems)
        config = _long_session_settings(config, file, problems)
        given |= {name for name in ("clear_at", "compact_at") if getattr(config, name) is not None}
        config = replace(config, given=frozenset(given)).fitted()
        if repo is None and args is not None:
            for name in ("repo", "path"):
                if getattr(args, name, None):
                    repo = Path(getattr(args, name))
                    break
        if repo is not None:
            config = config.for_repository(repo, file)
        config = replace(config, problems=tuple(problems))
        if config.notice:
            logging.getLogger("devagent.config").warning("settings: %s", config.notice)
        return config

    def for_session(self, repo: Path, resume: Resumed | None = None) -> tuple[AgentConfig, list[str]]:
        """The settings a session runs with, and the model notes it has still to show."""
        config = self
        if resume is not None:
            # A resumed session is the same conversation: its model, its memory mode, its effort
            # (Sonnet 5.5 takes no change of effort mid-conversation).
            config = replace(config, model=resume.model or config.model, memory_mode=as_choice(resume.memory_mode, MEMORY_MODES) or config.memory_mode,
                             effort=as_choice(resume.effort, EFFORTS) or config.effort)
        if config.build_command is None and config.test_command is None:
            # The user's per-repository build and test commands, when the caller did not
            # already look them up.
            config = config.for_repository(repo)
        told = config.model_notes
        # What the model cannot take is settled before the first request (agent.settings.claude_models); a
        # resumed session's own model may need notes the start did not show.
        config = config.fitted()
        return config, [note for note in config.model_notes if note not in told]

    def for_repository(self, repo: Path, file: dict[str, Any] | None = None) -> AgentConfig:
        """The build and test commands the user set for this repository, if any, and whether
        they may reach the network."""
        file = load_user_config() if file is None else file
        repos = file.get("repos") or {}
        wanted = _resolved(repo)
        for key, values in repos.items():
            if isinstance(values, dict) and _resolved(Path(os.path.expanduser(key))) == wanted:
                return replace(
                    self,
                    build_command=values.get("build") or self.build_command,
                    test_command=values.get("test") or self.test_command,
                    network=values.get("network") is True or self.network,
                )
        return self


def config_file() -> Path:
    from platformdirs import user_config_dir

    return Path(user_config_dir("devagent")) / "config.toml"


def user_config() -> tuple[dict[str, Any], list[Problem]]:
    """The config file's valid settings, and what in it was ignored and why."""
    return file_format.read(config_file())


def load_user_config() -> dict[str, Any]:
    """The config file's valid settings; never raises, whatever the file holds."""
    return user_config()[0]


def api_key_problem() -> str | None:
    """One sentence on how to set the key, or None when the SDK will find one."""
    if os.environ.get("ANTHROPIC_API_KEY", "").strip() or os.environ.get("ANTHROPIC_AUTH_TOKEN", "").strip():
        return None
    return (
        "No Anthropic API key: set ANTHROPIC_API_KEY in your environment "
        "(for example `export ANTHROPIC_API_KEY=sk-ant-...`) and start devagent again."
    )


# Which environment variable and which command-line option set each setting.
ENVIRONMENT = {"model": "DEVAGENT_MODEL", "effort": "DEVAGENT_EFFORT", "memory_mode": "DEVAGENT_MEMORY",
               "thinking": "DEVAGENT_THINKING", "memory_writes": "DEVAGENT_MEMORY_WRITES",
               "code_writes": "DEVAGENT_CODE_WRITES",
               "user_memory_writes": "DEVAGENT_USER_MEMORY_WRITES"}
OPTIONS = {"model": "model", "effort": "effort", "memory_mode": "memory", "memory_writes": "memory_writes",
           "code_writes": "code_writes"}
SETTING_CHECKS = {name: file_format.SETTINGS[name] for name in ENVIRONMENT}


def _environment() -> dict[str, tuple[str, str]]:
    """setting -> (variable, value) for each variable that is set; an empty one is unset."""
    found = {}
    for name, variable in ENVIRONMENT.items():
        value = os.environ.get(variable, "")
        if value.strip():
            found[name] = (variable, value)
    return found


def _options(args: Any) -> dict[str, tuple[str, Any]]:
    """setting -> (option, value) for each option given; None means not given."""
    found = {}
    for name, option in OPTIONS.items():
        value = getattr(args, option, None) if args is not None else None
        if value is not None:
            found[name] = ("--" + option.replace("_", "-"), value)
    return found


def _thinking_fits(config: AgentConfig, problems: list[Problem]) -> AgentConfig:
    """The API refuses a thinking budget that is not below max_tokens."""
    if config.thinking.isdigit() and int(config.thinking) >= config.max_tokens:
        problems.append(Problem(
            "thinking", None, f"a budget of {config.thinking} tokens must be below max_tokens ({config.max_tokens})"
        ))
        return replace(config, thinking=AgentConfig.thinking)
    return config


_FILE_SETTINGS = ("model", "effort", "memory_mode", "thinking", "max_tokens", "window_turns", "max_retries",
                  "max_api_calls_per_turn", "request_timeout", "memory_writes", "memory_aging_days", "code_writes",
                  "user_memory_writes", "max_write_mb_per_reply", "welcome_back", "welcome_back_hours")


def _from_file(config: AgentConfig, file: dict[str, Any]) -> AgentConfig:
    """`config` with the file's settings, which agent.settings.config_file has already checked."""
    changes = {name: file[name] for name in _FILE_SETTINGS if name in file}
    if "memory" in file and "memory_mode" not in changes:
        changes["memory_mode"] = file["memory"]
    return replace(config, **changes)


def _resolved(path: Path) -> Path:
    try:
        return path.resolve()
    except (OSError, ValueError):  # ValueError: a NUL in a name the file gave
        try:
            return path.absolute()
        except ValueError:
            return path


# DEVAGENT_CONTEXT=off, DEVAGENT_CLEAR_AT and DEVAGENT_COMPACT_AT win over the file's
# [context] table; [transcripts] is only in the file.
_CONTEXT_ENV = {"DEVAGENT_CLEAR_AT": "clear_at", "DEVAGENT_COMPACT_AT": "compact_at"}


def _long_session_settings(config: AgentConfig, file: dict[str, Any], problems: list[Problem]) -> AgentConfig:
    context = file.get("context") or {}
    transcripts = file.get("transcripts") or {}
    changes: dict[str, Any] = {}
    if "management" in context:
        changes["context_management"] = context["management"]
    for name in ("clear_at", "compact_at", "keep_tool_uses"):
        if name in context:
            changes[name] = context[name]
    if "max_age_days" in transcripts:
        changes["transcripts_max_age_days"] = transcripts["max_age_days"]
    if "max_total_mb" in transcripts:
        changes["transcripts_max_mb"] = transcripts["max_total_mb"]
    checkpoints = file.get("checkpoints") or {}
    for key, name in (("max_age_days", "checkpoints_max_age_days"), ("max_total_mb", "checkpoints_max_mb")):
        if key in checkpoints:
            changes[name] = checkpoints[key]
    switch = os.environ.get("DEVAGENT_CONTEXT", "").strip().lower()
    if switch in ("off", "0", "false", "no"):
        changes["context_management"] = False
    elif switch in ("on", "1", "true", "yes"):
        changes["context_management"] = True
    elif switch:
        problems.append(Problem("DEVAGENT_CONTEXT", None, f'"{switch}" is not on or off'))
    for variable, name in _CONTEXT_ENV.items():
        raw = os.environ.get(variable, "").strip().replace("_", "")
        if raw.isdigit() and int(raw) > 0:
            changes[name] = int(raw)
        elif raw:
            problems.append(Problem(variable, None, f'"{raw}" is not a number of tokens'))
    return replace(config, **changes)
