"""Trust, memory and the undo journal cannot be borrowed by naming a trusted clone's git folder.

A folder's `.git` is written by whoever made the folder, so it can name any clone's git
folder: a `.git` file with a relative or an absolute `gitdir:`, a link to the clone's `.git`,
a `commondir` inside a `.git` folder of its own, or a `.git` file naming a real worktree's
admin folder. None of them makes the folder trusted, and none shares the clone's memory or
undo journal; a real `git worktree add` still shares memory and journal (it is asked for
trust on its own). Answers kept under the old key (the git folder) are asked again once,
with the reason.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from agent.decisions import Decision
from agent.events import Notice, TrustAsked
from agent.tools.editor.journal import journal_dir
from agent.workspace_trust import TrustStore, WorkspaceTrust, trust_file
from memory.errors import MemoryNotFound
from memory.location import memory_dir_for, owned_common_dir
from memory.store import MemoryStore
from tests.agent.sessions import session
from tests.double.server import tool_use
from tests.hostile_repos import dropped, python_repo
from tests.repos import git
from tests.test_cli_trust import subprocess_in


def _relative_gitdir(evil: Path, shop: Path) -> None:
    (evil / ".git").write_text(f"gitdir: {os.path.relpath(shop / '.git', evil)}\n")


def _absolute_gitdir(evil: Path, shop: Path) -> None:
    (evil / ".git").write_text(f"gitdir: {shop / '.git'}\n")


def _link_to_git_folder(evil: Path, shop: Path) -> None:
    (evil / ".git").symlink_to(shop / ".git")


def _commondir_inside_its_own(evil: Path, shop: Path) -> None:
    own = evil / ".git"
    for name in ("objects", "refs"):
        (own / name).mkdir(parents=True)
    (own / "HEAD").write_text("ref: refs/heads/main\n")
    (own / "commondir").write_text(f"{shop / '.git'}\n")


def _a_real_worktrees_admin_folder(evil: Path, shop: Path) -> None:
    git(shop, "worktree", "add", "-q", "--no-checkout", "-b", "side", str(shop.parent / "side"))
    (evil / ".git").write_text(f"gitdir: {shop / '.git' / 'worktrees' / 'side'}\n")


BORROWING = [_relative_gitdir, _absolute_gitdir, _link_to_git_folder, _commondir_inside_its_own,
             _a_real_worktrees_admin_folder]


def _shop_and_evil(tmp_path: Path, borrow) -> tuple[Path, Path, Path]:
    root = tmp_path / "sandbox"
    shop = python_repo(root)
    git(shop, "add", "-A")
    git(shop, "commit", "-q", "-m", "shop")
    evil = root / "evil"
    # the same code, its own .venv python leaving the same mark, and a .git that borrows
    shutil.copytree(shop, evil, symlinks=True, ignore=shutil.ignore_patterns(".git"))
    borrow(evil, shop)
    TrustStore().remember(shop, True)
    for mark in (root / "marks").iterdir():  # git run by the set-up itself ran the hostile config
        mark.unlink()
    return root, shop, evil


@pytest.mark.parametrize("borrow", BORROWING, ids=lambda f: f.__name__.strip("_"))
def test_a_folder_naming_a_trusted_clones_git_folder_is_not_trusted_and_runs_nothing(tmp_path, claude_double, borrow):
    root, shop, evil = _shop_and_evil(tmp_path, borrow)
    assert TrustStore().trusted(shop) and not TrustStore().trusted(evil)
    claude_double.add(tool_use("build", {}, id="b1"), "Not run.")
    events: list = []
    session(evil, memory_mode="none").send("Build it", events.append)
    assert dropped(root) == []  # its .venv python did not run
    (build,) = [r for request in claude_double.messages_requests() for r in request.tool_results()]
    assert build.get("is_error") and "not trusted" in build["content"]
    status = subprocess_in(evil, "trust", "--status")
    assert "is not trusted yet" in status.stdout and "is trusted since" not in status.stdout


@pytest.mark.parametrize("borrow", BORROWING, ids=lambda f: f.__name__.strip("_"))
def test_a_folder_naming_a_clones_git_folder_gets_neither_its_memory_nor_its_undo_journal(tmp_path, borrow):
    _root, shop, evil = _shop_and_evil(tmp_path, borrow)
    MemoryStore.for_repository(shop).run({"command": "create", "path": "/memories/plan.md", "file_text": "shop only"})
    assert owned_common_dir(shop) == (shop / ".git").resolve() and owned_common_dir(evil) is None
    assert memory_dir_for(evil) != memory_dir_for(shop)
    assert journal_dir(evil) != journal_dir(shop)
    with pytest.raises(MemoryNotFound):
        MemoryStore.for_repository(evil).read("/memories/plan.md")


def test_a_real_worktree_shares_memory_and_journal_but_is_asked_for_trust(tmp_path):
    root = tmp_path / "sandbox"
    shop = python_repo(root)
    git(shop, "add", "-A")
    git(shop, "commit", "-q", "-m", "shop")
    tree = root / "elsewhere" / "feature"
    git(shop, "worktree", "add", "-q", "--no-checkout", "-b", "feature", str(tree))
    link = root / "link-to-feature"
    link.symlink_to(tree)
    assert owned_common_dir(tree) == owned_common_dir(link) == (shop / ".git").resolve()
    assert memory_dir_for(tree) == memory_dir_for(shop) == memory_dir_for(link)
    assert journal_dir(tree) == journal_dir(shop)
    MemoryStore.for_repository(shop).run({"command": "create", "path": "/memories/plan.md", "file_text": "both"})
    assert MemoryStore.for_repository(tree).read("/memories/plan.md") == "both"
    TrustStore().remember(shop, True)
    assert not TrustStore().trusted(tree)  # its own folder, its own answer
    TrustStore().remember(tree, True)
    assert TrustStore().trusted(link)  # a symlink to the same folder is the same work tree


def kept_under_the_old_key(shop: Path, trusted: bool = True) -> None:
    path = trust_file()
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    entry = {"trusted": trusted, "path": str(shop), "decided": "2026-11-01T09:00:00+00:00"}
    path.write_text(json.dumps({"repositories": {os.path.realpath(shop / ".git"): entry}}))
    path.chmod(0o600)


@pytest.mark.usefixtures("unsandboxed")  # its .venv python marks what ran outside the repository
def test_an_answer_under_the_old_key_is_asked_again_once_and_the_dialog_says_why(tmp_path, claude_double):
    root = tmp_path / "sandbox"
    shop = python_repo(root)
    kept_under_the_old_key(shop)
    assert TrustStore().decision(shop) is None
    asked: list = []

    def sink(event):
        if isinstance(event, TrustAsked):
            asked.append(event.request)
            assert talk.decisions.post(Decision(event.request.id, True))

    claude_double.add(tool_use("test", {}, id="t1"), "Ran.")
    talk = session(shop, trust=WorkspaceTrust(shop, interactive=True), memory_mode="none")
    talk.send("Run the tests", sink)
    (request,) = asked
    assert request.earlier.endswith(f"kept under the old key, the git folder {(shop / '.git').resolve()}")
    assert request.earlier.startswith("trusted on 2026-11-01") and "venv-python" in dropped(root)
    claude_double.add(tool_use("test", {}, id="t2"), "Ran again.")
    talk = session(shop, trust=WorkspaceTrust(shop, interactive=True), memory_mode="none")
    talk.send("Again", sink)
    assert len(asked) == 1  # once
    assert TrustStore().trusted(shop) and TrustStore().earlier(shop) is None


def test_headless_and_the_command_line_say_why_an_old_answer_is_not_used(tmp_path, claude_double):
    root = tmp_path / "sandbox"
    shop = python_repo(root)
    kept_under_the_old_key(shop)
    claude_double.add(tool_use("build", {}, id="b1"), "Not run.")
    events: list = []
    session(shop, memory_mode="none").send("Build it", events.append)
    assert dropped(root) == []
    (build,) = [r for request in claude_double.messages_requests() for r in request.tool_results()]
    assert build.get("is_error") and "old key" in build["content"]
    (notice,) = [e.message for e in events if isinstance(e, Notice)]
    assert "old key" in notice and "asked again" in notice
    status = subprocess_in(shop, "trust", "--status")
    assert "is not trusted yet" in status.stdout and "old key" in status.stdout
    listed = subprocess_in(shop, "trust", "--list").stdout
    assert "old key" in listed and str((shop / ".git").resolve()) in listed
    assert subprocess_in(shop, "trust", str(shop)).returncode == 0
    assert "is trusted since" in subprocess_in(shop, "trust", "--status").stdout
    assert subprocess_in(shop, "trust", "--revoke", str(shop)).returncode == 0
    assert "old key" not in subprocess_in(shop, "trust", "--status").stdout


def test_a_folder_outside_git_keeps_its_earlier_answer_which_was_keyed_by_itself(tmp_path):
    plain = tmp_path / "notes"
    plain.mkdir()
    path = trust_file()
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    entry = {"trusted": True, "path": str(plain), "decided": "2026-11-01T09:00:00+00:00"}
    path.write_text(json.dumps({"repositories": {os.path.realpath(plain): entry}}))
    path.chmod(0o600)
    assert TrustStore().trusted(plain) and TrustStore().earlier(plain) is None
    assert [key for key, _ in TrustStore().listing()] == [os.path.realpath(plain)] and TrustStore().old_listing() == []
    TrustStore().remember(plain, None)
    assert TrustStore().decision(plain) is None
