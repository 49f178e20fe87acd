"""The checked-out commit read from the repository's files agrees with git's own answer."""

from __future__ import annotations

from memory.git.head_file import head_from_files
from tests.repos import git, git_repo


def _rev(repo) -> str:
    return git(repo, "rev-parse", "HEAD").strip()


def test_a_branch_a_packed_ref_a_detached_head_and_a_worktree(tmp_path):
    repo = git_repo(tmp_path / "shop", {"a.txt": "1\n"}, commit=True)
    assert head_from_files(repo) == _rev(repo)
    (repo / "a.txt").write_text("2\n")
    git(repo, "commit", "-qam", "second")
    git(repo, "pack-refs", "--all")
    assert not (repo / ".git/refs/heads/main").exists()
    assert head_from_files(repo) == _rev(repo)
    git(repo, "checkout", "-q", "--detach", "HEAD~1")
    assert head_from_files(repo) == _rev(repo)
    git(repo, "checkout", "-q", "main")
    git(repo, "worktree", "add", "-q", "-b", "side", str(tmp_path / "side"))
    side = tmp_path / "side"
    (side / "a.txt").write_text("3\n")
    git(side, "commit", "-qam", "on the side")
    assert head_from_files(side) == _rev(side) != _rev(repo)
    assert head_from_files(repo) == _rev(repo)


def test_no_repository_and_no_commit_yet_are_none(tmp_path):
    assert head_from_files(tmp_path) is None
    assert head_from_files(git_repo(tmp_path / "empty")) is None
