"""`devagent memory pending|accept|reject|check` through the real command line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from memory.pending import PendingChanges
from memory.roots import open_memory
from memory.store import MemoryStore
from tests.repos import git
from tui.cli import main

ROOT = Path(__file__).resolve().parents[2]
NOTE = "---\nname: core\ntype: project\ndescription: which project matters\n---\nThe Core project matters.\n"
TERSE = "---\nname: terse\ntype: user\ndescription: short answers\n---\nShort answers, details on screen.\n"


@pytest.fixture
def repo(make_repo) -> Path:
    return make_repo("app", {"src/Run.cs": "class Run {\n  void Go() { Use(file.Patch); }\n}\n"}, commit=True, under="")


def hold(repo: Path, *commands: dict) -> list[str]:
    pending = PendingChanges(open_memory(repo))
    for command in commands:
        text, is_error = pending.hold(command)
        assert not is_error, text
    return [c.id for c in pending.list()]


def create(path: str, text: str = NOTE) -> dict:
    return {"command": "create", "path": path, "file_text": text}


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tui.cli", "memory", *args], capture_output=True, text=True, cwd=ROOT, env=dict(os.environ))


def test_pending_lists_each_change_with_its_diff(repo, capsys):
    first, second = hold(repo, create("/memories/core.md"), create("/memories/user/terse.md", TERSE))
    assert main(["memory", "pending", str(repo), "--diff"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(f"{first}\tcreate /memories/core.md\t")
    assert "    +The Core project matters." in out
    assert any(line.startswith(f"{second}\tcreate /memories/user/terse.md\t") for line in out)


@pytest.mark.slow
def test_accept_one_and_reject_the_rest(repo):
    first, _second = hold(repo, create("/memories/core.md"), create("/memories/user/terse.md", TERSE))
    done = cli("accept", first, str(repo))
    assert done.returncode == 0 and done.stdout.strip() == "Accepted: create /memories/core.md"
    done = cli("reject", "--all", str(repo))
    assert done.returncode == 0 and done.stdout.strip() == "Rejected: create /memories/user/terse.md"
    memory = open_memory(repo)
    assert [m.path for m in memory.memories()] == ["/memories/core.md"]
    assert PendingChanges(memory).list() == []
    assert cli("accept", "--all", str(repo)).stdout.strip() == "No memory changes are waiting for review."


@pytest.mark.slow
def test_accept_all_reports_a_conflict_and_exits_1(repo):
    store = MemoryStore.for_repository(repo)
    store.run(create("/memories/core.md"))
    (change,) = hold(repo, {"command": "str_replace", "path": "/memories/core.md", "old_str": "Core", "new_str": "Cli"})
    store.save("/memories/core.md", NOTE.replace("matters", "matters most"))
    done = cli("accept", "--all", str(repo))
    assert done.returncode == 1 and "changed since this change was proposed" in done.stderr
    assert "matters most" in store.read("/memories/core.md")
    listed = cli("pending", str(repo))
    assert f"{change}\tconflict: edit /memories/core.md" in listed.stderr and listed.stdout == ""
    assert "`devagent memory accept ID` puts it back in review" in listed.stderr
    # accepted again, it is not applied but comes back for review against the file as it is
    done = cli("accept", change, str(repo))
    assert (done.returncode, done.stdout.strip()) == (0, "Back in review, against the file as it is now: edit /memories/core.md")
    listed = cli("pending", str(repo), "--diff")
    assert listed.stdout.startswith(f"{change}\tedit /memories/core.md\t") and "conflict" not in listed.stderr
    assert "    -The Core project matters most." in listed.stdout.splitlines()
    done = cli("reject", change, str(repo))
    assert (done.returncode, done.stdout.strip()) == (0, "Rejected: edit /memories/core.md")
    assert "matters most" in store.read("/memories/core.md")
    listed = cli("pending", str(repo))
    assert (listed.stdout, listed.stderr) == ("", "")


def test_accept_needs_an_id_or_all(repo):
    done = cli("accept", str(repo))
    # The one positional is taken for the id: no such change.
    assert done.returncode == 1 and "There is no pending memory change" in done.stderr
    assert cli("accept").returncode == 2


def test_check_a_clean_folder_exits_0(repo):
    store = MemoryStore.for_repository(repo)
    store.run(create("/memories/core.md"))
    store.run({"command": "create", "path": "/memories/MEMORY.md", "file_text": "- [core](core.md) — which project matters\n"})
    done = cli("check", str(repo))
    assert (done.returncode, done.stdout) == (0, "")


@pytest.mark.slow
def test_check_lists_findings_and_exits_1(repo):
    store = MemoryStore.for_repository(repo)
    store.run(create("/memories/call.md", NOTE.replace("The Core project matters.", "src/Run.cs:2 still uses file.Patch. The build is red.")))
    (repo / "src/Run.cs").write_text("class Run {\n  void Go() { Use(file.Diff); }\n}\n")
    git(repo, "commit", "-qam", "Finish the rename")
    done = cli("check", str(repo))
    assert done.returncode == 1
    kinds = [line.split("\t")[:2] for line in done.stdout.splitlines()]
    assert kinds == [["/memories/call.md", "state"], ["/memories/call.md", "changed"], ["/memories/call.md", "index"]]
    as_json = json.loads(cli("check", str(repo), "--json").stdout)
    assert {f["kind"] for f in as_json} == {"state", "changed", "index"}


def test_check_shows_a_control_sequence_as_text(repo):
    folder = MemoryStore.for_repository(repo).directory
    (folder / "evil.md").write_text("\x1b]0;owned\x07 no frontmatter\n")
    done = cli("check", str(repo))
    assert "\x1b" not in done.stdout and "evil.md\tformat" in done.stdout


def test_check_of_a_repository_without_memory_creates_nothing(repo):
    from memory.location import memory_dir_for

    assert cli("check", str(repo)).returncode == 0
    assert not memory_dir_for(repo).exists()
