"""What the prompt carries of the memory folder is what the pane, `memory list` and
`memory check` show: only .md files are memories. A notes.txt left in the folder is not
sent unseen on every request; the model is told it is there, and the CLI names it with
how to make it a memory."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from agent.loop.session import Session
from agent.settings.config import AgentConfig
from memory.roots import open_memory
from tests.agent.toolkit import EchoTool
from tests.double.server import reply, text
from tui.cli import main

MONDAY = datetime(2026, 11, 9, 9, 0, tzinfo=UTC)
NOTE = "---\nname: deploy\ntype: project\ndescription: when we deploy\n---\nDeploys go out on Fridays.\n"
LOOSE = "The staging password rotates monthly; ask Dana.\n"


@pytest.fixture
def repo(make_repo) -> Path:
    path = make_repo()
    store = open_memory(path)
    assert store.run({"command": "create", "path": "/memories/deploy.md", "file_text": NOTE})[1] is False
    (Path(store.repository.directory) / "notes.txt").write_text(LOOSE)
    return path


def test_a_txt_file_is_not_sent_in_the_prompt_but_named_as_skipped(claude_double, repo):
    talk = Session(repo, AgentConfig(memory_mode="preloaded"), tools=[EchoTool()], now=MONDAY)
    claude_double.add(reply(text("Fine.")))
    talk.send("When do we deploy?", lambda e: None)
    system = claude_double.messages_requests()[-1].system_text()
    assert "Deploys go out on Fridays." in system
    assert "staging password" not in system
    assert "- /memories/notes.txt: skipped: not a memory: only .md files are" in system
    # and the rules say so before the model names a file of its own
    assert "ending in .md (only .md files are memories" in system


def test_list_and_check_name_the_txt_file_they_do_not_use(repo, capsys):
    assert main(["memory", "list", str(repo)]) == 0
    out, err = capsys.readouterr()
    assert [line.split("\t")[0] for line in out.splitlines()] == ["/memories/deploy.md"]
    assert "skipped: /memories/notes.txt: not a memory: only .md files are, so the agent neither " \
           "loads nor lists it; rename it to notes.md to use it" in err

    main(["memory", "check", str(repo)])
    out, err = capsys.readouterr()
    lines = [line for line in (out + err).splitlines() if "notes.txt" in line]
    assert lines and "rename it to notes.md" in lines[0], out + err


def test_the_user_folder_names_what_it_skips_by_its_own_paths(repo, tmp_path, capsys):
    from memory.location import user_memory_dir

    folder = user_memory_dir()
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "me.md").write_text(NOTE.replace("name: deploy", "name: me").replace("type: project", "type: user"))
    (folder / "todo.txt").write_text("call the bank\n")
    (tmp_path / "elsewhere.md").write_text(NOTE)
    (folder / "linked.md").symlink_to(tmp_path / "elsewhere.md")
    assert main(["memory", "list", str(repo)]) == 0
    out, err = capsys.readouterr()
    assert "/memories/user/me.md\t" in out
    skipped = sorted(line.split(": ", 2)[1] for line in err.splitlines() if line.startswith("skipped: "))
    assert skipped == ["/memories/notes.txt", "/memories/user/linked.md", "/memories/user/todo.txt"]
