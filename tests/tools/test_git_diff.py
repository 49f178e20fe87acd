"""git_diff on repositories built here: hunks with both line numbers, caps, masking, and no
program of the repository's own configuration ever started."""

from __future__ import annotations

from agent.events import ShowOnScreen, ToolFinished, ToolStarted
from agent.loop.session import Session
from agent.settings.config import AgentConfig
from agent.tools.git_diff import GitDiffTool
from tests.double.server import text, tool_use
from tests.repos import git, git_repo
from tests.tools.repos import ctx_for, tree

AWS_KEY = "AKIAIOSFODNN7Q4W2ZLM"
TIMED = "".join(f"line {i}\n" for i in range(1, 141)) + "if age > max_age:\n    raise Expired()\n" + "".join(f"tail {i}\n" for i in range(20))


def diff(repo, **input):
    return GitDiffTool().run(input, ctx_for(repo))


def committed(tmp_path, name="repo"):
    repo = git_repo(tmp_path / name)
    (repo / "timed.py").write_text(TIMED)
    (repo / "README.md").write_text("# shop\n")
    (repo / "logo.png").write_bytes(b"\x89PNG\0\0" + bytes(range(256)))
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "first")
    return repo


def test_unstaged_and_staged_with_line_numbers(tmp_path):
    repo = committed(tmp_path)
    (repo / "timed.py").write_text(TIMED.replace("age > max_age", "age >= max_age"))
    (repo / "README.md").write_text("# shop\nA shop.\n")
    git(repo, "add", "README.md")
    (repo / "new.py").write_text("x = 1\n")
    result = diff(repo)
    assert not result.is_error
    assert result.summary == "2 files, +2 -1"
    assert result.text == (
        "Staged: 1 file, +1 -0\n\n"
        "README.md (+1 -0)\n"
        "@@ -1 +1,2 @@\n"
        "     1: # shop\n"
        "+    2: A shop.\n\n"
        "Not staged: 1 file, +1 -1\n\n"
        "timed.py (+1 -1)\n"
        "@@ -138,7 +138,7 @@ line 137\n"
        "   138: line 138\n"
        "   139: line 139\n"
        "   140: line 140\n"
        "-  141: if age > max_age:\n"
        "+  141: if age >= max_age:\n"
        "   142:     raise Expired()\n"
        "   143: tail 0\n"
        "   144: tail 1\n\n"
        "Untracked (new files git does not follow yet, not in the diff; read them with read_file): new.py"
    )
    title, content, fmt = result.screen
    assert (title, fmt) == ("Diff", "diff")
    assert "-if age > max_age:\n+if age >= max_age:" in content and content.startswith("# Staged\ndiff --git a/README.md")
    staged = diff(repo, staged=True)
    assert staged.summary == "1 file, +1 -0" and "timed.py" not in staged.text


def test_against_a_commit_for_one_path_and_binary_named(tmp_path):
    repo = committed(tmp_path)
    first = git(repo, "rev-parse", "HEAD").strip()
    (repo / "timed.py").write_text(TIMED.replace("raise Expired()", "pass"))
    (repo / "logo.png").write_bytes(b"\x89PNG\0\1" + bytes(range(256)))
    git(repo, "commit", "-q", "-am", "second")
    result = diff(repo, against=first)
    assert result.text.startswith(f"Against {first} ({first[:10]}): 2 files, +1 -1")
    assert "logo.png (binary file, not shown)" in result.text
    assert "\\x00" not in result.text and "Binary files a/logo.png and b/logo.png differ" in result.screen[1]
    one = diff(repo, against="HEAD~1", path="timed.py")
    assert one.summary == "1 file, +1 -1" and "logo.png" not in one.text
    assert "-  142:     raise Expired()\n+  142:     pass" in one.text
    assert diff(repo, path="timed.py").text == "No changes in timed.py."


def test_refusals(tmp_path):
    repo = committed(tmp_path / "box")
    before = tree(tmp_path)
    for against in ("--output=/tmp/x", "-p", "HEAD..main", "a b", "$(touch x)"):
        result = diff(repo, against=against)
        assert result.is_error and "is not a commit, branch or tag name" in result.text, against
    assert diff(repo, against="nope").text == "Error: there is no commit, branch or tag 'nope' in this repository."
    assert "'..' segments are not allowed" in diff(repo, path="../x").text
    assert "inside .git" in diff(repo, path=".git/config").text
    assert diff(repo, staged="yes").text == "Error: staged must be true or false, got 'yes'."
    plain = tmp_path / "plain"
    plain.mkdir()
    assert "is not a git repository" in diff(plain).text
    assert tree(tmp_path) == before | {"plain"}


def test_no_program_of_the_repository_runs(tmp_path):
    """A clean filter, an external diff, a textconv and an fsmonitor hook, all set by the
    repository; each would leave a file behind if git started it."""
    repo = committed(tmp_path)
    marks = tmp_path / "marks"
    marks.mkdir()
    (repo / ".gitattributes").write_text("*.py filter=evil diff=evil\n")
    git(repo, "add", ".gitattributes")
    git(repo, "commit", "-q", "-m", "attributes")
    (repo / "timed.py").write_text(TIMED.replace("age > max_age", "age >= max_age"))
    git(repo, "add", "timed.py")
    # set last: from here on only the tool runs git
    for key, name in (("filter.evil.clean", "clean"), ("filter.evil.process", "process"), ("diff.evil.command", "command"),
                      ("diff.evil.textconv", "textconv"), ("diff.external", "external"), ("core.fsmonitor", "fsmonitor")):
        git(repo, "config", key, f"touch {marks / name}; cat")
    (repo / "timed.py").write_text(TIMED.replace("age > max_age", "age == max_age"))
    result = diff(repo)
    assert "+  141: if age == max_age:" in result.text
    assert list(marks.iterdir()) == []


def test_credentials_are_masked_on_both_sides(tmp_path):
    repo = committed(tmp_path)
    (repo / "settings.py").write_text(f"KEY = '{AWS_KEY}'\n")
    git(repo, "add", "settings.py")
    git(repo, "commit", "-q", "-m", "key")
    pem = "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM9Oi8Fz7yV1RTrTn2Eq0LqHk1xVtq\n-----END RSA PRIVATE KEY-----\n"
    (repo / "settings.py").write_text("KEY = None\n" + pem)
    result = diff(repo)
    assert AWS_KEY not in result.text and AWS_KEY not in result.screen[1]
    assert "MIIEpAIBAAKCAQEA" not in result.text and "MIIEpAIBAAKCAQEA" not in result.screen[1]
    assert "-    1: KEY = '[masked: AWS access key ID]'" in result.text
    assert "Note: 2 credential-shaped strings were masked (AWS access key ID, settings.py (old) line 1; private key" in result.text


def test_a_long_diff_is_cut_with_the_files_left_out(tmp_path):
    repo = git_repo(tmp_path / "repo")
    for i in range(30):
        (repo / f"f{i:02}.txt").write_text("a\n" * 60)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "one")
    for i in range(30):
        (repo / f"f{i:02}.txt").write_text("b\n" * 60)
    result = diff(repo)
    assert result.summary == "30 files, +1800 -1800"
    assert "f00.txt (+60 -60)" in result.text
    last = result.text.splitlines()[-1]
    assert last.startswith("Cut here: the diff is too long to send whole; ")
    assert "f29.txt (+60 -60)" in last and last.endswith("Ask for one with path.")
    assert len(result.text) < 45_000
    assert "f29.txt" in result.screen[1]


def test_diff_through_the_tool_use_loop(claude_double, tmp_path):
    repo = committed(tmp_path)
    (repo / "timed.py").write_text(TIMED.replace("age > max_age", "age >= max_age"))
    claude_double.add(tool_use("git_diff", {"path": "timed.py"}))
    claude_double.add(tool_use("git_diff", {"against": "--output=/tmp/owned"}))
    claude_double.add(text("You changed the comparison on line 141 from greater than to greater or equal."))
    session = Session(repo, AgentConfig(memory_mode="none"))
    events: list = []
    session.send("what did I change?", events.append)
    session.close()
    requests = claude_double.messages_requests()
    shown, refused = requests[1].tool_results()[0], requests[2].tool_results()[0]
    assert "-  141: if age > max_age:" in str(shown["content"])
    assert refused.get("is_error") is True
    screens = [e for e in events if isinstance(e, ShowOnScreen)]
    assert [(e.title, e.format) for e in screens] == [("Diff in timed.py", "diff")]
    started = [e.summary for e in events if isinstance(e, ToolStarted)]
    assert started == ["timed.py", "against --output=/tmp/owned"]
    finished = [e.summary for e in events if isinstance(e, ToolFinished)]
    assert finished == ["1 file, +1 -1", "bad input"]
