"""The prompt's examples share nothing with an evaluation scenario: a model that meets its
own instructions' examples in the scenario is helped by the match, and the scores say more
than real use would. The scenario's names are read from its own files (the solution, the
fixture, the questions, the memory the cited variant starts from), not only from a list."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

from agent import prompts
from agent.eval import cited, fixture, harness, sources
from agent.eval.scenarios import SCENARIOS
from agent.tools import developer_tools

EVAL = Path(harness.__file__).parent
# Named by hand too: what the prompt's examples once took from the first scenario.
KNOWN = {"ClaudeReviewBot", "ReviewOrchestrator", "Orchestrator", "ChangedFile", "Patch", "CS1061", "CS1591",
         "Api project", "Cli project", "rename-plan"}
# Two or more capitalised words run together: a type, a project, a solution.
COMPOUND = re.compile(r"\b[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]+)+\b")
CODE = re.compile(r"\b[A-Z]{2,}\d{3,}\b")
MEMBER = re.compile(r"\.(\w+);")


def scenario_names() -> set[str]:
    """The names a scenario of agent/eval/ is made of: types and projects (two capitalised
    words run together), error codes, the members renamed, the branch, the memory files, the
    projects its questions name."""
    names = set(KNOWN)
    for path, text in sources.tree("Diff", left_over=True).items():
        parts = re.split(r"[/.]", path)
        names.update(part for part in parts if COMPOUND.fullmatch(part))
        names.update(COMPOUND.findall(text))
        if path.endswith(".csproj"):
            names.add(f"{parts[-2]} project")  # ClaudeReviewBot.Cli.csproj: "Cli project"
    for path in sorted(EVAL.rglob("*")):
        if not path.is_file() or "__pycache__" in path.parts:
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        if path.suffix == ".py":
            # what the evaluation's code says of its scenarios: its strings, not its own names
            text = "\n".join(node.value for node in ast.walk(ast.parse(text))
                             if isinstance(node, ast.Constant) and isinstance(node.value, str))
        else:
            # a scenario's data (another solution, another repository): its files' names too
            names.update(part for part in re.split(r"[/.]", path.relative_to(EVAL).as_posix()) if COMPOUND.fullmatch(part))
        names.update(CODE.findall(text) + COMPOUND.findall(text))
    names.update(MEMBER.findall(sources.LEFT_OVER) + MEMBER.findall(sources.FINISHED))  # Patch, Diff
    names.update({fixture.BRANCH, Path(cited.CITED_PATH).stem})
    for scenario in SCENARIOS.values():
        # what no shape finds: a person, a module, a store, a flag (each scenario names its own)
        names.update(scenario.names())
    for question in (q for scenario in SCENARIOS.values() for q in scenario.friday + scenario.monday):
        # "The core project is the one I care about": the project it names, not "the project"
        names.update(f"{word.capitalize()} project" for word in re.findall(r"\b(\w+) project\b", question, re.I)
                     if word.lower() not in ("the", "a", "this", "that", "each", "one", "every"))
    return names


def prompt_texts() -> dict[str, str]:
    texts = {path.name: path.read_text(encoding="utf-8") for path in Path(prompts.__file__).parent.glob("*.md")}
    for tool in developer_tools():
        texts[f"the {tool.name} tool"] = json.dumps(tool.definition(), ensure_ascii=False)
    return texts


def named(text: str, names: set[str]) -> list[str]:
    return sorted(n for n in names if re.search(rf"(?<![\w-]){re.escape(n)}(?![\w-])", text, 0 if " " not in n else re.I))


def test_the_scenario_names_come_from_its_files():
    names = scenario_names()
    assert {"DiffParser", "PromptBuilder", "Core project", "rename-patch-to-diff", "Diff"} <= names
    # the second scenario's, found through its own names() and its data files
    assert {"Margit", "Teodor", "SQLite", "Postgres", "fareshare", "payouts/", "fees.py", "conftest.py"} <= names
    assert names >= KNOWN


def test_no_prompt_names_anything_of_an_evaluation_scenario():
    names = scenario_names()
    found = {where: hits for where, text in prompt_texts().items() if (hits := named(text, names))}
    assert found == {}


def test_the_check_finds_a_scenario_name_in_a_prompt():
    names = scenario_names()
    assert named("Finish the call in DiffParser.cs once the core project builds.", names) == ["Core project", "DiffParser"]
    assert named("a patch, git_diff and the diff pane", names) == []
