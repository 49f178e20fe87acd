"""Fixtures of the developer tool tests: an isolated environment and a dotnet on PATH."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.tools.repos import HERE, install_executable


@pytest.fixture(autouse=True)
def isolated_env(tmp_path_factory, monkeypatch):
    """No test reads the developer's git config or data, and every commit has an identity."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / "data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / "config"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for kind in ("AUTHOR", "COMMITTER"):
        monkeypatch.setenv(f"GIT_{kind}_NAME", "Test Developer")
        monkeypatch.setenv(f"GIT_{kind}_EMAIL", "dev@example.invalid")
    # The fixture projects' pytest runs need none of the plugins installed here; loading them
    # all costs a second per run.
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    monkeypatch.delenv("FAKE_DOTNET_SLEEP", raising=False)
    monkeypatch.delenv("FAKE_DOTNET_PIDS", raising=False)
    monkeypatch.delenv("FAKE_DOTNET_TRX", raising=False)


@pytest.fixture
def fake_dotnet(tmp_path, monkeypatch) -> Path:
    """The `dotnet` stand-in, first on PATH for this test."""
    bin_dir = tmp_path / "fake-bin"
    install_executable(bin_dir, "dotnet", HERE / "fake_dotnet.py")
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    return bin_dir / "dotnet"
