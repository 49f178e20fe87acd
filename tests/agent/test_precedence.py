"""Settings precedence (issue 9, point 9): command line > environment > config.toml > defaults.

The command line is parsed by the real parsers, so an option's default cannot pass for a
value the user gave.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import subprocess
from pathlib import Path

import pytest

from agent.loop import claude
from agent.settings.config import AgentConfig, config_file
from tui.cli import app_parser

ROOT = Path(__file__).resolve().parents[2]
DEFAULTS = AgentConfig()
# setting -> (in the file, in the environment, on the command line); None: no such source
LAYERS = {
    "model": ("claude-sonnet-5-5", "claude-opus-5-5", "claude-haiku-4-5"),
    "effort": ("medium", "high", "max"),
    "memory_mode": ("window", "summary", "none"),
    "thinking": ("off", "adaptive", None),
    "memory_writes": ("review", "off", "auto"),
    "code_writes": ("auto", "off", "review"),
}
FILE_KEY = {"model": "model", "effort": "effort", "memory_mode": "memory_mode", "thinking": "thinking",
            "memory_writes": "memory_writes", "code_writes": "code_writes"}
ENV = {"model": "DEVAGENT_MODEL", "effort": "DEVAGENT_EFFORT", "memory_mode": "DEVAGENT_MEMORY", "thinking": "DEVAGENT_THINKING",
       "memory_writes": "DEVAGENT_MEMORY_WRITES", "code_writes": "DEVAGENT_CODE_WRITES"}
OPTION = {"model": "--model", "effort": "--effort", "memory_mode": "--memory", "memory_writes": "--memory-writes",
          "code_writes": "--code-writes"}


@pytest.fixture
def clean_env(user_dirs, monkeypatch):
    for name in ENV.values():
        monkeypatch.delenv(name, raising=False)
    config_file().parent.mkdir(parents=True, exist_ok=True)
    return monkeypatch


def ask_parser() -> argparse.ArgumentParser:
    from tui.cli import ask

    parser = argparse.ArgumentParser()
    ask.add_arguments("ask", parser)
    return parser


CASES = [
    (setting, given)
    for setting in sorted(LAYERS)
    for n in range(4)
    for given in itertools.combinations(("file", "env", "cli"), n)
    if not ("cli" in given and LAYERS[setting][2] is None)  # thinking has no option
]


@pytest.mark.parametrize("setting, given", CASES)
def test_each_layer_wins_over_the_ones_below(clean_env, setting, given):
    in_file, in_env, on_cli = LAYERS[setting]
    if "file" in given:
        config_file().write_text(f'{FILE_KEY[setting]} = "{in_file}"\n')
    if "env" in given:
        clean_env.setenv(ENV[setting], in_env)
    argv = [OPTION[setting], on_cli] if "cli" in given else []
    for args in (app_parser().parse_args(argv), ask_parser().parse_args([*argv, "a turn"])):
        config = AgentConfig.from_env_and_args(args)
        expected = on_cli if "cli" in given else in_env if "env" in given else in_file if "file" in given else getattr(DEFAULTS, setting)
        assert getattr(config, setting) == expected
        assert config.notice is None


def test_argparse_defaults_mean_not_given():
    for parser, argv in ((app_parser(), []), (ask_parser(), ["a turn"])):
        args = parser.parse_args(argv)
        assert (args.memory, args.memory_writes, args.model, args.effort) == (None, None, None, None)


def test_memory_aging_days_from_the_file_and_bad_writes_are_named(clean_env):
    config_file().write_text('memory_aging_days = 14\nmemory_writes = "sometimes"\n')
    config = AgentConfig.from_env_and_args(app_parser().parse_args([]))
    assert (config.memory_aging_days, config.memory_writes) == (14, "auto")
    assert "memory_writes was ignored" in config.notice
    clean_env.setenv("DEVAGENT_MEMORY_WRITES", "never")
    config = AgentConfig.from_env_and_args(app_parser().parse_args([]))
    assert "DEVAGENT_MEMORY_WRITES was ignored" in config.notice and config.memory_writes == "auto"


@pytest.mark.parametrize("value", ["0", "off", "false"])
def test_thinking_off_from_the_environment_sends_what_turns_it_off(clean_env, value):
    # Haiku 5.5 thinks when `thinking` is left out ("What's new in Claude Haiku 5.5").
    clean_env.setenv("DEVAGENT_THINKING", value)
    config = AgentConfig.from_env_and_args(None)
    assert config.thinking == "off"
    params = claude.request_params(config, system=[], tools=[], messages=[])
    assert params["thinking"] == {"type": "disabled"}
    clean_env.setenv("DEVAGENT_MODEL", "claude-sonnet-4-6")  # off there unless asked for
    params = claude.request_params(AgentConfig.from_env_and_args(None), system=[], tools=[], messages=[])
    assert "thinking" not in params


def test_a_budget_in_the_environment_is_sent_and_a_bad_one_is_named(clean_env):
    clean_env.setenv("DEVAGENT_THINKING", "2048")
    clean_env.setenv("DEVAGENT_MODEL", "claude-sonnet-4-6")
    params = claude.request_params(AgentConfig.from_env_and_args(None), system=[], tools=[], messages=[])
    assert params["thinking"] == {"type": "enabled", "budget_tokens": 2048}
    clean_env.setenv("DEVAGENT_THINKING", "50000")
    config = AgentConfig.from_env_and_args(None)
    assert config.thinking == "adaptive" and "must be below max_tokens (8000)" in config.notice
    clean_env.setenv("DEVAGENT_THINKING", "lots")
    clean_env.setenv("DEVAGENT_EFFORT", "extreme")
    config = AgentConfig.from_env_and_args(None)
    assert (config.thinking, config.effort) == ("adaptive", "low")
    assert "DEVAGENT_THINKING was ignored" in config.notice and "DEVAGENT_EFFORT was ignored" in config.notice


def test_a_bad_environment_value_leaves_the_file_value(clean_env):
    config_file().write_text('effort = "high"\n')
    clean_env.setenv("DEVAGENT_EFFORT", "extreme")
    config = AgentConfig.from_env_and_args(app_parser().parse_args([]))
    assert config.effort == "high"


@pytest.mark.e2e
def test_ask_end_to_end_takes_each_setting_from_its_layer(claude_double, clean_env, tmp_path):
    repo = tmp_path / "sandbox" / "app"
    repo.mkdir(parents=True)
    config_file().write_text('memory_mode = "none"\neffort = "high"\nmodel = "claude-opus-5-5"\n')
    env = {**os.environ, "DEVAGENT_EFFORT": "medium", "DEVAGENT_MODEL": "claude-sonnet-5-5", "DEVAGENT_THINKING": "0"}
    claude_double.add("ok")
    out = subprocess.run(
        ["uv", "run", "--no-sync", "devagent", "ask", "--repo", str(repo), "--model", "claude-sonnet-4-6", "hi"],
        cwd=ROOT, capture_output=True, text=True, timeout=120, env=env,
    )
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout.strip().splitlines()[-1])["memory"] == "none"
    body = claude_double.messages_requests()[0].body
    assert body["model"] == "claude-sonnet-4-6"
    assert body["output_config"] == {"effort": "medium"}
    assert "thinking" not in body
    assert "memory" not in [t["name"] for t in body["tools"]], "memory_mode none from the file applies"
