"""A scripted model for the fareshare scenario: it answers from what the request carries.

As tests/eval/scripted_model.py does for the C# scenario: it knows the scenario's facts
only when the request holds them (the preloaded memory, a memory file it read, the replayed
history, the notes), and the weekend's commit only when the briefing's git_log showed it.
So each memory mode gets the answers its request deserves, and the tests check the harness.
"""

from __future__ import annotations

from agent.loop.welcome_back import OWN_WORDS
from agent.prompts import summary_request
from agent.tools.text_editor import EDITOR_NAME
from tests.double.server import Request, reply, tool_use
from tests.eval.scripted_model import _created, _known, _memory_calls, _question

CONVENTION = "Tests are plain pytest functions with fixtures in tests/conftest.py; never unittest classes."
OWNER = "Margit owns fareshare/payouts/: any change there goes through her."
DECISION = "The store stays SQLite, not Postgres: the CLI must run offline."
PLAN = "Release 0.4 checklist: 1. --json on export (done); 2. document it in the README; 3. bump the version."
NOTES = f"- {CONVENTION}\n- {OWNER}\n- {DECISION}\n- {PLAN}"
MEMORIES = {
    "Tests here are plain": ("/memories/conventions.md", CONVENTION),
    "Margit owns": ("/memories/owners.md", OWNER),
    "We keep SQLite": ("/memories/decisions.md", DECISION),
    "Release 0.4 checklist": ("/memories/release-0.4.md", PLAN),
}
PLAIN_TEST = (
    "from fareshare.payouts.fees import share_cents\n\n\n"
    "def test_shares_add_up_after_rounding():\n    assert share_cents(100, 3) == [33, 33, 34] or sum(share_cents(100, 3)) == 100\n"
)
CLASS_TEST = (
    "import unittest\n\nfrom fareshare.payouts.fees import share_cents\n\n\n"
    "class TestRounding(unittest.TestCase):\n    def test_sum(self):\n        self.assertEqual(sum(share_cents(100, 3)), 100)\n"
)


def respond(request: Request):
    tools = request.tool_names()
    if summary_request() in request.last_user_text():
        return reply(NOTES)
    question, calls, results = _question(request)
    ran = [c.get("name") for c in calls]
    known = _known(request)

    if "memory" in tools and "Your memory directory as this session started" not in request.system_text():
        viewed = [c.get("path") for c in _memory_calls(request) if c.get("command") == "view"]
        if not viewed:
            return reply(tool_use("memory", {"command": "view", "path": "/memories"}))
        if viewed == ["/memories"] and ran == ["memory"]:
            unread = [path for path, _ in MEMORIES.values() if path.rsplit("/", 1)[-1] in results]
            if unread:
                return reply(*[tool_use("memory", {"command": "view", "path": p}) for p in unread])

    if question.startswith("Run the tests"):
        if "test" not in ran:
            return reply(tool_use("test", {}))
        return reply("The suite passes." if "passed" in results else "The tests did not run.")
    for start, (path, fact) in MEMORIES.items():
        if question.startswith(start):
            if "memory" in tools and not _created(calls, path):
                return reply(tool_use("memory", {"command": "create", "path": path, "file_text": fact + "\n"}))
            return reply("Noted.")

    knows_plan = "3. bump the version" in known
    docs_done = "README: document export --json" in known
    if question.startswith(OWN_WORDS):
        said = []
        if docs_done:
            said.append("Teodor Lind documented export --json in the README on Saturday.")
        if knows_plan:
            said.append("You were on the release 0.4 checklist; next is the version bump." if docs_done
                        else "You were on the release 0.4 checklist; the README step is still to do.")
        return reply(" ".join(said) or "Nothing to report.")
    if question.startswith("What's next for the release"):
        if not knows_plan:
            return reply("Which release do you mean?")
        if docs_done:
            return reply("Bump the version to 0.4.0: the README step is done, Teodor committed it.")
        return reply("Next, document --json in the README, then bump the version.")
    if question.startswith("Add a test for the rounding"):
        if EDITOR_NAME not in ran:
            body = PLAIN_TEST if "never unittest classes" in known else CLASS_TEST
            return reply(tool_use(EDITOR_NAME, {"command": "create", "path": "tests/test_fees.py", "file_text": body}))
        owner = " Margit owns payouts/, so run it by her." if "Margit owns" in known else ""
        return reply("Added tests/test_fees.py." + owner)
    if question.startswith("Should we switch the store"):
        if "must run offline" in known:
            return reply("No: we keep SQLite because the CLI must run offline.")
        return reply("Postgres would handle more concurrent writers.")
    return reply("I don't follow.")
