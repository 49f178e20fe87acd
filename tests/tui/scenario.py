"""One realistic setting for the app, shared by the tmux test, the screenshots and the benchmark.

A .NET-shaped repository in the middle of a rename (the evaluation's fixture, with its
`dotnet` stand-in), a memory folder with a few notes of each kind (one of them stale), and
a Claude double in its own process scripted with a turn that checks git, builds, reads the
failing line and puts the fix on screen.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from agent.eval.harness import scoped_env
from tests.double.server import reply, text, tool_use

QUESTION = "Why is the build red?"
ROOT = Path(__file__).resolve().parents[2]

MEMORIES = [
    # file, name, type, description, body, age in days
    (
        "feedback_cs1591.md", "CS1591 warnings are noise", "feedback",
        "Missing XML doc warnings: never report them",
        "The user does not care about CS1591 (missing XML comment). Leave them out of build "
        "summaries unless asked.\n",
        3,
    ),
    (
        "project_patch_to_diff.md", "Rename Patch to Diff", "project",
        "Half-done rename of ChangedFile.Patch on rename-patch-to-diff",
        "Branch rename-patch-to-diff renames `ChangedFile.Patch` to `Diff`. Friday's state: "
        "one call site left in `src/ClaudeReviewBot.Core/Review/ReviewOrchestrator.cs:111`.\n\n"
        "Check the file before repeating this; it may be fixed by now.\n",
        0.1,
    ),
    (
        "user_short_answers.md", "Short spoken answers", "user",
        "One or two sentences aloud; details on screen",
        "Dana listens while typing elsewhere: answer in one or two spoken sentences and put "
        "code, diffs and logs on the screen pane.\n",
        9,
    ),
    (
        "reference_ci.md", "CI pipeline", "reference",
        "Where the build server's pipeline is defined",
        "The build server runs `build/azure-pipelines.yml`; a red CI run links to its log.\n",
        21,
    ),
]

FIX_MARKDOWN = """\
## CS1061 in ReviewOrchestrator.cs:111

The rename of `ChangedFile.Patch` to `Diff` left one call site behind:

```diff
-            var patchText = file.Patch;
+            var patchText = file.Diff;
```

Everything else compiles. The **CS1591** warnings are missing XML doc comments: noise, as you said.
"""

FINAL = (
    "The build is red because of **one error**: `CS1061` at `ReviewOrchestrator.cs:111` still "
    "reads `file.Patch` after the rename to `Diff`. The one-line fix is on screen. "
    "I left out the CS1591 warnings, as usual."
)


def double_script(*, long_reply: str | None = None) -> dict:
    from agent.eval import sources

    usage = {"input_tokens": 3412, "output_tokens": 118, "cache_read_input_tokens": 2980}
    replies = [
        reply(
            text("Let me look at the branch and build it."),
            tool_use("git_status", {}),
            tool_use("build", {}),
            usage=usage,
        ),
        reply(
            tool_use("read_file", {"path": sources.ORCHESTRATOR, "start_line": 104, "end_line": 116}),
            usage=usage,
        ),
        reply(
            tool_use("show_on_screen", {"title": "Fix for CS1061", "content": FIX_MARKDOWN, "format": "markdown"}),
            usage=usage,
        ),
        reply(text(FINAL), usage={**usage, "output_tokens": 64}, chunk=6, delay=0.01),
    ]
    script: dict = {"replies": replies, "default": reply(text("Done."))}
    if long_reply is not None:
        script["rules"] = [{"contains": "long", "reply": reply(text(long_reply), chunk=8, delay=0.01)}]
    return script


@dataclass
class World:
    root: Path
    repo: Path
    bin_dir: Path
    env: dict[str, str]  # what the app's process needs (XDG folders, PATH with dotnet)

    def apply(self) -> None:
        os.environ.update(self.env)

    def store(self):
        """The repository's store, located through this world's data folder whatever the caller's environment."""
        from memory.store import MemoryStore

        with scoped_env(**self.env):
            return MemoryStore.for_repository(self.repo)


def build_world(root: Path, *, memories: bool = True, trusted: bool = True) -> World:
    """Everything under `root`; nothing outside it is read or written."""
    from agent.eval.fixture import build_fixture

    root.mkdir(parents=True, exist_ok=True)
    env = {
        "XDG_DATA_HOME": str(root / "data"),
        "XDG_CONFIG_HOME": str(root / "config"),
        "XDG_CACHE_HOME": str(root / "cache"),
        "XDG_STATE_HOME": str(root / "state"),
        # libpulse's runtime folder, else it makes /tmp/pulse-XXXX and leaves it there
        "XDG_RUNTIME_DIR": str(root / "run"),
    }
    for value in env.values():
        Path(value).mkdir(mode=0o700, parents=True, exist_ok=True)
    fixture = build_fixture(root / "work")
    env["PATH"] = f"{fixture.bin_dir}{os.pathsep}{os.environ.get('PATH', os.defpath)}"
    world = World(root, fixture.repo, fixture.bin_dir, env)
    if trusted:
        # the user of the scenario said yes to this repository on an earlier day
        from agent.workspace_trust import FILE_NAME, TrustStore

        TrustStore(Path(env["XDG_CONFIG_HOME"]) / "devagent" / FILE_NAME).remember(fixture.repo, True)
    if memories:
        write_memories(world.store())
    return world


def write_memories(store) -> None:
    for file, name, kind, description, body, days in MEMORIES:
        content = f"---\nname: {name}\ndescription: {description}\ntype: {kind}\n---\n\n{body}"
        message, refused = store.save(f"/memories/{file}", content)
        if refused:
            raise RuntimeError(message)
        stamp = time.time() - days * 86400
        os.utime(Path(store.directory) / file, (stamp, stamp))
    # a folder the agent kept has its index: each memory has its line in MEMORY.md
    store.reindex()


class DoubleProcess:
    """The Claude double in its own process, as the real app meets the real API."""

    def __init__(self, script: dict, workdir: Path) -> None:
        workdir.mkdir(parents=True, exist_ok=True)
        self.script_file = workdir / "double-script.json"
        self.script_file.write_text(json.dumps(script))
        self.port_file = workdir / "double-port.txt"
        self.record = workdir / "double-requests.jsonl"
        self.port_file.unlink(missing_ok=True)
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tests.double.server", "--port", "0", "--script", str(self.script_file),
             "--port-file", str(self.port_file), "--record", str(self.record)],
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 20
        while not (self.port_file.exists() and self.port_file.read_text().strip()):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError("the Claude double did not start")
            time.sleep(0.02)
        self.port = int(self.port_file.read_text().strip())
        self.url = f"http://127.0.0.1:{self.port}"

    @property
    def env(self) -> dict[str, str]:
        return {"ANTHROPIC_BASE_URL": self.url, "ANTHROPIC_API_KEY": "sk-ant-test-double-key"}

    def requests(self) -> list[dict]:
        if not self.record.exists():
            return []
        return [json.loads(line) for line in self.record.read_text().splitlines() if line.strip()]

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def __enter__(self) -> DoubleProcess:
        return self

    def __exit__(self, *exc) -> None:
        self.stop()
