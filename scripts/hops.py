"""Counts the hops from Enter in the prompt to the reply drawn: calls that cross from one
product module (agent/, memory/, tui/) to another, on every thread, each counted once.

    uv run python scripts/hops.py [--list]

The app runs under Textual's Pilot against the Claude double, the session loaded before the
count starts. A call whose nearest product caller is in another module is a hop; so is a
product function entered with no product caller at all (a message handler Textual calls,
a thread's target): the message or the thread carried it across. `--list` prints each hop.
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
PACKAGES = tuple(str(ROOT / name) + os.sep for name in ("agent", "memory", "tui"))


def module_of(filename: str) -> str | None:
    if not filename.startswith(PACKAGES):
        return None
    return str(Path(filename).relative_to(ROOT).with_suffix(""))


class Hops:
    def __init__(self) -> None:
        self.edges: set[tuple[str, str]] = set()
        self.on = False

    def profile(self, frame, event, _arg) -> None:  # noqa: ANN001 (sys.setprofile's signature)
        if event != "call" or not self.on:
            return
        callee = module_of(frame.f_code.co_filename)
        if callee is None:
            return
        caller = frame.f_back
        while caller is not None and module_of(caller.f_code.co_filename) is None:
            caller = caller.f_back
        here = f"{callee}:{frame.f_code.co_name}"
        if caller is None:
            self.edges.add(("(message or thread)", here))
            return
        source = module_of(caller.f_code.co_filename)
        if source != callee:
            self.edges.add((f"{source}:{caller.f_code.co_name}", here))


async def count(listing: bool) -> None:
    from agent.settings.config import AgentConfig
    from tests.double.server import ClaudeDouble, text
    from tests.repos import GIT_IDENTITY, git_repo
    from tui.app import DevAgentApp

    with tempfile.TemporaryDirectory(prefix="devagent-hops-") as tmp:
        for name in ("DATA", "CONFIG", "CACHE", "STATE"):
            os.environ[f"XDG_{name}_HOME"] = str(Path(tmp) / name.lower())
        os.environ.update(GIT_IDENTITY)
        double = ClaudeDouble().start()
        os.environ["ANTHROPIC_BASE_URL"] = double.url
        os.environ["ANTHROPIC_API_KEY"] = "sk-ant-hops"
        reply = "The build is green."
        double.add(text(reply))
        repo = git_repo(Path(tmp) / "shop", {"README.md": "# shop\n"}, commit=True)
        app = DevAgentApp(repo, AgentConfig(thinking="off"), probe_voice=False)
        hops = Hops()
        # every thread the app starts from here on is followed (the count is off until Enter)
        threading.setprofile(hops.profile)
        try:
            async with app.run_test(size=(120, 40)) as pilot:
                while not app.turns.ready.is_set():
                    await pilot.pause(0.05)
                await pilot.pause(0.3)
                for key in "is the build green":
                    await pilot.press("space" if key == " " else key)
                sys.setprofile(hops.profile)
                hops.on = True
                await pilot.press("enter")
                while app.turns.running or reply not in "".join(str(w.render()) for w in app.conversation.query("*")):
                    await pilot.pause(0.01)
                hops.on = False
                sys.setprofile(None)
                threading.setprofile(None)  # type: ignore[arg-type]
        finally:
            double.stop()
    modules = {edge[1].split(":")[0] for edge in hops.edges} | {edge[0].split(":")[0] for edge in hops.edges}
    modules.discard("(message or thread)")
    if listing:
        for source, target in sorted(hops.edges):
            print(f"{source} -> {target}")
    ui = [e for e in hops.edges if e[1].startswith("tui/")]
    inside = [e for e in ui if e[0].startswith("tui/")]
    print(f"hops from Enter to the reply drawn: {len(hops.edges)}, through {len(modules)} modules;"
          f" {len(ui)} into tui/, {len(inside)} of them from tui/ itself")


if __name__ == "__main__":
    asyncio.run(count("--list" in sys.argv[1:]))
