"""The C# sources of the fixture solution, before and during the Patch -> Diff rename.

The files are data beside this module (solution/, laid out as the repository is): each
`{member}` in them is the name of ChangedFile's diff, `Patch` on the main branch and `Diff`
on the rename branch, where every use has moved except one in ReviewOrchestrator, the
`{call_site}` line. The line numbers matter: the scenario's compiler error sits at
ReviewOrchestrator.cs line 111.
"""

from __future__ import annotations

from importlib.resources import files
from importlib.resources.abc import Traversable

SOLUTION_NAME = "ClaudeReviewBot"
CORE = "src/ClaudeReviewBot.Core"
CLI = "src/ClaudeReviewBot.Cli"
TESTS = "tests/ClaudeReviewBot.Core.Tests"
ORCHESTRATOR = f"{CORE}/Review/ReviewOrchestrator.cs"
CALL_SITE_LINE = 111
# The one statement the developer left for Monday, and what it becomes once finished.
LEFT_OVER = "var patchText = file.Patch;"
FINISHED = "var patchText = file.Diff;"

GITIGNORE = "bin/\nobj/\n*.user\n.vs/\n"


def _files(folder: Traversable, prefix: str = "") -> dict[str, str]:
    found: dict[str, str] = {}
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        path = f"{prefix}{entry.name}"
        if entry.is_dir():
            found.update(_files(entry, path + "/"))
        else:
            found[path] = entry.read_text(encoding="utf-8")
    return found


def tree(member: str, left_over: bool = False) -> dict[str, str]:
    """Every file of the solution, path -> text, with ChangedFile's diff named `member`;
    `left_over` keeps the Friday call site on `.Patch`."""
    call_site = LEFT_OVER if left_over else f"var patchText = file.{member};"
    found = {path: text.replace("{member}", member) for path, text in _files(files(__package__) / "solution").items()}
    found[ORCHESTRATOR] = found[ORCHESTRATOR].replace("{call_site}", call_site)
    found[".gitignore"] = GITIGNORE
    return found
