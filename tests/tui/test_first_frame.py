"""Nothing slow comes before the first frame: only Textual, the standard library and the
app's own light modules are imported by then; the SDK, the memory store, Markdown, the
voice stack, the folder watcher, the agent's events and the memory checks come after."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT_DIR = Path(__file__).resolve().parents[2]

PROBE = """
import json, sys
from pathlib import Path
from agent.settings.config import AgentConfig
import tui.app
from tui.app import DevAgentApp

class Probe(DevAgentApp):
    CSS_PATH = str(Path(tui.app.__file__).with_name("app.tcss"))  # not beside this script

    def on_ready(self):
        self.seen = sorted(sys.modules)
        self.exit()

repo = Path(sys.argv[1])
app = Probe(repo, AgentConfig.from_env_and_args(None, repo), voice_off="off")
app.run(headless=True, size=(120, 40))
print(json.dumps(app.seen))
"""

SLOW = ("anthropic", "httpx", "numpy", "pygit2", "sounddevice", "faster_whisper", "piper", "watchfiles",
        "memory.store", "memory.secrets", "tui.widgets.conversation.reply", "markdown_it",
        # light, but each a few milliseconds of dataclasses and patterns the first frame
        # does without: the events come with the first turn, the checks with the listing
        "agent.events", "memory.evidence", "memory.freshness", "memory.citations", "memory.notes",
        # a few milliseconds each that only later work needs: the heap's trim, the branch's
        # read, the rewind list
        "ctypes", "memory.git", "tui.screens.rewind")


MOUNT_PROBE = """
import json, sys
from pathlib import Path
from agent.settings.config import AgentConfig
import tui.app
from tui.app import DevAgentApp

class Probe(DevAgentApp):
    CSS_PATH = str(Path(tui.app.__file__).with_name("app.tcss"))

    async def on_mount(self):
        await super().on_mount()
        self.seen = sorted(sys.modules)  # everything composed, nothing drawn yet

    def on_ready(self):
        self.exit()

repo = Path(sys.argv[1])
app = Probe(repo, AgentConfig.from_env_and_args(None, repo), voice_off="off")
app.run(headless=True, size=(120, 40))
print(json.dumps(app.seen))
"""

# What the first frame draws without: the memory pane's parts (mounted just after it), the
# folder's name (it hashes the path), the config file's parser (there is none here), the
# dialogs and bars a turn may open, the evidence check and the log's rotating file.
AFTER_THE_FRAME = ("tui.widgets.memory.list_widget", "tui.widgets.memory.preview", "tui.widgets.memory.instructions",
                   "memory.location", "hashlib", "tomllib", "tui.screens.trust", "tui.screens.command",
                   "tui.screens.allowed_commands", "tui.widgets.conversation.code_review", "memory.trust")


def test_what_the_panes_fill_in_after_the_first_frame_is_not_imported_for_it(repo, user_dirs):
    result = subprocess.run([sys.executable, "-c", MOUNT_PROBE, str(repo)], cwd=ROOT_DIR, capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]
    seen = set(json.loads(result.stdout.strip().splitlines()[-1]))
    assert "tui.widgets.memory.pane" in seen  # the probe looked after the panes were composed
    assert [name for name in AFTER_THE_FRAME if name in seen] == []


def test_nothing_slow_is_imported_before_the_first_frame(repo, user_dirs):
    result = subprocess.run([sys.executable, "-c", PROBE, str(repo)], cwd=ROOT_DIR, capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]
    seen = json.loads(result.stdout.strip().splitlines()[-1])
    early = [name for name in seen if name in SLOW or name.split(".")[0] in SLOW
             or name.startswith(tuple(f"{slow}." for slow in SLOW))]
    assert early == []


COLLECTOR_PROBE = """
import gc, json, sys
from pathlib import Path
from agent.heap import collector_held

held = collector_held()  # as `devagent` does before it imports the app
held.__enter__()
from agent.settings.config import AgentConfig
import tui.app
from tui.app import DevAgentApp

class Probe(DevAgentApp):
    CSS_PATH = str(Path(tui.app.__file__).with_name("app.tcss"))

    def on_mount(self):
        self.during = gc.isenabled()
        return super().on_mount()

    def on_ready(self):
        super().on_ready()
        self.after = (gc.isenabled(), gc.get_freeze_count())
        self.exit()

repo = Path(sys.argv[1])
app = Probe(repo, AgentConfig.from_env_and_args(None, repo), voice_off="off")
app.run(headless=True, size=(120, 40))
held.__exit__(None, None, None)
print(json.dumps([app.during, *app.after]))
"""


def test_the_collector_waits_for_the_first_frame_then_skips_what_start_up_built(repo, user_dirs):
    result = subprocess.run([sys.executable, "-c", COLLECTOR_PROBE, str(repo)], cwd=ROOT_DIR, capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]
    during, enabled_after, frozen = json.loads(result.stdout.strip().splitlines()[-1])
    assert during is False  # no collection while start-up builds the heap
    assert enabled_after is True  # collection resumes with the first frame...
    assert frozen > 10_000  # ...over what came after start-up only
