"""Config precedence, the per-repository commands, the memory tool and the registry."""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

from agent.cancel import Cancellation
from agent.settings.config import AgentConfig, config_file
from agent.tools.base import ToolContext, ToolResult
from agent.tools.memory_tool import MemoryTool
from agent.tools.registry import ToolRegistry
from memory.store import MemoryStore
from tests.agent.toolkit import CrashTool, EchoTool

ROOT = Path(__file__).resolve().parents[2]


def test_defaults():
    config = AgentConfig()
    assert (config.model, config.effort, config.memory_mode) == ("claude-haiku-5-5", "low", "preloaded")


def test_precedence_file_then_env_then_args(user_dirs, monkeypatch, tmp_path):
    repo = tmp_path / "shop"
    repo.mkdir()
    path = config_file()
    assert str(path).startswith(str(user_dirs["config"]))
    path.parent.mkdir(parents=True)
    path.write_text(f'model = "from-file"\neffort = "high"\n\n[repos."{repo}"]\nbuild = "make build"\ntest = "make check"\n')
    monkeypatch.delenv("DEVAGENT_MODEL", raising=False)
    monkeypatch.setenv("DEVAGENT_EFFORT", "medium")
    config = AgentConfig.from_env_and_args(None, repo=repo)
    assert (config.model, config.effort) == ("from-file", "medium")
    assert (config.build_command, config.test_command) == ("make build", "make check")
    args = argparse.Namespace(model="from-args", effort=None, memory="window", repo=str(repo))
    config = AgentConfig.from_env_and_args(args)
    assert (config.model, config.effort, config.memory_mode) == ("from-args", "medium", "window")
    assert config.build_command == "make build"
    other = AgentConfig.from_env_and_args(None, repo=tmp_path)
    assert other.build_command is None


def test_every_effort_level_of_the_api_is_accepted_and_others_are_not(user_dirs, monkeypatch):
    for level in ("low", "medium", "high", "xhigh", "max"):
        monkeypatch.setenv("DEVAGENT_EFFORT", level)
        assert AgentConfig.from_env_and_args(None).effort == level
    monkeypatch.setenv("DEVAGENT_EFFORT", "extreme")
    assert AgentConfig.from_env_and_args(None).effort == "low"


def test_a_broken_config_file_is_ignored(user_dirs, monkeypatch):
    monkeypatch.delenv("DEVAGENT_MODEL", raising=False)
    config_file().parent.mkdir(parents=True)
    config_file().write_text("model = [unclosed")
    assert AgentConfig.from_env_and_args(None).model == "claude-haiku-5-5"


def test_light_modules_do_not_import_the_sdk():
    code = "import sys, agent.events, agent.cancel, agent.settings.config; print('anthropic' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.strip() == "False"


def test_memory_tool_runs_the_store(user_dirs, tmp_path):
    store = MemoryStore(tmp_path / "sandbox" / "mem")
    tool = MemoryTool(store)
    assert tool.definition() == {"type": "memory_20250818", "name": "memory"}
    ctx = ToolContext(repo=tmp_path, cancel=Cancellation(), config=AgentConfig())
    made = tool.run({"command": "create", "path": "/memories/a.md", "file_text": "hello\n"}, ctx)
    assert not made.is_error and "created" in made.text
    assert tool.summarize_input({"command": "create", "path": "/memories/a.md"}) == "create /memories/a.md"
    refused = tool.run({"command": "view", "path": "/etc/passwd"}, ctx)
    assert refused.is_error
    assert tool.summarize_input({"command": "rename", "old_path": "/memories/a.md", "new_path": "/memories/b.md"}) == "rename /memories/a.md -> /memories/b.md"
    assert tool.run({"command": "frobnicate"}, ctx).is_error


def test_registry_by_mode(user_dirs, tmp_path):
    store = MemoryStore(tmp_path / "sandbox" / "mem")
    for mode in ("on-demand", "preloaded", "index"):
        assert ToolRegistry.for_mode(mode, store, [EchoTool()]).names == ["echo", "memory"]
    for mode in ("none", "history", "window", "summary"):
        assert ToolRegistry.for_mode(mode, None, [EchoTool()]).names == ["echo"]
    real = ToolRegistry.for_mode("preloaded", store)
    assert real.names == [
        "git_status", "git_diff", "build", "test", "read_file", "search", "find_files", "show_on_screen", "run_command",
        "git_log", "memory",
    ]


def test_registry_turns_every_failure_into_text(tmp_path):
    registry = ToolRegistry([EchoTool(), CrashTool()])
    ctx = ToolContext(repo=tmp_path, cancel=Cancellation(), config=AgentConfig())
    crashed = registry.run("crash", {}, ctx)
    assert crashed.is_error and "RuntimeError: disk on fire" in crashed.text
    assert registry.run("nope", {}, ctx).is_error
    assert registry.run("echo", ["not", "a", "dict"], ctx).is_error
    assert registry.run("echo", {"text": "x"}, ctx) == ToolResult(text="echo: x", summary="echoed")
    assert registry.summarize("echo", {"text": "abc"}) == "abc" and registry.summarize("nope", {}) == ""


def test_cancellation_kills_a_registered_tree_and_runs_callbacks():
    cancel = Cancellation()
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"], start_new_session=True)
    cancel.register_process(proc)
    called = []
    cancel.on_cancel(lambda: called.append(1))
    cancel.cancel()
    assert proc.wait(timeout=10) != 0 and called == [1] and cancel.cancelled
    late = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"], start_new_session=True)
    cancel.register_process(late)  # registering after the cancel kills at once
    assert late.wait(timeout=10) != 0
