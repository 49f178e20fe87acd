"""search and find_files on repositories built here: real files, real git, the real rg."""

from __future__ import annotations

import os
import subprocess

import pytest

from agent.loop.session import Session
from agent.settings.config import AgentConfig
from agent.tools import ripgrep
from agent.tools.find_files import MAX_FILES_LISTED, FindFilesTool
from agent.tools.search import MAX_PER_FILE, MAX_SHOWN, SearchTool
from tests.double.server import text, tool_use
from tests.repos import git, git_repo
from tests.tools.repos import ctx_for, tree

OUTSIDE = "OUTSIDE-THE-REPOSITORY-0451"
AWS_KEY = "AKIAIOSFODNN7Q4W2ZLM"
PEM = (
    "-----BEGIN RSA PRIVATE KEY-----\n"
    "MIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM9Oi8Fz7yV1RTrTn2Eq0LqHk1xVtq\n"
    "8cWsZQ4k1FvYq2rL9mN0pX7bR3sT6uW8yA1cE5gH9jK2lM4nO6pQ8rS0tU2vW4x\n"
    "-----END RSA PRIVATE KEY-----\n"
)


def search(repo, **input):
    return SearchTool().run(input, ctx_for(repo))


def find(repo, **input):
    return FindFilesTool().run(input, ctx_for(repo))


@pytest.fixture
def shop(tmp_path):
    """A small Python project with what a search must pass over: ignored, vendored, binary, .git."""
    repo = git_repo(tmp_path / "box" / "shop")
    (repo / "src" / "shop").mkdir(parents=True)
    (repo / "src" / "shop" / "timed.py").write_text(
        "import time\n\n\nclass Signer:\n    def unsign(self, value, max_age=None):\n"
        "        age = time.time() - value\n        if age > max_age:\n            raise ValueError(age)\n"
        "        return value\n"
    )
    (repo / "src" / "shop" / "serializer.py").write_text("def loads(payload, max_age=None):\n    return payload\n")
    (repo / "tests").mkdir()
    (repo / "tests" / "test_timed.py").write_text("def test_max_age():\n    assert True\n")
    (repo / ".gitignore").write_text("build/\n*.log\n")
    (repo / "build").mkdir()
    (repo / "build" / "timed.py").write_text("max_age = 'a build copy'\n")
    (repo / "debug.log").write_text("max_age in a log\n")
    (repo / "node_modules" / "dep").mkdir(parents=True)
    (repo / "node_modules" / "dep" / "index.js").write_text("var max_age = 1;\n")
    (repo / ".venv" / "lib").mkdir(parents=True)
    (repo / ".venv" / "lib" / "x.py").write_text("max_age = 2\n")
    (repo / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\0\0max_age\0" + bytes(range(256)))
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "max_age in a commit message")
    return repo


def test_a_definition_is_found_with_its_path_and_line(shop):
    result = search(shop, pattern=r"def \w+\(self, value, max_age")
    assert not result.is_error
    assert result.text == (
        "1 matching line in 1 file for /def \\w+\\(self, value, max_age/:\n\n"
        "src/shop/timed.py:5:     def unsign(self, value, max_age=None):"
    )
    assert result.summary == "1 match in 1 file"


def test_results_are_grouped_by_file_in_path_order_and_stable(shop):
    result = search(shop, pattern="max_age")
    assert result.text.splitlines()[0] == "4 matching lines in 3 files for /max_age/:"
    blocks = result.text.split("\n\n")[1:]
    assert [b.split(":")[0] for b in blocks] == ["src/shop/serializer.py", "src/shop/timed.py", "tests/test_timed.py"]
    assert "src/shop/timed.py:7:         if age > max_age:" in result.text
    assert all(search(shop, pattern="max_age").text == result.text for _ in range(3))


def test_ignored_vendored_binary_and_git_are_not_searched(shop):
    result = search(shop, pattern="max_age")
    for place in ("build/", "debug.log", "node_modules", ".venv", "logo.png", ".git", "commit message"):
        assert place not in result.text, place
    # a file the .gitignore names is still found when nothing ignores it
    (shop / ".gitignore").write_text("")
    assert "build/timed.py:1:" in search(shop, pattern="max_age").text


def test_literal_regex_case_and_a_bad_pattern(shop):
    assert search(shop, pattern="age > max", literal=True).summary == "1 match in 1 file"
    assert search(shop, pattern="ValueError(", literal=True).summary == "1 match in 1 file"
    bad = search(shop, pattern="(")
    assert bad.is_error and bad.summary == "bad pattern"
    assert bad.text.startswith("Error: the search failed: regex parse error:")
    assert bad.text.endswith("Set literal to search for the text as it is.")
    assert search(shop, pattern="SIGNER").text == "No matches for /SIGNER/."
    assert "class Signer" in search(shop, pattern="SIGNER", ignore_case=True).text
    assert search(shop, pattern="-max_age").text == "No matches for /-max_age/."  # not an option


def test_path_and_glob_limit_the_search(shop):
    assert search(shop, pattern="max_age", path="tests").text.splitlines()[0] == "1 matching line in 1 file for /max_age/ in tests:"
    only = search(shop, pattern="max_age", glob="test_*.py")
    assert only.summary == "1 match in 1 file" and "tests/test_timed.py:1:" in only.text
    assert search(shop, pattern="max_age", glob="!tests/**").summary == "3 matches in 2 files"
    assert search(shop, pattern="max_age", path="src/shop/serializer.py").summary == "1 match in 1 file"
    assert search(shop, pattern="max_age", path=".").summary == "4 matches in 3 files"


def test_context_lines_around_each_match(shop):
    result = search(shop, pattern="raise ValueError", context=1)
    assert result.text.endswith(
        "src/shop/timed.py-7-         if age > max_age:\n"
        "src/shop/timed.py:8:             raise ValueError(age)\n"
        "src/shop/timed.py-9-         return value"
    )
    apart = search(shop, pattern="import time|return value", context=1, path="src/shop/timed.py")
    assert "\n--\n" in apart.text
    assert search(shop, pattern="x", context=11).is_error


def test_refusals(shop, tmp_path):
    outside = tmp_path / "box" / "secret.txt"
    outside.write_text(OUTSIDE + "\n")
    (shop / "link-out").symlink_to(tmp_path / "box")
    (shop / "file-out.txt").symlink_to(outside)
    before = tree(tmp_path)
    cases = {
        "../secret.txt": "'..' segments are not allowed",
        str(outside): "is outside the repository",
        "link-out": "leads outside the repository",
        "link-out/secret.txt": "leads outside the repository",
        ".git": "inside .git",
        "nope": "there is no nope in the repository",
    }
    for path, why in cases.items():
        result = search(shop, pattern="OUTSIDE", path=path)
        assert result.is_error and why in result.text, (path, result.text)
    # a link met on the walk is not followed, to a folder or a file
    assert search(shop, pattern="OUTSIDE").text == "No matches for /OUTSIDE/."
    assert search(shop, pattern="core", glob=".git/*").text.startswith("Error: .git is never searched")
    assert search(shop, pattern="").text == "Error: missing pattern."
    assert search(shop, pattern="x" * 1001).is_error
    assert search(shop, pattern="x", literal="yes").text == "Error: literal must be true or false, got 'yes'."
    assert tree(tmp_path) == before


def test_credentials_are_masked_and_never_matched(tmp_path):
    repo = git_repo(tmp_path / "repo")
    (repo / ".env").write_text(f"DEBUG=1\nAWS_ACCESS_KEY_ID={AWS_KEY}\n")
    (repo / "deploy.pem").write_text("# the deploy key\n" + PEM)
    shown = search(repo, pattern="AWS_ACCESS")
    assert AWS_KEY not in shown.text
    assert ".env:2: AWS_ACCESS_KEY_ID=[masked: AWS access key ID]" in shown.text
    assert "Note: 1 credential-shaped string was masked (AWS access key ID, .env line 2)." in shown.text
    # A pattern that matches only inside a credential finds nothing: no letter-by-letter oracle.
    for pattern in ("AKIAIOSF", "AKIA[A-Z0-9]{16}", "^AWS_ACCESS_KEY_ID=AKIA"):
        assert search(repo, pattern=pattern).text.startswith("No matches"), pattern
    assert search(repo, pattern="MIIEpAIBAAKCAQEA").text.startswith("No matches")
    # one line of a private key, matched alone, is masked as part of its whole key
    assert search(repo, pattern="BEGIN RSA").text.startswith("No matches")
    around = search(repo, pattern="deploy key", context=2)
    assert "MIIEpAIBAAKCAQEA" not in around.text and "[masked: private key" in around.text


def test_caps_say_how_many_more(tmp_path):
    repo = git_repo(tmp_path / "repo")
    (repo / "many.py").write_text("".join(f"hit = {i}\n" for i in range(50)))
    for i in range(45):
        (repo / f"m{i:02}.py").write_text("hit\nhit\n")
    result = search(repo, pattern="hit")
    assert result.text.splitlines()[0] == f"140 matching lines in 46 files for /hit/; the first {MAX_SHOWN} in 46 files shown:"
    assert result.text.count(": hit") == MAX_SHOWN
    assert "many.py:10: hit = 9\n  ... 40 more matching lines in this file" in result.text
    assert result.text.endswith("... 40 more matching lines not shown: narrow the search with path or glob, or a more exact pattern.")
    for i in range(10):
        (repo / f"z{i}.py").write_text("".join("hit\n" for _ in range(MAX_PER_FILE + 5)))
    capped = search(repo, pattern="hit")
    assert "... 290 more matching lines in 10 more files not shown" in capped.text
    assert "z0.py" not in capped.text


def generate_repository(root, files: int = 10_000):
    """A repository of `files` source files in 100 folders, one of them defining `needle_{i}`."""
    repo = git_repo(root)
    for folder in range(files // 100):
        here = repo / "pkg" / f"mod{folder:03}"
        here.mkdir(parents=True)
        for i in range(100):
            n = folder * 100 + i
            (here / f"file{i:03}.py").write_text(
                f'"""Module {n}."""\n\nimport os\n\n\ndef needle_{n}(value):\n    return value + {n}\n' + "# filler line\n" * 20
            )
    return repo


@pytest.mark.slow
def test_ten_thousand_files(tmp_path):
    repo = generate_repository(tmp_path / "big")
    one = search(repo, pattern=r"def needle_7777\b")
    assert one.text.endswith("pkg/mod077/file077.py:6: def needle_7777(value):")
    every = search(repo, pattern=r"^def needle_")
    assert every.text.splitlines()[0] == "10,000 matching lines in 10,000 files for /^def needle_/; the first 100 in 100 files shown:"
    assert "pkg/mod000/file000.py:6: def needle_0(value):" in every.text
    assert every.text == search(repo, pattern=r"^def needle_").text
    listed = find(repo, glob="file00*.py")
    assert listed.text.startswith("1,000 files match file00*.py:\npkg/mod000/file000.py\n")
    assert listed.text.endswith(f"... and {1000 - MAX_FILES_LISTED} more not listed: narrow the glob or give a path.")


def test_find_files_by_glob(shop):
    assert find(shop, glob="**/test_*.py").text == "1 file match **/test_*.py:\ntests/test_timed.py"
    assert find(shop, glob="*.py").text == "3 files match *.py:\nsrc/shop/serializer.py\nsrc/shop/timed.py\ntests/test_timed.py"
    assert find(shop, glob="*.py", path="src").text.startswith("2 files match *.py in src:")
    assert find(shop, glob="*.rs").text == "No files match *.rs."
    assert find(shop, glob="*.py", path="../").is_error
    assert find(shop, glob=".git/*").is_error


def test_the_binary_comes_from_the_ripgrep_package():
    found = ripgrep.rg_binary()
    assert found is not None and os.access(found, os.X_OK)
    from importlib import metadata

    files = [str(f.locate()) for f in metadata.distribution("ripgrep").files or [] if f.name == "rg"]
    assert files and os.path.realpath(files[0]) == found
    assert subprocess.run([found, "--version"], capture_output=True, text=True).stdout.startswith("ripgrep ")


def test_search_through_the_tool_use_loop(claude_double, shop):
    claude_double.add(tool_use("search", {"pattern": "def unsign", "path": "src"}))
    claude_double.add(tool_use("search", {"pattern": "x", "path": "../.."}))
    claude_double.add(tool_use("find_files", {"glob": "test_*.py"}))
    claude_double.add(text("unsign is in timed.py, line 5."))
    session = Session(shop, AgentConfig(memory_mode="none"))
    events: list = []
    session.send("where is unsign defined?", events.append)
    session.close()
    requests = claude_double.messages_requests()
    assert {"search", "find_files"} <= {t["name"] for t in requests[0].body["tools"]}
    found, refused, files = (r.tool_results()[0] for r in requests[1:4])
    assert "src/shop/timed.py:5:     def unsign(self, value, max_age=None):" in str(found["content"])
    assert refused.get("is_error") is True and "'..' segments are not allowed" in str(refused["content"])
    assert "tests/test_timed.py" in str(files["content"])
