"""build and test run in the same sandbox as an approved command: a trusted repository's tests
cannot read the user's keys, write outside the repository or reach the network, unless the
user's config allows that repository the network.

The repository's tests are the probes: each one tries what the sandbox must stop, and
passes only when it was stopped; the test report's counts say which did.
"""

from __future__ import annotations

import os
import socket
import threading
from pathlib import Path

from agent.settings.config import AgentConfig
from agent.tools.base import ToolContext
from agent.tools.build import RunTestsTool
from tests.system_packages import needs
from tests.tools.repos import python_repo

pytestmark = needs("bubblewrap")
BAIT = "BAIT-build-sandbox"


def _probes(repo, outside, home, port: int) -> None:
    (repo / "tests" / "test_probes.py").write_text(
        "import os, pathlib, socket\n\n"
        "def test_no_key_in_the_environment():\n"
        "    assert 'ANTHROPIC_API_KEY' not in os.environ and 'GH_TOKEN' not in os.environ\n\n"
        "def test_no_ssh_key():\n"
        f"    assert not pathlib.Path({str(home / '.ssh' / 'id_ed25519')!r}).exists()\n"
        "    assert not pathlib.Path(os.path.expanduser('~/.ssh')).exists()\n\n"
        "def test_write_outside():  # inside, it may land in the sandbox's own /tmp; outside, nothing\n"
        "    try:\n"
        f"        pathlib.Path({str(outside)!r}).write_text('x')\n"
        "    except OSError:\n"
        "        pass\n\n"
        "def test_network():\n"
        f"    socket.create_connection(('127.0.0.1', {port}), timeout=3).close()\n"
    )


def test_a_trusted_repositorys_tests_run_sandboxed_and_the_network_only_where_allowed(tmp_path, monkeypatch):
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_ed25519").write_text(BAIT)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("ANTHROPIC_API_KEY", f"sk-ant-api03-{BAIT}")
    monkeypatch.setenv("GH_TOKEN", BAIT)
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    threading.Thread(target=lambda: [server.accept()[0].close() for _ in range(8)], daemon=True).start()
    repo = python_repo(tmp_path / "sandbox")
    outside = tmp_path / "written-by-the-tests.txt"
    _probes(repo, outside, home, server.getsockname()[1])

    closed = RunTestsTool().run({"filter": "probes"}, ToolContext(repo, config=AgentConfig()))
    # every probe passed but the network one: the key, the ssh folder and the write were stopped
    assert closed.summary == "1 failed, 3 passed · .venv", closed.text
    assert "test_network" in closed.text and not outside.exists()

    opened = RunTestsTool().run({"filter": "probes"}, ToolContext(repo, config=AgentConfig(network=True)))
    assert opened.summary == "0 failed, 4 passed · .venv", opened.text
    server.close()


def test_the_per_repository_network_setting_is_read_from_the_config_file(tmp_path):
    repo = tmp_path / "shop"
    repo.mkdir()
    folder = Path(os.environ["XDG_CONFIG_HOME"]) / "devagent"
    folder.mkdir(parents=True)
    (folder / "config.toml").write_text(f'[repos."{repo}"]\nnetwork = true\n')
    assert AgentConfig.from_env_and_args(repo=repo).network is True
    assert AgentConfig.from_env_and_args(repo=tmp_path).network is False
