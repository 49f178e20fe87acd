"""git_status against real repositories made in tmp folders."""

from __future__ import annotations

import subprocess

from agent.tools.git import GitStatusTool
from tests.repos import git, git_repo
from tests.tools.repos import ctx_for


def commit_all(repo, message="work"):
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)


def test_clean_repository(tmp_path):
    repo = git_repo(tmp_path / "app")
    (repo / "README.md").write_text("hello\n")
    commit_all(repo)
    result = GitStatusTool().run({}, ctx_for(repo))
    assert not result.is_error
    assert result.text == "Branch: main\nUpstream: none\nWorking tree clean: nothing staged, modified or untracked."
    assert result.summary == "main, clean"


def test_staged_unstaged_untracked_with_line_counts(tmp_path):
    repo = git_repo(tmp_path / "app")
    (repo / "a.py").write_text("one\ntwo\nthree\n")
    (repo / "b.py").write_text("b\n")
    (repo / "old name.txt").write_text("moving\n" * 5)
    commit_all(repo)
    git(repo, "switch", "-q", "-c", "rename-patch-to-diff")
    (repo / "a.py").write_text("one\nTWO\nthree\nfour\n")  # staged: +2 -1
    git(repo, "add", "a.py")
    (repo / "b.py").write_text("b\nc\n")  # unstaged: +1 -0
    git(repo, "mv", "old name.txt", "new name.txt")
    (repo / "notes").mkdir()
    (repo / "notes" / "todo.md").write_text("finish\n")

    result = GitStatusTool().run({}, ctx_for(repo))
    lines = result.text.splitlines()
    assert lines[0] == "Branch: rename-patch-to-diff"
    assert "Staged (2, 2 files, +2 -1):" in lines
    assert "  modified: a.py (+2 -1)" in lines
    assert "  renamed: old name.txt -> new name.txt (+0 -0)" in lines
    assert "Not staged (1, 1 file, +1 -0):" in lines
    assert "  modified: b.py (+1 -0)" in lines
    assert "Untracked (1):" in lines
    assert "  notes/todo.md" in lines
    assert result.summary == "rename-patch-to-diff, 2 staged, 1 modified, 1 untracked"


def test_ahead_and_behind_upstream(tmp_path):
    origin = git_repo(tmp_path / "origin")
    (origin / "f.txt").write_text("1\n")
    commit_all(origin, "first")
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(origin), str(clone)], check=True)
    (origin / "f.txt").write_text("2\n")
    commit_all(origin, "theirs")
    git(clone, "fetch", "-q")
    (clone / "g.txt").write_text("mine\n")
    commit_all(clone, "mine 1")
    (clone / "g.txt").write_text("mine again\n")
    commit_all(clone, "mine 2")
    result = GitStatusTool().run({}, ctx_for(clone))
    assert "Upstream: origin/main, 2 ahead, 1 behind" in result.text


def test_no_commits_yet(tmp_path):
    repo = git_repo(tmp_path / "fresh")
    (repo / "x.txt").write_text("x\n")
    git(repo, "add", "x.txt")
    result = GitStatusTool().run({}, ctx_for(repo))
    assert result.text.startswith("Branch: main (no commits yet)")
    assert "  added: x.txt (+1 -0)" in result.text


def test_detached_head(tmp_path):
    repo = git_repo(tmp_path / "app")
    (repo / "x").write_text("1\n")
    commit_all(repo)
    head = git(repo, "rev-parse", "HEAD").strip()
    git(repo, "checkout", "-q", "--detach")
    result = GitStatusTool().run({}, ctx_for(repo))
    assert result.text.startswith(f"HEAD is detached at {head[:10]}.")


def test_merge_conflict(tmp_path):
    repo = git_repo(tmp_path / "app")
    (repo / "f.txt").write_text("base\n")
    commit_all(repo)
    git(repo, "switch", "-q", "-c", "other")
    (repo / "f.txt").write_text("other\n")
    commit_all(repo)
    git(repo, "switch", "-q", "main")
    (repo / "f.txt").write_text("main\n")
    commit_all(repo)
    subprocess.run(["git", "merge", "-q", "other"], cwd=repo, capture_output=True)
    result = GitStatusTool().run({}, ctx_for(repo))
    assert "Conflicted (1):" in result.text
    assert "  both modified: f.txt" in result.text
    assert "1 conflicted" in result.summary


def test_not_a_repository_is_a_sentence(tmp_path, monkeypatch):
    folder = tmp_path / "plain"
    folder.mkdir()
    # Keeps git from finding a repository above the tmp folder, whatever machine this runs on.
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    result = GitStatusTool().run({}, ctx_for(folder))
    assert not result.is_error
    assert result.text == f"{folder} is not a git repository, so there is no branch or change list to show."


def test_no_git_program_is_needed(tmp_path, monkeypatch):
    """The repository is read through libgit2: without git on PATH the status is the same."""
    repo = git_repo(tmp_path / "app", {"x.txt": "1\n"}, commit=True)
    (repo / "x.txt").write_text("2\n")
    monkeypatch.setenv("PATH", str(tmp_path / "nothing-here"))
    result = GitStatusTool().run({}, ctx_for(repo))
    assert not result.is_error, result.text
    assert "  modified: x.txt (+1 -1)" in result.text


def test_missing_folder(tmp_path):
    result = GitStatusTool().run({}, ctx_for(tmp_path / "gone"))
    assert result.is_error
    assert "does not exist" in result.text


def test_status_takes_no_index_lock(tmp_path):
    repo = git_repo(tmp_path / "app")
    (repo / "x").write_text("1\n")
    commit_all(repo)
    (repo / "x").write_text("2\n")
    # Another process committing holds index.lock; a read must not fail or wait on it.
    (repo / ".git" / "index.lock").write_text("")
    result = GitStatusTool().run({}, ctx_for(repo))
    assert not result.is_error
    assert "  modified: x (+1 -1)" in result.text
    assert (repo / ".git" / "index.lock").exists()


def test_untracked_lists_are_cut_with_a_count(tmp_path):
    repo = git_repo(tmp_path / "app")
    for i in range(55):
        (repo / f"gen{i:02}.txt").write_text("x\n")
    result = GitStatusTool().run({}, ctx_for(repo))
    assert "Untracked (55):" in result.text
    assert "  ... and 15 more" in result.text


def test_a_token_in_a_file_name_is_masked(tmp_path):
    repo = git_repo(tmp_path / "app")
    (repo / "ghp_abcdefghijklmnopqrstuvwxyz0123456789AB.txt").write_text("x\n")
    result = GitStatusTool().run({}, ctx_for(repo))
    assert "ghp_abcdefghijklmnopqrstuvwxyz0123456789AB" not in result.text
    assert "[masked: GitHub token].txt" in result.text
    assert "Note: 1 credential-shaped string was masked (GitHub token, result line 4)." in result.text


def test_deleted_binary_and_each_kind_of_conflict(tmp_path):
    repo = git_repo(tmp_path / "app")
    (repo / "gone.cs").write_text("class Gone {}\n")
    (repo / "logo.png").write_bytes(b"\x89PNG\0" + bytes(range(200)))
    for name in ("both.cs", "theirs-deletes.cs"):
        (repo / name).write_text("base\n")
    commit_all(repo)
    git(repo, "switch", "-q", "-c", "other")
    (repo / "both.cs").write_text("other\n")
    (repo / "theirs-deletes.cs").unlink()
    (repo / "added.cs").write_text("theirs\n")
    commit_all(repo)
    git(repo, "switch", "-q", "main")
    (repo / "both.cs").write_text("main\n")
    (repo / "theirs-deletes.cs").write_text("changed here\n")
    (repo / "added.cs").write_text("ours\n")
    commit_all(repo)
    subprocess.run(["git", "merge", "-q", "other"], cwd=repo, capture_output=True)
    (repo / "gone.cs").unlink()
    (repo / "logo.png").write_bytes(b"\x89PNG\0" + bytes(range(201)))
    result = GitStatusTool().run({}, ctx_for(repo))
    lines = result.text.splitlines()
    assert "Conflicted (3):" in lines
    assert {"  both modified: both.cs", "  deleted by them: theirs-deletes.cs", "  both added: added.cs"} <= set(lines)
    assert "  deleted: gone.cs (+0 -1)" in lines
    assert "  modified: logo.png (binary)" in lines
    assert not any("both.cs" in line for line in lines if line.startswith("  modified"))
