"""The second scenario's repository: fareshare, a small Python command line with pytest.

A real git repository built from the files in fareshare_repo/ (each `.py` kept there as
`.py.txt`, so that the product's own linters and imports never take it for code), with a
`.venv` of its own whose interpreter sees this Python's pytest, so the `test` tool runs the
suite as a developer of the repository would. Over the weekend a colleague documents
`export --json` in the README and commits it: the second step of Friday's plan.
"""

from __future__ import annotations

import subprocess
import venv
from dataclasses import dataclass
from datetime import datetime
from importlib.resources import files
from importlib.resources.abc import Traversable
from pathlib import Path

from agent.eval.fixture import git_in

NAME = "fareshare"
OWNER = "Margit"  # who owns payouts/, as the user says on Friday
OWNED = "fareshare/payouts"
COLLEAGUE = {"GIT_AUTHOR_NAME": "Teodor Lind", "GIT_AUTHOR_EMAIL": "teodor@example.com"}
WEEKEND_SUBJECT = "README: document export --json"
PYTEST_PARTS = ("pytest", "_pytest", "pluggy", "iniconfig", "packaging", "pygments", "py.py")
GITIGNORE = ".venv/\n__pycache__/\n.pytest_cache/\n*.sqlite3\n"
# What the colleague adds to the README: the plan's second step, done.
JSON_DOCS = """
### JSON

`fareshare export trip.json --json` writes every expense as a JSON list instead of CSV:
label, amount in cents, who paid and who shares it.
"""


def tree() -> dict[str, str]:
    """Every file of the repository on Friday, path -> text."""
    found: dict[str, str] = {}

    def walk(folder: Traversable, prefix: str) -> None:
        for entry in sorted(folder.iterdir(), key=lambda e: e.name):
            if entry.is_dir():
                walk(entry, f"{prefix}{entry.name}/")
            else:
                found[f"{prefix}{entry.name}".removesuffix(".txt")] = entry.read_text(encoding="utf-8")

    walk(files(__package__) / "fareshare_repo", "")
    found[".gitignore"] = GITIGNORE
    return found


@dataclass(frozen=True)
class PythonFixture:
    repo: Path

    def commit(self, message: str, when: datetime, author: dict[str, str] | None = None) -> None:
        stamp = when.isoformat()
        git_in(self.repo, "add", "-A", when=stamp)
        git_in(self.repo, "commit", "-q", "-m", message, when=stamp, identity=author)

    def head(self) -> str:
        return subprocess.run(["git", "rev-parse", "HEAD"], cwd=self.repo, capture_output=True, text=True,
                              check=True).stdout.strip()

    def document_json(self, when: datetime) -> None:
        """The colleague's weekend commit: the README documents export --json."""
        readme = self.repo / "README.md"
        text = readme.read_text(encoding="utf-8")
        readme.write_text(text.replace("\n## Develop", JSON_DOCS + "\n## Develop"), encoding="utf-8")
        self.commit(WEEKEND_SUBJECT, when, author=COLLEAGUE)

    def reset_to(self, commit: str) -> None:
        """Back to `commit` with no untracked file but the ignored ones (the .venv): the next
        Monday starts from the repository the weekend left."""
        git_in(self.repo, "reset", "-q", "--hard", commit, when="2026-01-01T00:00:00+00:00")
        git_in(self.repo, "clean", "-fdq", when="2026-01-01T00:00:00+00:00")

    def test_files(self) -> dict[str, str]:
        folder = self.repo / "tests"
        return {p.relative_to(self.repo).as_posix(): p.read_text(encoding="utf-8", errors="replace")
                for p in sorted(folder.rglob("*.py"))}


def make_venv(repo: Path) -> Path:
    """`.venv` in the repository, its interpreter this Python's, and pytest in it as links to
    this Python's own pytest and what it imports (nothing is installed or downloaded; none of
    this Python's other packages, whose pytest plugins would load, is seen)."""
    folder = repo / ".venv"
    venv.EnvBuilder(with_pip=False, symlinks=True).create(folder)
    try:
        import pytest
    except ImportError:  # the suite then says pytest is missing, as it would for a developer
        return folder
    source = Path(pytest.__file__).resolve().parent.parent
    for target in (folder / "lib").glob("python*/site-packages"):
        for name in PYTEST_PARTS:
            if (source / name).exists():
                (target / name).symlink_to(source / name)
    return folder


def build_python_fixture(parent: Path) -> PythonFixture:
    """Creates `parent/fareshare`: two commits of the user's, the working tree clean."""
    repo = parent / NAME
    repo.mkdir(parents=True, exist_ok=False)  # never clear a folder that is there already
    git_in(repo, "init", "-q", when="2026-10-19T09:00:00+00:00")
    for relative, text in tree().items():
        path = repo / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    git_in(repo, "add", "-A", when="2026-10-19T09:00:00+00:00")
    git_in(repo, "commit", "-q", "-m", "fareshare 0.3.2: add, settle and export, with export --json",
           when="2026-10-19T09:00:00+00:00")
    make_venv(repo)
    return PythonFixture(repo)
