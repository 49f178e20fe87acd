"""Settings of a session: model, effort, memory mode, and per-repository commands.

Precedence, lowest first: built-in defaults, the user's config file, environment variables,
command-line options. No SDK import here: the app reads this at start-up.

The config file is platformdirs' user_config_dir("devagent")/config.toml::

    model = "claude-sonnet-5-5"        # optional defaults
    effort = "medium"
    memory_writes = "review"           # auto, review (the user accepts each) or off
    memory_aging_days = 30             # a memory neither written nor verified this long is aging

    [repos."/home/me/src/shop"]
    build = "make build"
    test = "make check"
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

MEMORY_MODES = ("none", "history", "window", "summary", "on-demand", "preloaded", "index")
# Who decides what the model's memory writes do: they apply (auto), wait for the user
# (review), or memory is read-only (off).
MEMORY_WRITES = ("auto", "review", "off")
# The levels of output_config.effort on the 5.x models.
EFFORTS = ("low", "medium", "high", "xhigh", "max")


@dataclass(frozen=True)
class AgentConfig:
    model: str = "claude-haiku-5-5"
    effort: str = "low"
    memory_mode: str = "preloaded"
    memory_writes: str = "auto"
    memory_aging_days: int = 30
    # "adaptive" lets the model decide when to think; "off" sends no thinking parameter.
    thinking: str = "adaptive"
    max_tokens: int = 8000
    # How many of the previous session's turns the window mode keeps.
    window_turns: int = 2
    # Per API call; the SDK retries 429, 529 and 5xx this many times with backoff.
    max_retries: int = 4
    request_timeout: float = 120.0
    # A tool use loop that never ends costs money: past this many calls a turn stops.
    max_api_calls_per_turn: int = 25
    build_command: str | None = None
    test_command: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_env_and_args(cls, args: Any = None, repo: Path | None = None) -> "AgentConfig":
        file = load_user_config()
        config = cls()
        config = _apply(config, file)
        config = _apply(
            config,
            {
                "model": os.environ.get("DEVAGENT_MODEL"),
                "effort": os.environ.get("DEVAGENT_EFFORT"),
                "memory_mode": os.environ.get("DEVAGENT_MEMORY"),
                "thinking": os.environ.get("DEVAGENT_THINKING"),
                "memory_writes": os.environ.get("DEVAGENT_MEMORY_WRITES"),
            },
        )
        if args is not None:
            config = _apply(
                config,
                {
                    "model": getattr(args, "model", None),
                    "effort": getattr(args, "effort", None),
                    "memory_mode": getattr(args, "memory", None),
                    "memory_writes": getattr(args, "memory_writes", None),
                },
            )
        if repo is None and args is not None:
            for name in ("repo", "path"):
                if getattr(args, name, None):
                    repo = Path(getattr(args, name))
                    break
        if repo is not None:
            config = config.for_repository(repo, file)
        return config

    def for_repository(self, repo: Path, file: dict | None = None) -> "AgentConfig":
        """The build and test commands the user set for this repository, if any."""
        file = load_user_config() if file is None else file
        repos = file.get("repos") or {}
        wanted = _resolved(repo)
        for key, values in repos.items():
            if isinstance(values, dict) and _resolved(Path(os.path.expanduser(key))) == wanted:
                return replace(
                    self,
                    build_command=values.get("build") or self.build_command,
                    test_command=values.get("test") or self.test_command,
                )
        return self


def config_file() -> Path:
    from platformdirs import user_config_dir

    return Path(user_config_dir("devagent")) / "config.toml"


def load_user_config() -> dict:
    path = config_file()
    try:
        with open(path, "rb") as f:
            return tomllib.load(f)
    except FileNotFoundError:
        return {}
    except (OSError, tomllib.TOMLDecodeError):
        # A broken config file must not stop the agent; the defaults still work.
        return {}


def api_key_problem() -> str | None:
    """One sentence on how to set the key, or None when the SDK will find one."""
    if os.environ.get("ANTHROPIC_API_KEY", "").strip() or os.environ.get("ANTHROPIC_AUTH_TOKEN", "").strip():
        return None
    return (
        "No Anthropic API key: set ANTHROPIC_API_KEY in your environment "
        "(for example `export ANTHROPIC_API_KEY=sk-ant-...`) and start devagent again."
    )


def _apply(config: AgentConfig, values: dict) -> AgentConfig:
    changes: dict[str, Any] = {}
    for name in ("model", "effort", "memory_mode", "thinking", "memory_writes"):
        value = values.get(name)
        if isinstance(value, str) and value.strip():
            changes[name] = value.strip()
    for name in ("max_tokens", "window_turns", "max_retries", "memory_aging_days"):
        value = values.get(name)
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            changes[name] = value
    if "memory" in values and isinstance(values["memory"], str) and "memory_mode" not in changes:
        changes["memory_mode"] = values["memory"]
    if changes.get("effort") not in (None, *EFFORTS):
        changes.pop("effort")
    if changes.get("memory_mode") not in (None, *MEMORY_MODES):
        changes.pop("memory_mode")
    if changes.get("memory_writes") not in (None, *MEMORY_WRITES):
        changes.pop("memory_writes")
    return replace(config, **changes)


def _resolved(path: Path) -> Path:
    try:
        return path.resolve()
    except OSError:
        return path.absolute()
