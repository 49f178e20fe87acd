"""read_file: confined to the repository, text only, paged, with credentials masked."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from agent.tools.files import MAX_LINES, ReadFileTool
from agent.tools.paths import resolve_in_repository
from tests.repos import git, git_repo
from tests.tools.repos import ctx_for, tree

OUTSIDE = "OUTSIDE-THE-REPOSITORY-0451"
ROOT = Path(__file__).resolve().parents[2]


def read(repo, **input):
    return ReadFileTool().run(input, ctx_for(repo))


@pytest.fixture
def sandbox(tmp_path):
    """A repository nested deep in tmp, with bait beside it, above it and in a look-alike sibling."""
    box = tmp_path / "a" / "b" / "c" / "d" / "sandbox"
    repo = git_repo(box / "repo")
    (repo / "src").mkdir()
    (repo / "src" / "app.py").write_text("print('hi')\n")
    (repo / ".env").write_text("DEBUG=1\n")
    (repo / ".github" / "workflows").mkdir(parents=True)
    (repo / ".github" / "workflows" / "ci.yml").write_text("on: push\n")
    (box / "secret.txt").write_text(OUTSIDE + "\n")
    (box / "repo-evil").mkdir()
    (box / "repo-evil" / "x.txt").write_text(OUTSIDE + "\n")
    (tmp_path / "a" / "top.txt").write_text(OUTSIDE + "\n")
    # Symlinks inside the repository that lead out, or into .git.
    (repo / "link-out.txt").symlink_to(box / "secret.txt")
    (repo / "src" / "up").symlink_to(box)
    (repo / "relative-out").symlink_to("../secret.txt")
    (repo / "innocent").symlink_to(".git/config")
    (repo / "gitdir").symlink_to(".git")
    return {"box": box, "repo": repo, "tmp": tmp_path}


def hostile_paths(box: Path, repo: Path) -> list[str]:
    return [
        "../secret.txt",
        "src/../../secret.txt",
        "./../secret.txt",
        "src/up/secret.txt",
        "link-out.txt",
        "relative-out",
        str(box / "secret.txt"),
        str(box / "repo-evil" / "x.txt"),  # shares the repository's name as a prefix
        str(repo) + "-evil/x.txt",
        str(repo) + "/../secret.txt",
        "..%2fsecret.txt",
        "%2e%2e/secret.txt",
        "..\\secret.txt",
        "src\\..\\..\\secret.txt",
        "C:/secret.txt",
        "C:secret.txt",
        "src/app.py\0.txt",
        "",
        "src//app.py",
        "src/app.py/",
        ".git/config",
        ".git",
        "src/../.git/config",
        ".GIT/config",
        "innocent",
        "gitdir/config",
        "../../../../../../a/top.txt",
        "~/secret.txt",
        "..",
        "...",
    ]


def test_hostile_paths_are_refused_and_nothing_is_left_behind(sandbox):
    box, repo = sandbox["box"], sandbox["repo"]
    before = tree(sandbox["tmp"])
    for path in hostile_paths(box, repo):
        result = read(repo, path=path)
        assert result.is_error, path
        assert OUTSIDE not in result.text, path
        assert "[core]" not in result.text, path  # .git/config's first line
    assert tree(sandbox["tmp"]) == before


def test_hostile_paths_under_a_read_only_filesystem(sandbox):
    """The same attempts with everything but the sandbox mounted read-only (needs root and unshare)."""
    box, repo = sandbox["box"], sandbox["repo"]
    mount_script = (
        "set -e; mount --make-rprivate /; mount --bind \"$BOX\" \"$BOX\"; "
        "for m in $(awk '{print $2}' /proc/self/mounts | sort -u); do "
        "case \"$m\" in \"$BOX\"|/proc*|/sys*|/dev*) continue;; esac; "
        "mount -o remount,bind,ro \"$m\" 2>/dev/null || true; done; "
        "touch /probe-read-only 2>/dev/null && exit 97; "
        "exec \"$@\""
    )
    argv = ["unshare", "-m", "sh", "-c", mount_script, "sh", sys.executable, "-m", "tests.tools.hostile_reads", str(repo)]
    env = dict(os.environ, BOX=str(box), PYTHONDONTWRITEBYTECODE="1")
    try:
        done = subprocess.run(
            argv, input=json.dumps(hostile_paths(box, repo)), capture_output=True, text=True, cwd=ROOT, env=env, timeout=120
        )
    except FileNotFoundError:
        pytest.skip("unshare is not installed")
    if done.returncode != 0:
        pytest.skip(f"cannot make a read-only mount namespace here: {done.stderr.strip()[:200]}")
    rows = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(rows) == len(hostile_paths(box, repo))
    for row in rows:
        assert row["is_error"], row["path"]
        assert OUTSIDE not in row["text"], row["path"]


def test_containment_check_uses_a_trailing_separator(sandbox):
    repo = sandbox["repo"]
    with pytest.raises(ValueError):
        resolve_in_repository(str(repo) + "-evil/x.txt", repo)
    assert resolve_in_repository(str(repo / "src" / "app.py"), repo) == (repo / "src" / "app.py").resolve()


def test_absolute_path_through_a_symlinked_repository_path(sandbox):
    repo = sandbox["repo"]
    alias = sandbox["box"] / "alias-of-repo"
    alias.symlink_to(repo)
    result = ReadFileTool().run({"path": str(alias / "src" / "app.py")}, ctx_for(alias))
    assert "print('hi')" in result.text
    escape = ReadFileTool().run({"path": str(alias / ".." / "secret.txt")}, ctx_for(alias))
    assert escape.is_error and OUTSIDE not in escape.text


def test_reads_with_line_numbers(sandbox):
    result = read(sandbox["repo"], path="src/app.py")
    assert not result.is_error
    assert result.text == "src/app.py (lines 1-1 of 1)\n1\tprint('hi')"


def test_dotfiles_other_than_git_are_readable(sandbox):
    assert "DEBUG=1" in read(sandbox["repo"], path=".env").text
    assert "on: push" in read(sandbox["repo"], path=".github/workflows/ci.yml").text


def test_symlink_inside_the_repository_is_followed(sandbox):
    repo = sandbox["repo"]
    (repo / "alias.py").symlink_to("src/app.py")
    assert "print('hi')" in read(repo, path="alias.py").text


def test_paging_says_how_to_continue(tmp_path):
    repo = git_repo(tmp_path / "repo")
    (repo / "big.txt").write_text("".join(f"row {i}\n" for i in range(1, 2001)))
    first = read(repo, path="big.txt")
    assert first.text.startswith("big.txt (lines 1-400 of 2,000)")
    assert first.text.endswith("Showing lines 1-400 of 2,000; ask for start_line=401 to continue.")
    assert f"{MAX_LINES:>3}\trow 400" in first.text
    assert "row 401" not in first.text
    second = read(repo, path="big.txt", start_line=401)
    assert second.text.startswith("big.txt (lines 401-800 of 2,000)")
    assert "\n401\trow 401\n" in second.text
    window = read(repo, path="big.txt", start_line=1990, end_line=5000)
    assert window.text.startswith("big.txt (lines 1,990-2,000 of 2,000)")
    assert "Showing" not in window.text
    middle = read(repo, path="big.txt", start_line=10, end_line=12)
    assert middle.text == "big.txt (lines 10-12 of 2,000)\n10\trow 10\n11\trow 11\n12\trow 12"


def test_long_lines_and_character_cap(tmp_path):
    repo = git_repo(tmp_path / "repo")
    (repo / "bundle.min.js").write_text("x" * 50_000 + "\n" + "y" * 10 + "\n")
    result = read(repo, path="bundle.min.js")
    assert "[... line cut: 50,000 characters]" in result.text
    assert len(result.text) < 5_000
    many = "\n".join("z" * 1_500 for _ in range(100))
    (repo / "wide.txt").write_text(many)
    paged = read(repo, path="wide.txt")
    assert len(paged.text) < 45_000
    assert "ask for start_line=" in paged.text


def test_bad_line_ranges(tmp_path):
    repo = git_repo(tmp_path / "repo")
    (repo / "f.txt").write_text("a\nb\n")
    assert read(repo, path="f.txt", start_line=5).text == "Error: f.txt has only 2 lines; start_line 5 is past its end."
    assert read(repo, path="f.txt", start_line=0).is_error
    assert read(repo, path="f.txt", start_line=2, end_line=1).is_error
    assert read(repo, path="f.txt", start_line=1.5).is_error
    assert read(repo, path="f.txt", start_line=True).is_error
    assert read(repo, path="f.txt", start_line=2.0).text == "f.txt (lines 2-2 of 2)\n2\tb"
    assert read(repo, path=7).text == "Error: path must be a string, got int."
    assert read(repo).text == "Error: missing path."


def test_binary_is_refused_with_a_sentence(tmp_path):
    repo = git_repo(tmp_path / "repo")
    (repo / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR" + bytes(range(256)))
    result = read(repo, path="logo.png")
    assert result.is_error
    assert result.text == "logo.png is a binary file (272 bytes); read_file shows text only."


def test_encodings(tmp_path):
    repo = git_repo(tmp_path / "repo")
    (repo / "utf16.cs").write_bytes("// Größe\nclass A {}\n".encode("utf-16"))
    assert "1\t// Größe" in read(repo, path="utf16.cs").text
    (repo / "bom.cs").write_bytes(b"\xef\xbb\xbfclass B {}\n")
    assert read(repo, path="bom.cs").text.endswith("1\tclass B {}")
    (repo / "latin1.txt").write_bytes("caf\xe9 ok\n".encode("latin-1") + b"plain ascii\n" * 50)
    legacy = read(repo, path="latin1.txt")
    assert not legacy.is_error
    assert "1\tcafé ok" in legacy.text and "read as Latin-1" in legacy.text


def test_empty_file_missing_file_and_folder(tmp_path):
    repo = git_repo(tmp_path / "repo")
    (repo / "empty.txt").write_text("")
    (repo / "src").mkdir()
    (repo / "src" / "a.py").write_text("")
    (repo / "src" / "pkg").mkdir()
    assert read(repo, path="empty.txt").text == "empty.txt is empty."
    missing = read(repo, path="nope.txt")
    assert missing.is_error and missing.text == "Error: there is no nope.txt in the repository."
    folder = read(repo, path="src")
    assert folder.text == "src is a folder (2 entries). It holds:\na.py\npkg/"


def test_fifo_is_not_opened(tmp_path):
    repo = git_repo(tmp_path / "repo")
    os.mkfifo(repo / "pipe")
    result = read(repo, path="pipe")  # opening a FIFO for reading would block forever
    assert result.is_error
    assert result.text == "Error: pipe is not a regular file."


def test_env_file_credentials_are_masked_with_their_lines(tmp_path):
    repo = git_repo(tmp_path / "repo")
    (repo / ".env").write_text(
        "# local settings\n"
        "DEBUG=true\n"
        "AWS_ACCESS_KEY_ID=AKIAIOSFODNN7Q4W2ZLM\n"
        "AWS_SECRET_ACCESS_KEY=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\n"
        "DATABASE_URL=postgres://shop:s3cr3t-Pa55@db.internal:5432/shop\n"
    )
    result = read(repo, path=".env")
    assert not result.is_error
    for secret in ("AKIAIOSFODNN7Q4W2ZLM", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYQ7W3ZKEYX9", "s3cr3t-Pa55"):
        assert secret not in result.text
    assert "3\tAWS_ACCESS_KEY_ID=[masked: AWS access key ID]" in result.text
    assert "5\tDATABASE_URL=postgres://shop:[masked: password in URL]@db.internal:5432/shop" in result.text
    assert result.text.endswith(
        "Note: 3 credential-shaped strings were masked (AWS access key ID, line 3; "
        "AWS secret access key, line 4; password in URL, line 5)."
    )
    # A page that does not show the secret lines does not mention them.
    top = read(repo, path=".env", start_line=1, end_line=2)
    assert "Note:" not in top.text


def test_connection_string_in_a_config_file_is_masked(tmp_path):
    repo = git_repo(tmp_path / "repo")
    (repo / "appsettings.json").write_text(
        '{\n  "ConnectionStrings": {\n'
        '    "Shop": "Server=tcp:shop.database.windows.net;Database=shop;User ID=app;Password=Q9v!xT2#pLm;"\n'
        "  }\n}\n"
    )
    result = read(repo, path="appsettings.json")
    assert "Q9v!xT2#pLm" not in result.text
    assert "Password=[masked: password]" in result.text
    assert "(password, line 3)" in result.text


def test_git_worktree_file_is_refused(tmp_path):
    repo = git_repo(tmp_path / "repo")
    (repo / "f").write_text("1\n")
    git(repo, "add", "f")
    git(repo, "commit", "-q", "-m", "one")
    worktree = tmp_path / "wt"
    git(repo, "worktree", "add", "-q", str(worktree))
    # In a worktree .git is a file pointing at the main repository's metadata.
    result = read(worktree, path=".git")
    assert result.is_error
    assert "gitdir" not in result.text


SEGMENTS = ["..", ".", "src", "up", ".git", "config", "secret.txt", "repo", "repo-evil", "x.txt", "", "%2e%2e", "..\\", "C:", "link-out.txt", "gitdir", "innocent", "~"]


@pytest.mark.slow
def test_random_paths_never_leave_the_repository(sandbox):
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    box, repo = sandbox["box"], sandbox["repo"]
    before = tree(sandbox["tmp"])
    absolute_starts = ["", "/", str(repo) + "/", str(box) + "/"]

    @settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
    @given(start=st.sampled_from(absolute_starts), parts=st.lists(st.sampled_from(SEGMENTS), min_size=1, max_size=6))
    def attempt(start, parts):
        result = read(repo, path=start + "/".join(parts))
        assert OUTSIDE not in result.text
        assert "[core]" not in result.text
        assert "repositoryformatversion" not in result.text

    attempt()
    assert tree(sandbox["tmp"]) == before


@pytest.mark.parametrize(
    "part,problem",
    [
        ("..", "'..' segments are not allowed"),
        ("", "empty path segments"),
        ("a\x00.txt", "NUL characters are not allowed"),
    ],
)
def test_parts_are_refused_as_the_memory_store_refuses_them(tmp_path, part, problem):
    from memory.store import MemoryStore

    repo = git_repo(tmp_path / "repo")
    (repo / "src").mkdir()
    if "\x00" not in part and part not in ("", ".."):
        (repo / "src" / part).write_text("a real file with that name\n")
    result = read(repo, path=f"src/{part}")
    assert result.is_error and problem in result.text
    memory_result = MemoryStore(tmp_path / "memory").run({"command": "view", "path": f"/memories/{part}/x.md"})
    assert memory_result[1] and problem in memory_result[0]


@pytest.mark.parametrize("part", ["a\\b.txt", "c:d.txt", "%61.txt", "tab\there.txt"])
def test_a_name_the_memory_store_refuses_is_still_a_repository_file(tmp_path, part):
    # The repository chose the name: read_file reaches it (issue 38: it used to refuse them).
    repo = git_repo(tmp_path / "repo")
    (repo / "src").mkdir()
    (repo / "src" / part).write_text("a real file with that name\n")
    result = read(repo, path=f"src/{part}")
    assert not result.is_error and result.text.endswith("1\ta real file with that name"), result.text


def test_dotfiles_pass_the_shared_part_check_but_git_does_not(sandbox):
    assert "on: push" in read(sandbox["repo"], path=".github/workflows/ci.yml").text
    refused = read(sandbox["repo"], path="src/../.git/config")
    assert refused.is_error and "'..' segments are not allowed" in refused.text


def test_the_root_lists_as_any_folder(tmp_path):
    repo = git_repo(tmp_path / "repo")
    (repo / "src").mkdir()
    (repo / "README.md").write_text("hi\n")
    for path in (".", "./", "./."):
        result = read(repo, path=path)
        assert not result.is_error, path
        assert result.text == "The repository root is a folder (2 entries). It holds:\nREADME.md\nsrc/"
    assert read(repo, path="..").is_error
