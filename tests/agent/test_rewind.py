"""Going back to before a turn: the conversation, the code and the memory, each alone or
together, by one, two and three turns; a file the user changed since is refused and named
while the rest goes back; files a command changed go back too; and a rewind is undone.

A fresh git repository, the real session with its editor (code writes auto) and memory
tool, a command tool that runs a real shell process, and the Claude double.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from agent.checkpoints.store import CheckpointStore, prune, repository_folder
from agent.tools.base import ToolContext, ToolResult
from memory.roots import open_memory
from tests.double.server import reply, text, tool_use
from tests.repos import git, git_repo

EDITOR = "str_replace_based_edit_tool"


class ShellCommand:
    """A command tool as devagent's will be: runs one text with /bin/sh and tells the turn's
    checkpoint which files it changed, with their text before."""

    name = "run_command"

    def definition(self) -> dict[str, Any]:
        return {"name": self.name, "description": "Run a shell command.",
                "input_schema": {"type": "object", "properties": {"command": {"type": "string"},
                                                                  "files": {"type": "array", "items": {"type": "string"}}}}}

    def summarize_input(self, input: dict[str, Any]) -> str:
        return str(input.get("command"))

    def run(self, input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        watched = [str(f) for f in input.get("files", [])]
        before = {f: (ctx.repo / f).read_text() if (ctx.repo / f).exists() else None for f in watched}
        done = subprocess.run(["/bin/sh", "-c", input["command"]], cwd=ctx.repo, capture_output=True, text=True)
        changed = [(f, text) for f, text in before.items()
                   if ((ctx.repo / f).read_text() if (ctx.repo / f).exists() else None) != text]
        if ctx.checkpoint is not None:
            ctx.checkpoint.record_files(changed)
        return ToolResult(text=f"exit {done.returncode}")


def _turn(double, talk, words: str, *calls) -> None:
    double.add(*[tool_use(name, args, id=f"{words[:3]}{i}") for i, (name, args) in enumerate(calls)])
    double.add(reply(text("Done.")))
    talk.send(words, lambda e: None)


@pytest.fixture
def three_turns(tmp_path, claude_double):
    """Turn 1 edits app.py and writes a memory; turn 2 creates util.py and a command writes
    out.txt; turn 3 edits app.py again and the memory."""
    repo = git_repo(tmp_path / "shop", {"app.py": "x = 0\n", "out.txt": "old output\n"}, commit=True)
    store = open_memory(repo)
    talk = _session(repo, store)
    _turn(claude_double, talk, "rename x to y",
          (EDITOR, {"command": "str_replace", "path": "app.py", "old_str": "x = 0", "new_str": "y = 0"}),
          ("memory", {"command": "create", "path": "/memories/naming.md", "file_text": "---\nname: naming\ndescription: d\n---\nWe use y.\n"}))
    _turn(claude_double, talk, "add a util module and regenerate the output",
          (EDITOR, {"command": "create", "path": "util.py", "file_text": "def f():\n    return 1\n"}),
          ("run_command", {"command": "echo new output > out.txt", "files": ["out.txt"]}))
    _turn(claude_double, talk, "make y one",
          (EDITOR, {"command": "str_replace", "path": "app.py", "old_str": "y = 0", "new_str": "y = 1"}),
          ("memory", {"command": "str_replace", "path": "/memories/naming.md", "old_str": "We use y.", "new_str": "We use y = 1."}))
    return repo, store, talk


def _session(repo: Path, store):
    from agent.loop.session import Session
    from agent.settings.config import AgentConfig
    from agent.tools import developer_tools

    return Session(repo, AgentConfig(memory_mode="on-demand", code_writes="auto", memory_writes="auto"),
                   store=store, tools=[*developer_tools(), ShellCommand()])


def _memory(store) -> str | None:
    return store.current_text("/memories/naming.md")


def test_each_turn_has_a_checkpoint_outside_the_repository(three_turns):
    repo, _store, talk = three_turns
    points = talk.turns_to_rewind()
    assert [c.words for c in points] == ["rename x to y", "add a util module and regenerate the output", "make y one"]
    assert set(points[1].files) == {"util.py", "out.txt"}
    assert points[1].files["out.txt"].before == "old output\n" and points[1].files["out.txt"].after == "new output\n"
    folder = repository_folder(repo)
    assert not folder.resolve().is_relative_to(repo.resolve())
    assert git(repo, "status", "--porcelain", "--ignored").splitlines() == [" M app.py", " M out.txt", "?? util.py"]


@pytest.mark.parametrize("back", [1, 2, 3])
def test_all_three_parts_go_back_by_one_two_and_three_turns(three_turns, back):
    repo, store, talk = three_turns
    turn = 4 - back
    messages_at = talk.turns_to_rewind()[turn - 1].history_at
    done = talk.rewind(turn, ["conversation", "code", "memory"])
    app = (repo / "app.py").read_text()
    assert app == {1: "y = 0\n", 2: "y = 0\n", 3: "x = 0\n"}[back]
    assert (repo / "util.py").exists() == (back == 1)
    assert (repo / "out.txt").read_text() == ("new output\n" if back == 1 else "old output\n")
    assert _memory(store) == (None if back == 3 else "---\nname: naming\ndescription: d\n---\nWe use y.\n")
    assert len(talk.messages) == messages_at
    assert done.words == ["rename x to y", "add a util module and regenerate the output", "make y one"][turn - 1]
    assert [c.turn for c in talk.turns_to_rewind()] == list(range(1, turn))


@pytest.mark.parametrize("part", ["conversation", "code", "memory"])
def test_each_part_alone_leaves_the_others(three_turns, part):
    repo, store, talk = three_turns
    messages = len(talk.messages)
    done = talk.rewind(2, [part])
    assert ((repo / "app.py").read_text() == "y = 0\n") == (part == "code")
    assert (not (repo / "util.py").exists()) == (part == "code")
    assert (_memory(store) == "---\nname: naming\ndescription: d\n---\nWe use y.\n") == (part == "memory")
    assert (len(talk.messages) < messages) == (part == "conversation")
    assert (done.words is not None) == (part == "conversation")


def test_a_file_the_user_changed_since_is_refused_and_named_and_the_rest_goes_back(three_turns):
    repo, store, talk = three_turns
    (repo / "app.py").write_text("y = 1  # mine\n")
    preview = talk.rewind_preview(1)
    assert preview is not None
    assert any("app.py: changed since" in line for line in preview.lines("code"))
    done = talk.rewind(1, ["code", "memory"])
    assert (repo / "app.py").read_text() == "y = 1  # mine\n"
    assert "app.py" in done.refused and "app.py" in done.said
    assert not (repo / "util.py").exists() and (repo / "out.txt").read_text() == "old output\n"
    assert _memory(store) is None


def test_a_rewind_is_undone_and_the_undo_refuses_what_changed_since(three_turns):
    repo, store, talk = three_turns
    messages = list(talk.messages)
    talk.rewind(2, ["conversation", "code", "memory"])
    (repo / "out.txt").write_text("edited after the rewind\n")
    undone = talk.undo_rewind()
    assert (repo / "app.py").read_text() == "y = 1\n" and (repo / "util.py").exists()
    assert (repo / "out.txt").read_text() == "edited after the rewind\n" and "out.txt" in undone.refused
    assert _memory(store) == "---\nname: naming\ndescription: d\n---\nWe use y = 1.\n"
    assert talk.messages == messages
    assert talk.undo_rewind().said == "There is no rewind to undo."


def test_the_preview_says_what_each_part_would_change_and_changes_nothing(three_turns):
    repo, _store, talk = three_turns
    preview = talk.rewind_preview(2)
    assert preview is not None
    assert preview.lines("conversation")[0].startswith("2 turns leave the conversation")
    code = "\n".join(preview.lines("code"))
    assert "util.py: removed" in code and "out.txt: back as it was" in code and "app.py: back as it was (+1 −1)" in code
    assert "/memories/naming.md: back as it was" in "\n".join(preview.lines("memory"))
    assert (repo / "app.py").read_text() == "y = 1\n"


def test_the_next_request_goes_on_from_before_the_rewound_turn(three_turns, claude_double):
    _repo, _store, talk = three_turns
    talk.rewind(3, ["conversation"])
    claude_double.add(reply(text("Fine.")))
    talk.send("make y two instead", lambda e: None)
    sent = claude_double.messages_requests()[-1]
    assert "make y one" not in str(sent.body["messages"]) and "make y two instead" in sent.last_user_text()


def test_prune_keeps_checkpoints_within_size_and_age(tmp_path):
    repo = git_repo(tmp_path / "shop", {"a.txt": "a\n"}, commit=True)
    old, big, running = (CheckpointStore(repo, name) for name in ("old", "big", "running"))
    for store, size in ((old, 10), (big, 3_000_000), (running, 3_000_000)):
        store.begin_turn(1, "w", 0).record_file_texts([("a.txt", "a" * size, "b")])
    import os
    import time
    os.utime(old.folder, (time.time() - 40 * 86400,) * 2)
    os.utime(big.folder, (time.time() - 86400,) * 2)
    removed = prune(max_mb=4, max_age_days=30, keep=running.folder)
    assert set(removed) == {old.folder, big.folder} and running.folder.exists()


def _cli(*args: str):
    import sys

    return subprocess.run([sys.executable, "-m", "tui.cli", "rewind", *args], capture_output=True, text=True, timeout=120)


def test_devagent_rewind_lists_previews_rewinds_and_undoes_a_finished_session(three_turns):
    from agent.conversation.transcripts import latest

    repo, store, talk = three_turns
    talk.close()
    listed = _cli(str(repo))
    assert listed.returncode == 0 and "turn   2" in listed.stdout and "rename x to y" in listed.stdout
    shown = _cli(str(repo), "--turn", "2")
    assert "util.py: removed" in shown.stdout and "--yes" in shown.stdout
    assert (repo / "util.py").exists()  # a preview changes nothing
    (repo / "out.txt").write_text("the user's own output\n")
    done = _cli(str(repo), "--turn", "2", "--code", "--yes")
    assert done.returncode == 1 and "out.txt" in done.stdout  # refused and named; the rest went back
    assert not (repo / "util.py").exists() and (repo / "app.py").read_text() == "y = 0\n"
    assert (repo / "out.txt").read_text() == "the user's own output\n"
    assert _memory(store) == "---\nname: naming\ndescription: d\n---\nWe use y = 1.\n"  # memory was not chosen
    undone = _cli(str(repo), "--undo")
    assert undone.returncode == 0 and (repo / "util.py").exists() and (repo / "app.py").read_text() == "y = 1\n"
    cut = _cli(str(repo), "--turn", "3", "--conversation", "--yes")
    assert cut.returncode == 0 and "--resume" in cut.stdout
    saved = latest(repo)
    assert saved is not None and "make y one" not in str([m.message for m in saved.messages])
    assert "add a util module" in str([m.message for m in saved.messages])


def test_a_long_session_keeps_its_newest_checkpoints_within_the_size(tmp_path):
    repo = git_repo(tmp_path / "shop", {"a.txt": "a\n"}, commit=True)
    store = CheckpointStore(repo, "long", max_mb=1)
    for turn in range(1, 6):
        store.begin_turn(turn, f"turn {turn}", 0).record_file_texts([("a.txt", "x" * 300_000, "y")])
    kept = [c.turn for c in store.list()]
    assert kept[-1] == 5 and kept[0] > 1 and len(kept) < 5


def test_memory_goes_back_in_both_folders_and_never_another_sessions(tmp_path, claude_double):
    from agent.loop.session import Session
    from agent.settings.config import AgentConfig

    repo = git_repo(tmp_path / "shop", {"a.txt": "a\n"}, commit=True)
    store = open_memory(repo)
    config = AgentConfig(memory_mode="on-demand", memory_writes="auto", user_memory_writes="auto")
    mine, other = Session(repo, config, store=store), Session(repo, config, store=open_memory(repo))
    note = "---\nname: {0}\ndescription: d\n---\n{0}\n"
    _turn(claude_double, mine, "remember my habits",
          ("memory", {"command": "create", "path": "/memories/user/habits.md", "file_text": note.format("habits")}),
          ("memory", {"command": "create", "path": "/memories/shop.md", "file_text": note.format("shop")}))
    _turn(claude_double, other, "remember the deploy day",
          ("memory", {"command": "create", "path": "/memories/deploy.md", "file_text": note.format("deploy")}))
    preview = mine.rewind_preview(1)
    assert preview is not None and [s.path for s in preview.memory] == ["/memories/shop.md", "/memories/user/habits.md"]
    mine.rewind(1, ["memory"])
    assert store.current_text("/memories/user/habits.md") is None and store.current_text("/memories/shop.md") is None
    assert store.current_text("/memories/deploy.md") == note.format("deploy")
