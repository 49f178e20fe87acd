"""What the first request carries before the user's first word, part by part.

    uv run python benchmarks/first_request.py [--repo CLONE]

A session in index mode (the memory tool, and only the index in the prompt) on a fresh
repository, with the default settings (the text editor offered, its writes held for
review), sends one question to the Claude double; the request it received is taken apart:
the system prompt, each tool's definition as sent, the memory block and the repository's
instructions. The memory and editor tools of Anthropic's own schema are counted as sent
(a name and a type): the text the API adds for them cannot be counted here.

Target: the system prompt and the tool definitions together at most 11,000 characters
(memory and instructions are the user's and the repository's, counted apart). The token
figure is the double's count_tokens answer for the whole request, its estimate of a
quarter of the characters.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.common import Row, machine, print_rows  # noqa: E402

LIMIT = 11_000
INSTRUCTIONS = "Run the tests with `make check`; keep functions short.\n"
MEMORY = "---\nname: style\ntype: user\ndescription: how answers should sound\n---\nShort answers.\n"


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True,
                   env={**os.environ, "GIT_AUTHOR_NAME": "A", "GIT_AUTHOR_EMAIL": "a@example.com",
                        "GIT_COMMITTER_NAME": "A", "GIT_COMMITTER_EMAIL": "a@example.com"})


def parts_of(body: dict, instructions: str) -> dict[str, int]:
    """The characters of each part of a request's body: the system prompt (the instructions'
    block, `instructions`, and the memory block taken out), each tool's JSON, the memory
    block, the instructions."""
    blocks = [b["text"] for b in body["system"]]
    stable = blocks[0]
    given = instructions if instructions and instructions in stable else ""
    stable = stable.replace(given, "").rstrip() if given else stable
    memory = "\n\n".join(blocks[1:])
    parts = {"system prompt": len(stable)}
    for tool in body["tools"]:
        sent = {k: v for k, v in tool.items() if k != "cache_control"}
        parts[f"tool {tool['name']}"] = len(json.dumps(sent, ensure_ascii=False))
    parts["memory"] = len(memory)
    parts["instructions"] = len(given)
    return parts


def measure(clone: Path | None = None) -> tuple[dict[str, int], int, str]:
    """The parts of the first request in a fresh repository, or in `clone` (left as it is:
    the session writes only to the temporary data folders)."""
    from agent.loop.session import Session
    from agent.settings.config import AgentConfig
    from tests.double.server import ClaudeDouble, reply, text

    with tempfile.TemporaryDirectory(prefix="devagent-first-request-") as folder:
        base = Path(folder)
        os.environ.update(XDG_DATA_HOME=str(base / "data"), XDG_CONFIG_HOME=str(base / "config"),
                          XDG_STATE_HOME=str(base / "state"), XDG_CACHE_HOME=str(base / "cache"))
        repo = clone or base / "shop"
        if clone is None:
            repo.mkdir()
            _git(repo, "init", "-q")
            (repo / "AGENTS.md").write_text(INSTRUCTIONS)
            _git(repo, "add", "-A")
            _git(repo, "commit", "-q", "-m", "start")
        from agent.workspace_trust import WorkspaceTrust

        trust = WorkspaceTrust(repo, for_this_run=True)
        double = ClaudeDouble().start()
        os.environ.update(ANTHROPIC_BASE_URL=double.url, ANTHROPIC_API_KEY="sk-ant-test")
        try:
            session = Session(repo, AgentConfig(memory_mode="index"), trust=trust)
            session.store.run({"command": "create", "path": "/memories/user/style.md", "file_text": MEMORY})
            session = Session(repo, AgentConfig(memory_mode="index"), trust=trust)
            double.add(reply(text("Fine.")))
            session.send("hi", lambda event: None)
            body = double.messages_requests()[-1].body
            counted = session.client.messages.count_tokens(
                model=body["model"], system=body["system"], tools=body["tools"], messages=body["messages"])
        finally:
            double.stop()
        return parts_of(body, session.instructions.text()), int(counted.input_tokens), body["model"]


def run(clone: Path | None = None) -> list[Row]:
    print(f"machine: {machine()}" + (f"; repository {clone}" if clone else ""))
    parts, tokens, model = measure(clone)
    width = max(len(name) for name in parts)
    for name, size in parts.items():
        print(f"  {name:<{width}}  {size:>6,} chars")
    prompt = sum(size for name, size in parts.items() if name not in ("memory", "instructions"))
    print(f"  {'system prompt and tools':<{width}}  {prompt:>6,} chars (target <= {LIMIT:,})")
    print(f"  whole request, as the double counts it: {tokens:,} tokens ({model})")
    return [Row("first request: system prompt and tools, index mode", prompt, limit=LIMIT, of="figure", unit="chars",
                note=f"{tokens:,} tokens in all", extra=parts)]


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo", type=Path, help="a clone to measure in instead of a fresh repository")
    print_rows(run(parser.parse_args().repo))
