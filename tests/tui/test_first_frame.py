"""Nothing slow comes before the first frame: only Textual, the standard library and the
app's own light modules are imported by then; the SDK, the memory store, Markdown, the
voice stack and the folder watcher come after, in the background."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT_DIR = Path(__file__).resolve().parents[2]

PROBE = """
import json, sys
from pathlib import Path
from agent.config import AgentConfig
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

SLOW = ("anthropic", "httpx", "numpy", "sounddevice", "faster_whisper", "piper", "watchfiles",
        "memory.store", "memory.secrets", "textual.widgets._markdown", "markdown_it")


def test_nothing_slow_is_imported_before_the_first_frame(repo, user_dirs):
    result = subprocess.run([sys.executable, "-c", PROBE, str(repo)], cwd=ROOT_DIR, capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]
    seen = json.loads(result.stdout.strip().splitlines()[-1])
    early = [name for name in seen if name.split(".")[0] in SLOW or name.startswith(SLOW)]
    assert early == []
