"""No git reading starts a program a repository's configuration names, in the repository or
in a submodule: every family of config keys git documents as naming a program
(tests/hostile_git.py), each through git_status, git_diff, git_log and the memory's
evidence check, opened at the outer repository and at the submodule.

Each fixture first proves itself: plain git, asked to do what uses the key, leaves the
program's mark. Then the readers must leave none.

These run only inside a private mount namespace where everything but their sandbox is
read-only (the outer test at the end reruns this module there), so a program that did run
could touch nothing real.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent.tools.base import ToolContext, ToolResult
from agent.tools.git import GitStatusTool
from agent.tools.git_diff import GitDiffTool
from memory.evidence import Fingerprint, Tree, classify, head_commit
from tests.hostile_git import FAMILIES, build, clear, password_server, run_stand_on
from tests.read_only_rerun import rerun_read_only

INNER = os.environ.get("GIT_HOSTILE_INNER") == "1"
inside_only = pytest.mark.skipif(not INNER, reason="runs inside the read-only mount namespace (the last test of this file)")


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    with password_server() as url:
        yield url


def read_everything(folder: Path) -> list[ToolResult]:
    """Every way devagent reads a repository: the three tools, the evidence check (the
    commit a fingerprint records, and git's renames for a cited file that is gone), the
    nested instruction files git lists, and run_command's snapshot of the working tree."""
    from agent.instructions.files import nested_paths
    from agent.tools.git_log import GitLogTool
    from agent.tools.toolchain.file_changes import snapshot

    ctx = ToolContext(folder)
    results = [
        GitStatusTool().run({}, ctx),
        GitDiffTool().run({}, ctx),
        GitDiffTool().run({"against": "HEAD"}, ctx),
        GitLogTool().run({}, ctx),
        GitLogTool().run({"path": "notes.txt"}, ctx),
    ]
    commit = head_commit(folder)
    gone = Fingerprint(cite="moved.txt:1", path="moved.txt", kind="lines", start=1, end=1, anchor=1, count=1,
                       hash="0" * 32, first="0" * 32, commit=commit or "0" * 40)
    classify(folder, gone, Tree(folder))
    nested_paths(folder)
    snapshot(folder)
    return results


@inside_only
@pytest.mark.parametrize("place", ["repo", "submodule"])
@pytest.mark.parametrize("family", FAMILIES)
def test_no_reading_starts_a_program_the_config_names(tmp_path, server, family, place):
    case = build(family, place, tmp_path / "sandbox", server)
    run_stand_on(case)
    assert case.dropped() == [family], f"the fixture is not live: plain git `{' '.join(case.stand_on)}` ran nothing"
    clear(case)
    for folder in dict.fromkeys([case.outer, case.hostile]):
        results = read_everything(folder)
        assert case.dropped() == [], (family, place, folder, [r.text[:300] for r in results])
        assert not any(r.crashed for r in results), [r.text for r in results if r.crashed]
        status = results[0].text
        if folder == case.hostile:
            assert "modified: notes.txt" in status, status
        if family.startswith("lazy-fetch") and folder == case.hostile:
            # the partial clone lacks notes.txt's old content: said, never fetched
            assert "notes.txt (its content is not in this partial clone, and is not fetched)" in results[1].text, results[1].text


@inside_only
def test_inner_run_really_is_read_only():
    with pytest.raises(OSError):
        (Path(__file__).parent / "probe-should-fail").write_text("no")


@pytest.mark.slow
def test_hostile_git_under_a_read_only_mount_namespace(tmp_path):
    if INNER:
        pytest.skip("already inside")
    done = rerun_read_only(Path(__file__), tmp_path, "GIT_HOSTILE_INNER", timeout=1200)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert f"{len(FAMILIES) * 2 + 1} passed" in done.stdout, done.stdout[-2000:]
