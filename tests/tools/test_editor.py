"""The text editor tool end to end: the real SDK talks to the Claude double, which checks
the tool's definition as the API does, and the model's calls change real files."""

from __future__ import annotations

import os
import subprocess
import threading
from pathlib import Path

import pytest

from agent.decisions import Decision
from agent.events import CodeChangeHeld, CodeChangeSettled
from agent.loop.held_changes import APPLIED as HELD_APPLIED
from agent.loop.session import Session
from agent.settings.config import AgentConfig
from agent.tools.editor.journal import history, undo_last
from agent.tools.paths import MAX_FILE_BYTES
from agent.tools.text_editor import AUTO_APPLIED, EDITOR_NAME
from tests.agent.sessions import session as new_session
from tests.agent.toolkit import EchoTool
from tests.double.server import reply, request_problem, text_editor_problem, tool_use
from tests.marked_text import unmarked

APP = "def greet(name):\n    return 'Hello ' + name\n\n\ndef main():\n    print(greet('world'))\n"

AUTO = AUTO_APPLIED + " "
APPLIED = HELD_APPLIED + " "


@pytest.fixture
def repo(make_repo) -> Path:
    return make_repo(files={"app.py": APP}, under="")


def edit(command: str, path: str = "app.py", **fields) -> dict:
    return tool_use(EDITOR_NAME, {"command": command, "path": path, **fields})


def session(repo: Path, writes: str = "auto") -> Session:
    return new_session(repo, tools=[EchoTool()], memory_mode="none", code_writes=writes)


def results(double) -> list[dict]:
    return [r for req in double.messages_requests() for r in req.tool_results()]


def run(repo: Path, double, *calls: dict, writes: str = "auto", decide=None) -> tuple[list[dict], list]:
    for call in calls:
        double.add(reply(*call) if isinstance(call, list) else call)
    double.add("Done.")
    seen: list = []

    def sink(event):
        seen.append(event)
        if isinstance(event, CodeChangeHeld) and decide is not None:
            talk.decisions.post(Decision(event.id, decide(event)))

    talk = session(repo, writes)
    talk.send("Finish the rename.", sink)
    return results(double), seen


# --- the definition the API knows --------------------------------------------------------


def test_the_tool_is_offered_as_the_api_types_it(repo, claude_double):
    claude_double.add("Nothing to do.")
    session(repo).send("Hello", lambda e: None)
    tools = claude_double.messages_requests()[0].body["tools"]
    editor = [{k: v for k, v in t.items() if k != "cache_control"} for t in tools if t.get("type")]
    assert editor == [{"type": "text_editor_20250728", "name": "str_replace_based_edit_tool"}]


def test_off_does_not_offer_it(repo, claude_double):
    claude_double.add("Nothing to do.")
    session(repo, "off").send("Hello", lambda e: None)
    assert EDITOR_NAME not in claude_double.messages_requests()[0].tool_names()


def test_the_double_refuses_a_misnamed_or_padded_editor():
    assert text_editor_problem([{"type": "text_editor_20250728", "name": "edit"}]).endswith(
        "Input should be 'str_replace_based_edit_tool'")
    assert "Extra inputs" in text_editor_problem([{"type": "text_editor_20250728", "name": EDITOR_NAME, "input_schema": {}}])
    assert "max_characters" in text_editor_problem([{"type": "text_editor_20250728", "name": EDITOR_NAME, "max_characters": 0}])
    good = {"messages": [{"role": "user", "content": "hi"}],
            "tools": [{"type": "text_editor_20250728", "name": EDITOR_NAME, "max_characters": 10000}]}
    assert request_problem(good) is None


# --- the commands --------------------------------------------------------------------------


def viewed(content: str) -> str:
    """What view showed: the repository's text reaches the model inside the data mark."""
    return unmarked(content)[2]


def test_view_numbers_lines_as_documented(repo, claude_double):
    out, _ = run(repo, claude_double, edit("view"), edit("view", view_range=[5, -1]), edit("view", "."))
    assert viewed(out[0]["content"]).splitlines()[:2] == ["1: def greet(name):", "2:     return 'Hello ' + name"]
    assert viewed(out[1]["content"]).splitlines() == ["5: def main():", "6:     print(greet('world'))"]
    assert "app.py" in viewed(out[2]["content"]) and ".git" not in out[2]["content"]


def test_str_replace_create_and_insert_write_the_files(repo, claude_double):
    out, seen = run(
        repo, claude_double,
        edit("str_replace", old_str="def greet(name)", new_str="def welcome(name)"),
        edit("create", "pkg/util.py", file_text="X = 1\n"),
        edit("insert", insert_line=0, insert_text="import sys"),
    )
    # each says it is written: a model must not take an applied change for one waiting for the user
    assert [r["content"].split("\n")[0] for r in out] == [
        AUTO + "Successfully replaced text at exactly one location.", AUTO + "File created successfully.",
        AUTO + "Text inserted successfully.",
    ]
    assert (repo / "app.py").read_text().startswith("import sys\ndef welcome(name):")
    assert (repo / "pkg" / "util.py").read_text() == "X = 1\n"
    screens = [e for e in seen if type(e).__name__ == "ShowOnScreen"]
    assert screens and screens[-1].format == "diff" and "+def welcome(name):" in screens[-1].content


def test_no_match_and_several_matches_are_the_documented_errors(repo, claude_double):
    out, _ = run(repo, claude_double, edit("str_replace", old_str="goodbye", new_str="x"),
                 edit("str_replace", old_str="greet", new_str="x"))
    assert out[0] == {**out[0], "is_error": True}
    assert out[0]["content"] == "Error: No match found for replacement. Please check your text and try again."
    assert out[1]["content"] == "Error: Found 2 matches for replacement text. Please provide more context to make a unique match."
    assert (repo / "app.py").read_text() == APP


def test_a_write_keeps_the_files_mode(repo, claude_double):
    os.chmod(repo / "app.py", 0o755)
    run(repo, claude_double, edit("str_replace", old_str="main()", new_str="run()"))
    assert oct(os.stat(repo / "app.py").st_mode & 0o777) == oct(0o755)
    assert [p.name for p in repo.iterdir() if p.name.startswith(".tmp-")] == []


# --- every refusal is an error result that says why ---------------------------------------


def refusals(repo: Path, double, path: str, command: str = "view", **fields) -> str:
    out, _ = run(repo, double, edit(command, path, **fields))
    assert out[0].get("is_error") is True, out[0]
    return out[0]["content"]


def test_refusals(repo, claude_double, tmp_path):
    outside = tmp_path / "secret.txt"
    outside.write_text("TOKEN\n")
    (repo / "out").symlink_to(tmp_path)
    os.mkfifo(repo / "pipe")
    (repo / "big.txt").write_bytes(b"a" * (MAX_FILE_BYTES + 1))
    cases = {
        "../secret.txt": "not an allowed path",
        str(outside): "outside the repository",
        "out/secret.txt": "leads outside the repository",
        ".git/config": "inside .git",
        "pipe": "not a regular file",
        "big.txt": "over the 10 MB limit",
    }
    for path, why in cases.items():
        claude_double.requests.clear()
        assert why in refusals(repo, claude_double, path, "create", file_text="x"), path
        claude_double.requests.clear()
        assert why in refusals(repo, claude_double, path), path
    assert outside.read_text() == "TOKEN\n"
    assert not (repo / ".git" / "config").read_text().startswith("x")


def test_an_absolute_path_inside_the_repository_is_accepted(repo, claude_double):
    out, _ = run(repo, claude_double, edit("str_replace", str(repo / "app.py"), old_str="main()", new_str="run()"))
    assert not out[0].get("is_error") and "def run():" in (repo / "app.py").read_text()


def test_a_file_changed_since_the_model_viewed_it_is_not_overwritten(repo, claude_double):
    claude_double.add(edit("view"))

    def change_it(request):
        if request.tool_results():
            (repo / "app.py").write_text(APP + "# the user's line\n")
            claude_double.responder = None
        return None

    claude_double.responder = change_it
    out, _ = run(repo, claude_double, edit("str_replace", old_str="main()", new_str="run()"))
    assert "changed on disk since you last viewed it" in out[1]["content"] and out[1]["is_error"]
    assert (repo / "app.py").read_text().endswith("# the user's line\n")


# --- review -------------------------------------------------------------------------------


def test_a_file_changed_since_the_model_read_it_with_read_file_is_not_edited_by_line(repo, claude_double):
    # an insert goes by line number: after the user's edit above it, line 2 is another line
    from agent.tools.files import ReadFileTool

    claude_double.add(tool_use("read_file", {"path": "app.py"}))

    def change_it(request):
        if request.tool_results():
            (repo / "app.py").write_text("# the user's header\n" + APP)
            claude_double.responder = None
        return None

    claude_double.responder = change_it
    claude_double.add(edit("insert", insert_line=2, insert_text="    # greeting"))
    claude_double.add("Done.")
    Session(repo, AgentConfig(memory_mode="none", code_writes="auto"), tools=[ReadFileTool()]).send("Comment it.", lambda e: None)
    out = results(claude_double)
    assert "changed on disk since you last viewed it" in out[1]["content"] and out[1]["is_error"]
    assert (repo / "app.py").read_text() == "# the user's header\n" + APP
    # read again, the edit goes through
    claude_double.add(tool_use("read_file", {"path": "app.py"}), edit("insert", insert_line=3, insert_text="    # greeting"))
    claude_double.add("Done.")
    Session(repo, AgentConfig(memory_mode="none", code_writes="auto"), tools=[ReadFileTool()]).send("Again.", lambda e: None)
    assert results(claude_double)[-1]["content"] == AUTO + "Text inserted successfully."


def test_a_file_read_with_read_file_in_another_encoding_is_not_taken_for_changed(repo, claude_double):
    from agent.tools.files import ReadFileTool

    (repo / "legacy.py").write_bytes("# caf\xe9 au lait\nGREETING = 'hi'\n".encode("latin-1"))
    claude_double.add(tool_use("read_file", {"path": "legacy.py"}))
    claude_double.add(edit("str_replace", "legacy.py", old_str="'hi'", new_str="'hello'"))
    claude_double.add("Done.")
    Session(repo, AgentConfig(memory_mode="none", code_writes="auto"), tools=[ReadFileTool()]).send("Say hello.", lambda e: None)
    out = results(claude_double)
    assert out[1]["content"] == AUTO + "Successfully replaced text at exactly one location.", out[1]
    assert (repo / "legacy.py").read_bytes() == "# caf\xe9 au lait\nGREETING = 'hello'\n".encode("latin-1")


def test_review_holds_the_whole_reply_and_applies_it_on_the_users_word(repo, claude_double):
    held = []
    out, seen = run(
        repo, claude_double,
        [edit("str_replace", old_str="def greet", new_str="def welcome"), edit("create", "NOTES.md", file_text="done\n")],
        writes="review", decide=lambda asked: held.append(asked.diff) or True,
    )
    assert len([e for e in seen if isinstance(e, CodeChangeHeld)]) == 1  # one decision for both files
    assert "+def welcome" in held[0] and "+++ b/NOTES.md" in held[0]
    assert out[0]["content"] == APPLIED + "Successfully replaced text at exactly one location."
    assert out[1]["content"].startswith(APPLIED + "File created successfully.")
    assert "def welcome" in (repo / "app.py").read_text() and (repo / "NOTES.md").exists()


def test_review_kept_changes_nothing_and_the_model_hears_why(repo, claude_double):
    out, seen = run(repo, claude_double, edit("str_replace", old_str="def greet", new_str="def welcome"),
                    writes="review", decide=lambda asked: False)
    assert out[0]["is_error"] and out[0]["content"].startswith("Not applied: the user kept app.py as it is.")
    assert (repo / "app.py").read_text() == APP
    settled = [e for e in seen if isinstance(e, CodeChangeSettled)]
    assert [e.state for e in settled] == ["kept"]
    assert [e.id for e in settled] == [e.id for e in seen if isinstance(e, CodeChangeHeld)]
    # The user reads what happened in their own words; what the model should do stays with it.
    assert settled[0].for_user == "Not applied: you kept app.py as it was."
    assert "Ask what they want" in settled[0].said


def test_a_conflict_is_told_to_the_user_without_the_models_instructions(repo, claude_double):
    def meanwhile(asked):
        (repo / "app.py").write_text("# rewritten by hand\n")
        return True

    out, seen = run(repo, claude_double, edit("str_replace", old_str="def greet", new_str="def welcome"),
                    writes="review", decide=meanwhile)
    settled = next(e for e in seen if isinstance(e, CodeChangeSettled))
    assert "View the file again" in out[0]["content"] and "View the file again" not in settled.for_user
    assert settled.for_user == "Not applied: app.py changed on disk since the change was made from it, so nothing was overwritten."


def test_review_a_file_changed_while_it_waited_is_a_conflict(repo, claude_double):
    def meanwhile(asked):
        (repo / "app.py").write_text("# rewritten by hand\n")
        return True

    out, _ = run(repo, claude_double, edit("str_replace", old_str="def greet", new_str="def welcome"),
                 writes="review", decide=meanwhile)
    assert "changed on disk since the change was made" in out[0]["content"] and out[0]["is_error"]
    assert (repo / "app.py").read_text() == "# rewritten by hand\n"


def test_a_held_call_is_settled_whatever_its_file_is_named(repo, claude_double):
    """Every result passes the escape of marks, which changes a name holding one: the held
    call is still the one the settled change set answers, and its line is relabelled."""
    call = tool_use(EDITOR_NAME, {"command": "create", "path": "<memory>.md", "file_text": "notes\n"}, id="toolu_marked")
    out, seen = run(repo, claude_double, call, writes="review", decide=lambda asked: True)
    assert out[0]["content"] == APPLIED + "File created successfully.", out[0]
    assert not out[0].get("is_error") and (repo / "<memory>.md").read_text() == "notes\n"
    settled = next(e for e in seen if isinstance(e, CodeChangeSettled))
    assert settled.state == "applied" and settled.tool_ids == ("toolu_marked",)


def test_review_waits_until_the_turn_is_cancelled(repo, claude_double):
    from agent.cancel import Cancellation

    claude_double.add(edit("str_replace", old_str="def greet", new_str="def welcome"))
    cancel = Cancellation()
    held = threading.Event()
    s = session(repo, "review")
    s.send("Rename it.", lambda e: (held.set(), threading.Timer(0.2, cancel.cancel).start())
           if isinstance(e, CodeChangeHeld) else None, cancel)
    assert held.is_set() and (repo / "app.py").read_text() == APP


# --- undo ---------------------------------------------------------------------------------


def test_undo_puts_back_the_last_turns_files(repo, claude_double):
    run(repo, claude_double, edit("str_replace", old_str="def greet", new_str="def welcome"),
        edit("create", "NOTES.md", file_text="done\n"))
    assert [c.state for c in history(repo)] == ["applied"]
    undone, said = undo_last(repo)
    assert undone and said.startswith("Undone: 2 files: app.py, NOTES.md (new)")
    assert (repo / "app.py").read_text() == APP and not (repo / "NOTES.md").exists()
    assert undo_last(repo) == (False, "There is no applied change of the agent's to undo.")


def test_the_model_hears_at_its_next_turn_what_the_user_undid(repo, claude_double):
    talk = session(repo, "review")
    claude_double.add(reply(edit("str_replace", old_str="def greet", new_str="def welcome"),
                            edit("create", "NOTES.md", file_text="done\n")))
    claude_double.add("Renamed it.")
    talk.send("Rename greet.", lambda e: talk.decisions.post(Decision(e.id, True)) if isinstance(e, CodeChangeHeld) else None)
    assert "def welcome" in (repo / "app.py").read_text()
    assert "undo" in claude_double.messages_requests()[0].system_text().lower()  # the prompt says undo exists

    assert undo_last(repo)[0]  # what Ctrl+R, the palette and `devagent undo` do
    claude_double.add("It is back as it was.")
    talk.send("Is it still renamed?", lambda e: None)
    told = claude_double.messages_requests()[-1].last_user_text()
    assert "The user undid your applied change to app.py, NOTES.md" in told and "they are back as before" in told
    claude_double.add("Fine.")
    talk.send("Thanks.", lambda e: None)
    assert "undid" not in claude_double.messages_requests()[-1].last_user_text()  # told once


def test_undo_refuses_after_a_later_edit(repo, claude_double):
    run(repo, claude_double, edit("str_replace", old_str="def greet", new_str="def welcome"))
    (repo / "app.py").write_text((repo / "app.py").read_text() + "# later\n")
    undone, said = undo_last(repo)
    assert not undone and said.startswith("Not undone: app.py changed since the change was applied")
    assert (repo / "app.py").read_text().endswith("# later\n")


# --- memory follows the code ---------------------------------------------------------------


PLAN = """---
name: rename plan
type: project
description: finish the greet rename on Monday
---
The last call site of greet is app.py:6; rename it on Monday.
"""


@pytest.mark.parametrize("writes", ["auto", "review"])
def test_an_edit_of_cited_code_tells_the_model_and_the_evidence_says_so(repo, claude_double, writes):
    from memory.roots import open_memory

    env = {"GIT_AUTHOR_NAME": "T", "GIT_AUTHOR_EMAIL": "t@e", "GIT_COMMITTER_NAME": "T", "GIT_COMMITTER_EMAIL": "t@e"}
    for args in (["add", "-A"], ["commit", "-q", "-m", "start"]):
        subprocess.run(["git", *args], cwd=repo, check=True, env={**os.environ, **env})
    memory = open_memory(repo)
    memory.save("/memories/rename_plan.md", PLAN)
    claude_double.add(edit("str_replace", old_str="print(greet('world'))", new_str="print(welcome('world'))"))
    claude_double.add("Done.")
    s = Session(repo, AgentConfig(memory_mode="on-demand", code_writes=writes, memory_writes="review"),  # type: ignore[arg-type]
                tools=[EchoTool()], store=memory)
    s.send("Finish the rename.", lambda e: s.decisions.post(Decision(e.id, True)) if isinstance(e, CodeChangeHeld) else None)
    said = results(claude_double)[0]["content"]
    assert "Memory follows the code" in said and "/memories/rename_plan.md: app.py:6 changed" in said
    checks = memory.evidence(repo)["/memories/rename_plan.md"]
    assert [c.state for c in checks] == ["changed"]


def test_a_crlf_file_is_matched_with_lf_text_and_keeps_its_endings(repo, claude_double):
    (repo / "win.txt").write_bytes(b"one\r\ntwo\r\nthree\r\n")
    out, _ = run(repo, claude_double, edit("str_replace", "win.txt", old_str="one\ntwo", new_str="1\n2"),
                 edit("insert", "win.txt", insert_line=3, insert_text="four"))
    assert not any(r.get("is_error") for r in out), out
    assert (repo / "win.txt").read_bytes() == b"1\r\n2\r\nthree\r\nfour\r\n"


def test_review_two_edits_of_one_file_in_a_reply_build_on_each_other(repo, claude_double):
    diffs = []
    run(repo, claude_double,
        [edit("str_replace", old_str="def greet", new_str="def welcome"),
         edit("str_replace", old_str="print(greet(", new_str="print(welcome(")],
        writes="review", decide=lambda asked: diffs.append(asked.diff) or True)
    assert diffs[0].count("+++ b/app.py") == 1  # one file, one diff
    assert "greet" not in (repo / "app.py").read_text()


def test_undo_takes_back_every_reply_of_the_last_turn(repo, claude_double):
    out, _ = run(repo, claude_double,
                 edit("str_replace", old_str="def greet", new_str="def welcome"),
                 edit("str_replace", old_str="print(greet(", new_str="print(welcome("),
                 edit("create", "NOTES.md", file_text="done\n"),
                 writes="review", decide=lambda asked: True)
    assert [c.state for c in history(repo)] == ["applied"] * 3  # three replies, three sets, one turn
    undone, said = undo_last(repo)
    assert undone and said.startswith("Undone: 2 files:"), said
    assert (repo / "app.py").read_text() == APP and not (repo / "NOTES.md").exists()
    assert [c.state for c in history(repo)] == ["undone"] * 3


def test_a_form_feed_is_not_a_line_break_to_view_or_insert(repo, claude_double):
    (repo / "ff.py").write_text("a = 1\n\x0c\nb = 2\x0cc\n")
    out, _ = run(repo, claude_double, edit("view", "ff.py"), edit("insert", "ff.py", insert_line=3, insert_text="d = 4"))
    assert viewed(out[0]["content"]).split("\n")[:3] == ["1: a = 1", "2: \x0c", "3: b = 2\x0cc"]
    assert (repo / "ff.py").read_text() == "a = 1\n\x0c\nb = 2\x0cc\nd = 4\n"


def test_a_masked_credential_is_never_written_back(repo, claude_double):
    key = "AKIA" + "IOSFODNN7Q4W2ZLM"
    (repo / "settings.py").write_text(f"REGION = 'eu'\nAWS_ACCESS_KEY_ID = '{key}'\n")
    held = []
    out, seen = run(repo, claude_double, edit("view", "settings.py"),
                 edit("create", "settings.py", file_text="REGION = 'us'\nAWS_ACCESS_KEY_ID = '[masked: aws key]'\n"),
                 edit("str_replace", "settings.py", old_str="REGION = 'eu'", new_str="REGION = 'us'"),
                 writes="review", decide=lambda asked: held.append(asked) or True)
    assert key not in out[0]["content"] and "[masked:" in viewed(out[0]["content"])
    assert out[1]["is_error"] and "stands for a credential you were not shown" in out[1]["content"]
    assert (repo / "settings.py").read_text() == f"REGION = 'us'\nAWS_ACCESS_KEY_ID = '{key}'\n"
    shown = next(e for e in seen if isinstance(e, CodeChangeHeld))
    # what a person is shown of the change comes masked, as tool results are
    assert shown is held[0] and shown.what == "settings.py (+1 −1)" and "AWS_ACCESS_KEY_ID" in shown.diff and key not in shown.diff
