"""One memory folder per repository, outside it, shared by all of its worktrees."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from memory.location import data_dir, git_common_dir, memory_dir_for, repository_key
from memory.store import MemoryStore
from tests.repos import git


@pytest.fixture
def repo(make_repo) -> Path:
    return make_repo("ClaudeReviewBot", {"README.md": "hello\n"}, commit=True, under="")


def expected_key(path: Path) -> str:
    return f"{path.name}-{hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:8]}"


def test_data_dir_honours_xdg_data_home(private_data_dir):
    assert data_dir() == private_data_dir / "devagent"


def test_key_is_name_and_hash_of_the_canonical_path(repo):
    assert repository_key(repo) == expected_key(repo)
    assert memory_dir_for(repo) == data_dir() / "memories" / expected_key(repo)


def test_folder_is_outside_the_repository(repo):
    folder = memory_dir_for(repo)
    assert repo.resolve() not in folder.resolve().parents


def test_subfolders_and_symlinks_of_a_repository_share_its_key(repo, tmp_path):
    (repo / "src" / "deep").mkdir(parents=True)
    link = tmp_path / "link-to-repo"
    link.symlink_to(repo, target_is_directory=True)
    assert repository_key(repo / "src" / "deep") == repository_key(repo)
    assert repository_key(link) == repository_key(repo)


def test_worktrees_share_one_folder(repo, tmp_path):
    other = tmp_path / "elsewhere" / "review-feature"
    git(repo, "worktree", "add", "-q", "-b", "feature", str(other))
    assert (other / ".git").is_file()
    assert git_common_dir(other) == (repo / ".git").resolve()
    assert repository_key(other) == repository_key(repo)

    main_store = MemoryStore.for_repository(repo)
    worktree_store = MemoryStore.for_repository(other)
    assert main_store.directory == worktree_store.directory
    main_store.run({"command": "create", "path": "/memories/shared.md", "file_text": "seen from both"})
    assert worktree_store.read("/memories/shared.md") == "seen from both"


def test_two_clones_get_two_folders(repo, tmp_path):
    clone = tmp_path / "copy" / "ClaudeReviewBot"
    clone.parent.mkdir()
    git(tmp_path, "clone", "-q", str(repo), str(clone))
    assert repository_key(clone) != repository_key(repo)
    assert repository_key(clone).startswith("ClaudeReviewBot-")


def test_bare_repository_and_its_worktree(tmp_path, repo):
    bare = tmp_path / "central.git"
    git(tmp_path, "clone", "-q", "--bare", str(repo), str(bare))
    tree = tmp_path / "wt"
    git(bare, "worktree", "add", "-q", str(tree), "main")
    assert repository_key(tree) == repository_key(bare)
    assert repository_key(bare).startswith("central-")


def test_folder_outside_git_is_keyed_on_itself(tmp_path):
    plain = tmp_path / "notes folder"
    plain.mkdir()
    assert repository_key(plain) == f"notes-folder-{hashlib.sha256(str(plain.resolve()).encode()).hexdigest()[:8]}"


def test_for_repository_passes_options(repo):
    store = MemoryStore.for_repository(repo, max_file_chars=10, lock_timeout=0.5)
    assert store.max_file_chars == 10 and store.lock_timeout == 0.5
    assert store.directory.is_dir()
    assert oct(store.directory.stat().st_mode & 0o777) == oct(0o700)
    assert str(store.directory).startswith(os.environ["XDG_DATA_HOME"])
