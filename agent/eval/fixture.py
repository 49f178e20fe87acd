"""The repository the evaluation's Friday and Monday happen in.

A real git repository holding a .NET-shaped solution on branch `rename-patch-to-diff`, with
the rename of `ChangedFile.Patch` to `Diff` uncommitted and one call site left behind in
ReviewOrchestrator, plus a `dotnet` stand-in to put first on PATH.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from agent.eval import sources

BRANCH = "rename-patch-to-diff"
_IDENTITY = {
    "GIT_AUTHOR_NAME": "Dana Developer",
    "GIT_AUTHOR_EMAIL": "dana@example.com",
    "GIT_COMMITTER_NAME": "Dana Developer",
    "GIT_COMMITTER_EMAIL": "dana@example.com",
}


@dataclass(frozen=True)
class Fixture:
    repo: Path
    bin_dir: Path

    @property
    def dotnet_log(self) -> Path:
        return self.bin_dir / "dotnet-calls.jsonl"

    @property
    def call_site(self) -> Path:
        return self.repo / sources.ORCHESTRATOR

    def call_site_fixed(self) -> bool:
        return sources.LEFT_OVER not in self.call_site.read_text(encoding="utf-8")

    def fix_call_site(self) -> None:
        """What someone does over the weekend in the staleness variant: finishes the rename."""
        text = self.call_site.read_text(encoding="utf-8")
        self.call_site.write_text(text.replace(sources.LEFT_OVER, sources.FINISHED), encoding="utf-8")

    def commit(self, message: str, when: datetime) -> None:
        """Commits everything in the working tree, as the developer would."""
        stamp = when.isoformat()
        git_in(self.repo, "add", "-A", when=stamp)
        git_in(self.repo, "commit", "-q", "-m", message, when=stamp)

    def dotnet_calls(self) -> list[list[str]]:
        """Every command line the stand-in has run, oldest first."""
        if not self.dotnet_log.exists():
            return []
        lines = self.dotnet_log.read_text(encoding="utf-8").splitlines()
        return [json.loads(line)["argv"] for line in lines if line.strip()]

    def clear_dotnet_log(self) -> None:
        self.dotnet_log.unlink(missing_ok=True)


def git_in(repo: Path, *args: str, when: str, identity: dict[str, str] | None = None) -> None:
    """git in the repository this module made itself (never the user's): the machine's git
    configuration and GIT_* variables are left out, so no hook, signing or template leaks in.
    `identity` names another author (a colleague's commit)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(_IDENTITY)
    env.update(identity or {})
    env.update(GIT_AUTHOR_DATE=when, GIT_COMMITTER_DATE=when, GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull)
    subprocess.run(
        ["git", "-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main", "-c", "core.hooksPath=/dev/null", *args],
        cwd=repo, env=env, check=True, capture_output=True, text=True,
    )


def _write_tree(repo: Path, files: dict[str, str]) -> None:
    for relative, text in files.items():
        path = repo / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def install_dotnet(bin_dir: Path) -> Path:
    """Copies the stand-in into `bin_dir` as an executable `dotnet` bound to this Python."""
    bin_dir.mkdir(parents=True, exist_ok=True)
    script = Path(__file__).with_name("dotnet_standin.py").read_text(encoding="utf-8")
    target = bin_dir / "dotnet"
    target.write_text(f"#!{sys.executable}\n{script}", encoding="utf-8")
    target.chmod(0o755)
    return target


def build_fixture(parent: Path) -> Fixture:
    """Creates `parent/ClaudeReviewBot` (the repository) and `parent/bin` (the stand-in)."""
    repo = parent / sources.SOLUTION_NAME
    # Never clear a folder that is already there: it may be someone's work, not an old fixture.
    repo.mkdir(parents=True, exist_ok=False)
    git_in(repo, "init", "-q", when="2026-10-26T09:00:00+00:00")
    _write_tree(repo, sources.tree("Patch"))
    git_in(repo, "add", "-A", when="2026-10-26T09:00:00+00:00")
    git_in(repo, "commit", "-q", "-m", "Review pull requests file by file", when="2026-10-26T09:00:00+00:00")
    git_in(repo, "checkout", "-q", "-b", BRANCH, when="2026-11-06T09:00:00+00:00")
    _write_tree(repo, sources.tree("Diff", left_over=True))
    return Fixture(repo=repo, bin_dir=install_dotnet(parent / "bin").parent)


@contextmanager
def dotnet_on_path(fixture: Fixture) -> Iterator[None]:
    """Puts the stand-in first on PATH for this process and every tool it starts, and lets
    it write its call log beside itself from inside the build's sandbox."""
    from agent.tools.toolchain.sandbox import writable_while

    before = os.environ.get("PATH")
    os.environ["PATH"] = str(fixture.bin_dir) + os.pathsep + (before or os.defpath)
    try:
        with writable_while(fixture.bin_dir):
            yield
    finally:
        if before is None:
            os.environ.pop("PATH", None)
        else:
            os.environ["PATH"] = before
