"""Preloading is bounded by the caps: a hand-placed 203k-character file and a binary file
once made the system prompt 227k characters, sent on every turn."""

from __future__ import annotations

import os

import pytest

from agent.recall.memory_modes import preloaded_memory
from memory.store import MemoryStore
from tests.memory.helpers import snapshot
from tui.widgets.memory.listing import load_listing, preload_warning

PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 8
NOTE = "---\nname: build\ndescription: how to build\ntype: project\n---\nBuild with make.\n"


@pytest.fixture
def crowded(store) -> MemoryStore:
    folder = store.directory
    (folder / "build.md").write_text(NOTE)
    (folder / "dump.md").write_text("log line that goes on\n" * 9228)  # 203,016 characters
    (folder / "logo.png").write_bytes(PNG)
    (folder / "scan.md").write_bytes(PNG)
    return store


def test_over_cap_and_binary_files_are_named_not_loaded(crowded):
    loaded = crowded.preload()
    assert [f.path for f in loaded.files] == ["/memories/build.md"]
    reasons = {item.path: item.reason for item in loaded.left_out}
    assert reasons["/memories/dump.md"] == "203,016 characters, over the 4,000-character limit for one file"
    assert reasons["/memories/scan.md"].endswith("bytes, binary or not UTF-8 text, so not shown")
    assert reasons["/memories/logo.png"].startswith("skipped: not a memory: only .md files are")
    text = snapshot(crowded)
    assert "Build with make." in text and "log line" not in text and "PNG" not in text
    assert "- /memories/dump.md: 203,016 characters, over the 4,000-character limit" in text
    assert len(text) < 1000


def test_the_prompt_of_a_session_stays_within_the_caps(crowded, tmp_path):
    context = preloaded_memory(crowded, tmp_path)
    assert "Build with make." in context and "/memories/dump.md" in context
    assert len(context) < crowded.max_total_chars + 2000, len(context)


def test_files_past_the_total_are_named_in_path_order(tmp_path):
    store = MemoryStore(tmp_path / "m", max_file_chars=4000, max_total_chars=6000)
    for name in ("a.md", "b.md", "c.md"):
        (store.directory / name).write_text(name[0] * 2500)
    (store.directory / "MEMORY.md").write_text("- [c](c.md)\n")
    loaded = store.preload()
    assert [f.path for f in loaded.files] == ["/memories/MEMORY.md", "/memories/a.md", "/memories/b.md"]
    assert [(i.path, i.kind) for i in loaded.left_out] == [("/memories/c.md", "past the total")]
    assert loaded.chars <= 6000


def test_a_huge_file_is_not_read_whole(store):
    huge = store.directory / "huge.md"
    with open(huge, "wb") as handle:
        handle.truncate(50_000_000)  # sparse: 50 MB on paper, nothing on disk
    [item] = store.preload().left_out
    assert item.reason == "50,000,000 bytes, over the 4,000-character limit for one file"


def test_many_left_out_files_are_named_up_to_a_bound(tmp_path):
    store = MemoryStore(tmp_path / "m", max_file_chars=10, max_total_chars=100)
    for n in range(40):
        (store.directory / f"n{n:02d}.md").write_text("x" * 20)
    text = snapshot(store)
    assert text.count("\n- /memories/") == 20 and "- and 20 more" in text


def test_the_pane_warns_with_what_to_do(crowded):
    warning = preload_warning(load_listing(crowded))
    assert warning is not None
    assert "dump.md (203k chars)" in warning and "logo.png (skipped)" in warning and "scan.md (binary)" in warning
    assert "Shorten, merge or delete them (e, d)" in warning
    os.remove(crowded.directory / "dump.md")
    os.remove(crowded.directory / "logo.png")
    os.remove(crowded.directory / "scan.md")
    assert preload_warning(load_listing(crowded)) is None


@pytest.fixture
def anyio_backend():
    return "asyncio"


@pytest.mark.anyio
async def test_the_warning_shows_in_the_running_pane(crowded, tmp_path, monkeypatch):
    from textual.widgets import Static

    from agent.settings.config import AgentConfig
    from tui.app import DevAgentApp
    from tui.widgets.memory.pane import MemoryPane

    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    repo = tmp_path / "repo"
    repo.mkdir()
    app = DevAgentApp(repo, AgentConfig(thinking="off"), store=crowded, probe_voice=False)
    async with app.run_test(size=(160, 48)) as pilot:
        pane = app.query_one(MemoryPane)
        for _ in range(250):
            if pane.loads:
                break
            await pilot.pause(0.02)
        warning = pane.query_one("#memory-warning", Static)
        # laid out on the next refresh after the listing
        for _ in range(100):
            if warning.display and warning.region.height >= 1:
                break
            await pilot.pause(0.02)
        assert warning.display and warning.region.height >= 1
        assert "Not preloaded: logo.png (skipped), dump.md" in str(warning.render())
