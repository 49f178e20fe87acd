"""Fixtures for the memory store tests: nothing here may touch the real data directory."""

from __future__ import annotations

import pytest

from memory.store import MemoryStore


@pytest.fixture(autouse=True)
def private_data_dir(tmp_path_factory, monkeypatch):
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("XDG_DATA_HOME", str(home / "data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / "config"))
    monkeypatch.setenv("HOME", str(home))
    return home / "data"


@pytest.fixture
def store(tmp_path) -> MemoryStore:
    return MemoryStore(tmp_path / "store" / "memories")
