"""A malformed config.toml never stops devagent (issue 9, point 8).

Whatever the file holds, the settings start from the defaults, keep what is valid, and say
in one line which file and which key were ignored and why.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from agent.settings.config import AgentConfig, config_file, load_user_config
from agent.voice.settings import voice_settings

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def write_config(user_dirs, monkeypatch):
    for name in ("DEVAGENT_MODEL", "DEVAGENT_EFFORT", "DEVAGENT_MEMORY", "DEVAGENT_THINKING", "DEVAGENT_TALK_KEY"):
        monkeypatch.delenv(name, raising=False)
    path = config_file()
    assert str(path).startswith(str(user_dirs["config"]))
    path.parent.mkdir(parents=True, exist_ok=True)

    def write(content: bytes | str) -> Path:
        path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
        return path

    return write


@pytest.mark.parametrize(
    "content, key, reason",
    [
        ('model = "from-file"\neffort = [unclosed\n', None, "TOML syntax error"),
        (b'model = "caf\xe9"\n', None, "not UTF-8 text: byte 0xe9"),
        ('repos = "nope"\n', "repos", "expected a table of repositories, found text"),
        ('effort = 3\n', "effort", "expected text, found a number"),
        ('effort = "extreme"\n', "effort", '"extreme" is not one of low, medium, high, xhigh, max'),
        ('memory_mode = "everything"\n', "memory_mode", '"everything" is not one of'),
        ('max_tokens = "big"\n', "max_tokens", "expected a whole number, found text"),
        ('max_tokens = true\n', "max_tokens", "expected a whole number, found true/false"),
        ('thinking = 100\n', "thinking", "under the API's minimum of 1024"),
        ('[repos."/somewhere"]\nbuild = ["make"]\n', 'repos."/somewhere".build', "expected text, found a list"),
        ('[repos]\n"/somewhere" = "make"\n', 'repos."/somewhere"', "expected a table with build and test"),
        ('voice = 3\n', "voice", "expected a table, found a number"),
        ('[voice]\nspeak = "yes"\n', "voice.speak", "expected true or false, found text"),
        ('[voice]\nkey = 9\n', "voice.key", "expected text, found a number"),
        ('[voice]\nkey = "f99"\n', "voice.key", '"f99" is not a key push-to-talk can use'),
        ('[voice]\nkey = "f3"\n', "voice.key", '"f3" is taken: it is the screen pane'),
        ('modle = "claude-sonnet-5-5"\n', "modle", "not a setting devagent knows"),
    ],
)
def test_a_bad_file_or_key_starts_with_defaults_and_says_which_and_why(write_config, content, key, reason):
    path = write_config(content)
    config = AgentConfig.from_env_and_args(None)
    assert (config.model, config.effort, config.memory_mode, config.max_tokens) == ("claude-haiku-5-5", "low", "preloaded", 8000)
    assert config.thinking == "adaptive"
    notice = config.notice
    assert notice is not None and "\n" not in notice
    assert str(path) in notice and reason in notice
    if key is not None:
        assert f"{key} was ignored" in notice
    else:
        assert f"{path} was ignored" in notice
    assert notice.endswith("The defaults apply instead.")
    voice = voice_settings()  # the app reads the [voice] table from the same file
    assert (voice.key, voice.speak) == ("f2", True)


def test_good_keys_beside_a_bad_one_still_apply(write_config, tmp_path):
    repo = tmp_path / "shop"
    repo.mkdir()
    write_config(f'model = "claude-sonnet-5-5"\neffort = 3\n[repos."{repo}"]\nbuild = "make build"\ntest = 7\n'
                 '[voice]\nkey = "f9"\nspeak = "no"\n')
    config = AgentConfig.from_env_and_args(None, repo=repo)
    assert (config.model, config.effort) == ("claude-sonnet-5-5", "low")
    assert (config.build_command, config.test_command) == ("make build", None)
    assert voice_settings().key == "f9"
    assert config.notice.count("was ignored") == 3
    assert load_user_config()["voice"] == {"key": "f9"}


def test_a_folder_where_the_file_should_be_is_named(write_config):
    path = config_file()
    path.mkdir()
    config = AgentConfig.from_env_and_args(None)
    assert config.model == "claude-haiku-5-5"
    assert f"{path} was ignored (it could not be read" in config.notice


def test_a_nul_in_a_repository_key_is_harmless(write_config, tmp_path):
    write_config('[repos."/x\\u0000y"]\nbuild = "make"\n')
    config = AgentConfig.from_env_and_args(None, repo=tmp_path)
    assert config.build_command is None and config.notice is None


def test_a_good_file_has_no_notice(write_config):
    write_config('model = "claude-sonnet-4-6"\nthinking = 2048\n[voice]\nspeak = false\n')
    config = AgentConfig.from_env_and_args(None)
    assert (config.model, config.thinking, config.notice) == ("claude-sonnet-4-6", "2048", None)
    assert voice_settings().speak is False


@pytest.mark.e2e
def test_ask_with_a_broken_config_runs_and_prints_one_line(claude_double, write_config, tmp_path):
    repo = tmp_path / "sandbox" / "app"
    repo.mkdir(parents=True)
    path = write_config(b'effort = "high"\nmodel = \xff\n')
    claude_double.add("Defaults it is.")
    out = subprocess.run(
        ["uv", "run", "--no-sync", "devagent", "ask", "--repo", str(repo), "--memory", "none", "hi"],
        cwd=ROOT, capture_output=True, text=True, timeout=120, env=os.environ.copy(),
    )
    assert out.returncode == 0, out.stderr
    assert "Traceback" not in out.stderr and "Defaults it is." in out.stdout
    lines = [line for line in out.stderr.splitlines() if str(path) in line]
    assert len(lines) == 1 and "not UTF-8" in lines[0]
    assert claude_double.requests[0].body["output_config"] == {"effort": "low"}
