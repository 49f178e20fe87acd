"""Fixtures of the app's tests: a small git repository, its memory store, the app on it."""

from __future__ import annotations

import asyncio
import gc
import html
import os
import re
import time
from pathlib import Path

import pytest

from tests.repos import GIT_IDENTITY

# what the repository every app test opens holds, committed
SHOP = {"README.md": "# shop\n", "src/ReviewOrchestrator.cs": "class ReviewOrchestrator {}\n"}


@pytest.fixture
def anyio_backend():
    return "asyncio"


HERE = Path(__file__).parent


def pytest_collection_modifyitems(items):
    # Pilot tests are coroutines; anyio's pytest plugin (installed with the SDK) runs them.
    # The hook sees the whole session's items: only this folder's are touched.
    for item in items:
        if HERE in Path(str(item.path)).parents and asyncio.iscoroutinefunction(getattr(item, "function", None)):
            item.add_marker(pytest.mark.anyio)


@pytest.fixture(autouse=True)
def runtime_dir(tmp_path_factory, monkeypatch) -> Path:
    """Without XDG_RUNTIME_DIR, libpulse (under PortAudio's probe) makes /tmp/pulse-XXXX
    folders that outlive the test."""
    folder = tmp_path_factory.mktemp("run")
    folder.chmod(0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(folder))
    return folder


@pytest.fixture
def git_identity(monkeypatch):
    for key, value in GIT_IDENTITY.items():
        monkeypatch.setenv(key, value)


@pytest.fixture
def no_key(monkeypatch):
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def repo(make_repo, user_dirs, git_identity) -> Path:
    return make_repo("shop", SHOP, commit=True, under="src")


@pytest.fixture
def store(repo):
    from memory.store import MemoryStore

    return MemoryStore.for_repository(repo)


@pytest.fixture
def make_app(repo, store):
    from agent.settings.config import AgentConfig
    from tui.app import DevAgentApp

    def make(probe_voice: bool = False, **config) -> DevAgentApp:
        config.setdefault("thinking", "off")
        return DevAgentApp(repo, AgentConfig(**config), store=store, probe_voice=probe_voice)

    # the app sets the collector's thresholds for the whole process (agent.heap): the next
    # test starts with the interpreter's own
    thresholds = gc.get_threshold()
    yield make
    gc.set_threshold(*thresholds)


def memory_text(name: str, description: str, body: str, type: str = "user") -> str:
    return f"---\nname: {name}\ndescription: {description}\ntype: {type}\n---\n\n{body}\n"


def write_memory(store, file: str, name: str, description: str, body: str, type: str = "user", age_days: float | None = None) -> Path:
    """A write from outside the app (another session, an editor): straight to the folder."""
    path = Path(store.directory) / file
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(memory_text(name, description, body, type))
    if age_days is not None:
        stamp = time.time() - age_days * 86400
        os.utime(path, (stamp, stamp))
    return path


async def wait_for(pilot, predicate, timeout: float = 10.0, what: str = "the app") -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await pilot.pause(0.02)


async def ask(pilot, question: str, timeout: float = 20.0) -> None:
    """Asks from the prompt, as the user does, and waits until the turn has run and its
    widgets are on screen."""
    from tui.widgets.prompt import Prompt

    prompt = pilot.app.query_one("#prompt", Prompt)
    prompt.focus()
    prompt.value = question
    await pilot.press("enter")
    await wait_for(pilot, lambda: pilot.app.turns.session is not None and not pilot.app.running, timeout, "the turn to finish")
    await pilot.pause()


async def type_text(pilot, text: str) -> None:
    for char in text:
        await pilot.press("space" if char == " " else char)


# one run of text in a screenshot (Rich's SVG export): where it starts, its row, the text
_SVG_TEXT = re.compile(r'<text class="[^"]*" x="([0-9.]+)" y="[0-9.]+" textLength="([0-9.]+)" '
                       r'clip-path="url\(#[^)]*-line-(\d+)\)">(.*?)</text>')


def screen_lines(app) -> list[str]:
    """What the terminal would show now, one string per row (a wide character is one
    character of it), read from the app's own screenshot."""
    from rich.cells import cell_len

    width, height = app.size
    runs: list[list[tuple[int, str]]] = [[] for _ in range(height)]
    cell = 0.0
    for x, length, row, escaped in _SVG_TEXT.findall(app.export_screenshot()):
        text = html.unescape(escaped).replace("\xa0", " ")
        cell = cell or float(length) / len(text)  # every character of a run is one cell wide
        if int(row) < height:
            runs[int(row)].append((round(float(x) / cell), text))
    lines = []
    for found in runs:
        line, at = "", 0
        for column, text in sorted(found):
            line += " " * (column - at) + text
            at = column + cell_len(text)
        lines.append(line + " " * (width - at))
    return lines


def region_text(app, region) -> str:
    """The rows and columns of `region` (screen coordinates) as shown now."""
    rows = screen_lines(app)[region.y : region.bottom]
    return "\n".join(row[region.x : region.right] for row in rows)


def notified(app) -> list[str]:
    """Every message `app` notifies from now on (its toasts), recorded through its public
    notify, which widgets' own notify calls too."""
    messages: list[str] = []
    notify = app.notify

    def recording(message, *args, **kwargs):
        messages.append(str(message))
        return notify(message, *args, **kwargs)

    app.notify = recording
    return messages
