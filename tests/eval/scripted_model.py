"""A scripted model for the Claude double: it answers from what the request carries.

It knows nothing by itself. What it remembers on Monday is whatever the request holds, the
preloaded memory, the replayed history, the notes, or files it reads with the memory tool,
so each memory mode gets the answers its request deserves and the harness, not the model,
is what the tests check. It builds, reads and writes memory through real tool calls.
"""

from __future__ import annotations

import json
import re

from agent.loop.welcome_back import OWN_WORDS
from agent.prompts import summary_request
from tests.double.server import Request, reply, text, tool_use

PLAN = "I'll finish ReviewOrchestrator on Monday"
MEMORY_PLAN = "Plan (2026-11-06): finish the ReviewOrchestrator call site of the Patch -> Diff rename on Monday."
MEMORY_CORE = "The developer cares about the Core project (src/ClaudeReviewBot.Core); the CLI is just a wrapper."
MEMORY_WARNINGS = "CS1591 is noise: ignore it. Nullable warnings are real."
# State a tool can tell, saved anyway, as the reference scenario's models did.
MEMORY_STATE = "Open build error: ReviewOrchestrator.cs line 111 still uses file.Patch."
NOTES = (
    "- The developer cares about the Core project; the CLI is a wrapper.\n"
    "- CS1591 is noise; nullable warnings are real.\n"
    f"- {MEMORY_PLAN}\n"
    "- The build failed with 1 error at line 111."
)


def _text_of(value) -> str:
    return json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else value


def _question(request: Request) -> tuple[str, list[dict], str]:
    """The user's latest typed words, the tool calls made since, and what they returned."""
    messages = request.messages
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if message.get("role") != "user":
            continue
        content = message.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content or []
        texts = [b.get("text", "") for b in blocks if isinstance(b, dict) and b.get("type") == "text"]
        texts = [t for t in texts if t and not t.startswith("Today is ")]
        if texts:
            calls, results = [], []
            for later in messages[index + 1 :]:
                for block in later.get("content") or []:
                    if not isinstance(block, dict):
                        continue
                    if block.get("type") == "tool_use":
                        calls.append(block)
                    elif block.get("type") == "tool_result":
                        results.append(_text_of(block.get("content", "")))
            return texts[-1], calls, "\n".join(results)
    return "", [], ""


def _known(request: Request) -> str:
    """Everything the request carries apart from the tools: what this model can know."""
    body = request.body if isinstance(request.body, dict) else {}
    return _text_of(body.get("system", "")) + "\n" + _text_of(body.get("messages", []))


def _memory_calls(request: Request) -> list[dict]:
    calls = []
    for message in request.messages:
        content = message.get("content")
        if message.get("role") == "assistant" and isinstance(content, list):
            calls += [b.get("input", {}) for b in content if b.get("type") == "tool_use" and b.get("name") == "memory"]
    return calls


def _created(calls: list[dict], path: str) -> bool:
    return any(c.get("name") == "memory" and c.get("input", {}).get("path") == path for c in calls)


def respond(request: Request):
    tools = request.tool_names()
    has_memory = "memory" in tools
    if summary_request() in request.last_user_text():
        return reply(NOTES)
    question, calls, results = _question(request)
    ran = [c.get("name") for c in calls]
    known = _known(request)

    # On a fresh session with the memory tool and nothing preloaded, look first, as the
    # API's own instruction to the tool tells real models to.
    if has_memory and "Your memory directory as this session started" not in request.system_text():
        viewed = [c.get("path") for c in _memory_calls(request) if c.get("command") == "view"]
        if not viewed:
            return reply(tool_use("memory", {"command": "view", "path": "/memories"}))
        if viewed == ["/memories"] and ran == ["memory"]:
            files = re.findall(r"/memories/[\w./-]+\.md", results) or [
                f"/memories/{n}" for n in re.findall(r"([\w-]+\.md)", results)
            ]
            unread = [f for f in files if not f.endswith("MEMORY.md")]
            if unread:
                return reply(*[tool_use("memory", {"command": "view", "path": f}) for f in unread])

    if question.startswith("Why is the build red"):
        if "build" not in ran:
            return reply(tool_use("build", {}))
        return reply("One error, CS1061: ReviewOrchestrator line 111 still uses Patch.")
    if question.startswith("The core project"):
        if has_memory and not _created(calls, "/memories/project.md"):
            return reply(tool_use("memory", {"command": "create", "path": "/memories/project.md", "file_text": MEMORY_CORE + "\n"}))
        return reply("Got it: Core first.")
    if question.startswith("And CS1591"):
        if has_memory and not _created(calls, "/memories/warnings.md"):
            return reply(tool_use("memory", {"command": "create", "path": "/memories/warnings.md", "file_text": MEMORY_WARNINGS + "\n"}))
        return reply("Noted.")
    if question.startswith("What did I change"):
        if "git_status" not in ran:
            return reply(tool_use("git_status", {}))
        return reply("Four files in Core, uncommitted, on the rename branch.")
    if question.startswith("I'm renaming"):
        if has_memory and not _created(calls, "/memories/plan.md"):
            note = f"{MEMORY_PLAN}\n{MEMORY_STATE}\n"
            return reply(tool_use("memory", {"command": "create", "path": "/memories/plan.md", "file_text": note}))
        return reply("Noted, ReviewOrchestrator waits for Monday.")
    if question.startswith("Run the tests"):
        if "test" not in ran:
            return reply(tool_use("test", {}))
        return reply("The tests did not run: the build fails first.")

    knows_plan = PLAN in known or "finish the ReviewOrchestrator call site" in known
    knows_core = "core project is the one I care about" in known or "cares about the Core project" in known
    if question.startswith(("What was I doing", OWN_WORDS)):  # asked, or the welcome-back briefing
        if knows_plan:
            return reply("On Friday you were renaming Patch to Diff. What was left is the ReviewOrchestrator call site.")
        if "git_status" not in ran:
            return reply(tool_use("git_status", {}))
        return reply("I can't see Friday, only the current state: four changed files on the rename branch.")
    if question.startswith("Build the project"):
        if not knows_core:
            return reply("Which project do you mean, Core or the CLI?")
        if "build" not in ran:
            return reply(tool_use("build", {"project": "src/ClaudeReviewBot.Core"}))
        return reply("Core fails: CS1061 in ReviewOrchestrator." if "CS1061" in results else "Core builds.")
    if question.startswith("What's left"):
        if "build" not in ran:
            return reply(tool_use("build", {}))
        if "CS1061" in results:
            return reply("One call site is left: ReviewOrchestrator line 111 still uses Patch.")
        return reply("Nothing is left: it builds.")
    if question.startswith("Finish the rename"):
        from agent.eval import sources
        from agent.tools.text_editor import EDITOR_NAME

        if "CS1061" not in known and not knows_plan:
            return reply("Which rename do you mean?")
        if EDITOR_NAME not in ran:
            edit = {"command": "str_replace", "path": sources.ORCHESTRATOR, "old_str": sources.LEFT_OVER,
                    "new_str": sources.FINISHED}
            return reply(tool_use(EDITOR_NAME, edit))
        return reply("The last call site reads file.Diff now.")
    if question.startswith("Build it"):
        if "build" not in ran:
            return reply(tool_use("build", {}))
        return reply("Core fails: CS1061." if "CS1061" in results else "It builds.")
    return reply(text("I don't follow."))
