"""Memory about the user follows them: /memories/user/ is one folder seen from every repository."""

from __future__ import annotations

import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

from agent import prompts
from agent.loop.session import Session
from memory.location import memory_dir_for, user_memory_dir
from memory.pending import PendingChanges
from memory.roots import USER_ROOT, MemoryRoots, open_memory
from tests.agent.sessions import session as new_session
from tests.agent.toolkit import EchoTool
from tests.double.server import reply, tool_use

MONDAY = datetime(2026, 11, 9, 9, 0, tzinfo=UTC)
PREFERENCE = "---\nname: terse\ntype: user\ndescription: how the user likes answers\n---\nThe user wants short spoken answers and details on screen.\n"
PROJECT = "---\nname: core\ntype: project\ndescription: which project matters\n---\nThe Core project matters here.\n"


def session(repo: Path, **config) -> Session:
    return new_session(repo, tools=[EchoTool()], now=MONDAY, memory_mode="preloaded", **config)


def test_a_user_memory_written_in_one_repository_is_preloaded_in_another(make_repo, claude_double):
    shop, blog = make_repo("shop"), make_repo("blog")
    claude_double.add(reply(
        tool_use("memory", {"command": "create", "path": "/memories/user/terse.md", "file_text": PREFERENCE}),
        tool_use("memory", {"command": "create", "path": "/memories/core.md", "file_text": PROJECT}),
    ))
    claude_double.add("Noted.")
    # The user chose to let writes to the user-wide folder through (review is the default).
    session(shop, user_memory_writes="auto").send("Keep answers short. The Core project matters here.", lambda e: None)
    results = claude_double.messages_requests()[1].tool_results()
    assert [r["content"] for r in results] == [
        "File created successfully at: /memories/user/terse.md",
        "File created successfully at: /memories/core.md",
    ]
    assert (user_memory_dir() / "terse.md").read_text() == PREFERENCE
    assert not (memory_dir_for(shop) / "user").exists()

    claude_double.add("Hello.")
    session(blog).send("hi", lambda e: None)
    system = claude_double.messages_requests()[-1].system_text()
    assert '<memory path="/memories/user/terse.md"' in system and "short spoken answers" in system
    assert "The Core project matters here" not in system  # the shop's memory stays in the shop


def test_view_lists_both_folders_and_each_keeps_its_own_caps(make_repo, user_dirs):
    memory = open_memory(make_repo("shop"))
    memory.run({"command": "create", "path": "/memories/core.md", "file_text": PROJECT})
    memory.run({"command": "create", "path": "/memories/user/terse.md", "file_text": PREFERENCE})
    listing, is_error = memory.run({"command": "view", "path": "/memories"})
    assert not is_error
    paths = [line.split("\t")[1] for line in listing.splitlines()[1:]]
    assert paths == ["/memories", "/memories/core.md", "/memories/user/", "/memories/user/terse.md"]
    text, is_error = memory.run({"command": "create", "path": "/memories/user/diary.md", "file_text": "x" * 2950})
    assert is_error and "3,000-character limit for all memory files" in text
    assert memory.run({"command": "create", "path": "/memories/big.md", "file_text": "x" * 2950})[1] is False
    assert memory.run({"command": "view", "path": "/memories/user"})[0].splitlines()[1].endswith("/memories/user")


def test_a_memory_moves_between_the_folders(make_repo, user_dirs):
    shop = make_repo("shop")
    memory = open_memory(shop)
    memory.run({"command": "create", "path": "/memories/terse.md", "file_text": PREFERENCE})
    assert memory.move_to_other_root("/memories/terse.md") == ("Successfully renamed /memories/terse.md to /memories/user/terse.md", False)
    assert [m.path for m in memory.memories()] == ["/memories/user/terse.md"]
    assert memory.run({"command": "rename", "old_path": "/memories/user/terse.md", "new_path": "/memories/terse.md"})[1] is False
    assert [m.path for m in memory.memories()] == ["/memories/terse.md"]
    # A move refuses to replace a memory that is already there.
    memory.run({"command": "create", "path": "/memories/user/terse.md", "file_text": PREFERENCE})
    text, is_error = memory.move_to_other_root("/memories/terse.md")
    assert is_error and "already exists" in text and (memory_dir_for(shop) / "terse.md").exists()


def test_a_held_change_to_user_memory_applies_to_the_user_folder(make_repo, claude_double):
    shop = make_repo("shop")
    claude_double.add(tool_use("memory", {"command": "create", "path": "/memories/user/terse.md", "file_text": PREFERENCE}))
    claude_double.add("Held.")
    session(shop, memory_writes="review").send("Keep answers short.", lambda e: None)
    pending = PendingChanges(open_memory(shop))
    assert pending.accept(pending.list()[0].id) == ("Accepted: create /memories/user/terse.md", False)
    assert (user_memory_dir() / "terse.md").read_text() == PREFERENCE


def test_the_user_folder_path_is_printed(tmp_path, user_dirs):
    done = subprocess.run(
        [sys.executable, "-m", "tui.cli", "memory", "path", "--user"],
        capture_output=True, text=True, cwd=Path(__file__).parents[2],
    )
    assert done.returncode == 0 and done.stdout.strip() == str(user_memory_dir())
    assert not user_memory_dir().exists()  # printing the path creates nothing


def test_the_rules_say_which_kind_goes_where():
    rules = prompts.memory_rules()
    assert "/memories/user/ is about the user and follows them into every repository" in rules
    assert "Never put something about one repository in /memories/user/" in rules


def test_user_root_is_its_own_store():
    assert USER_ROOT == "/memories/user" and MemoryRoots.ROOT == "/memories"
