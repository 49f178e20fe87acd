"""The shape of the product packages (memory/, agent/, tui/), read from their source.

Every import is counted: at module level, inside a function, and under TYPE_CHECKING (a
cycle that only the type checker follows is still two modules that cannot be read apart).
The rules: no import cycle among product modules; dependencies point tui -> agent ->
memory and never back; Textual only in tui/, and not in its command line; no module over
MAX_LINES lines; no product module named like a test. The allow-lists below held the tui/
violations known when these rules were written; they are empty now, and anything new fails.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("memory", "agent", "tui")
# What each package may import of the others: the layering tui -> agent -> memory.
MAY_IMPORT = {"memory": {"memory"}, "agent": {"agent", "memory"}, "tui": {"tui", "agent", "memory"}}
MAX_LINES = 450

# Import cycles allowed for now, each written as the set of modules it runs through. A cycle
# passes when its modules are all inside one of these sets, so shrinking one is fine and a
# module joining one fails. None is left.
KNOWN_CYCLES: list[set[str]] = []
# Modules allowed over MAX_LINES lines for now: none is left.
KNOWN_LONG: set[str] = set()


@cache
def product_modules() -> dict[str, Path]:
    modules = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            modules[".".join(parts)] = path
    return modules


def imported_names(name: str, path: Path, modules: dict[str, Path]) -> list[tuple[str, int]]:
    """Every module an import statement of the file names, with its line: `import a.b` gives
    a.b; `from a import b` gives a.b where that is a module, else a."""
    return list(_imported_names(name, path, frozenset(modules)))


@cache
def _imported_names(name: str, path: Path, modules: frozenset[str]) -> tuple[tuple[str, int], ...]:
    return tuple(_walk_imports(name, path, modules))


def _walk_imports(name: str, path: Path, modules: frozenset[str]) -> Iterator[tuple[str, int]]:
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - (node.level - 1)]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            for alias in node.names:
                full = f"{module}.{alias.name}"
                yield (full if full in modules else module), node.lineno


def graph() -> dict[str, set[str]]:
    """Each product module and the product modules it imports."""
    modules = product_modules()
    edges: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        for imported, _ in imported_names(name, path, modules):
            parts = imported.split(".")
            while parts and ".".join(parts) not in modules:
                parts.pop()
            target = ".".join(parts)
            if target and target != name:
                edges[name].add(target)
    return edges


def cycles(edges: dict[str, set[str]]) -> list[set[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm,
    iterative so that a long chain of imports cannot exhaust the stack)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[set[str]] = []
    for start in edges:
        if start in index:
            continue
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(component)
    return found


def test_no_import_cycle_among_product_modules():
    new = [sorted(c) for c in cycles(graph()) if not any(c <= known for known in KNOWN_CYCLES)]
    assert new == [], f"import cycles: {new}"


def test_the_cycle_finder_finds_a_cycle():
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert cycles(edges) == [{"a", "b", "c"}]


def test_dependencies_point_one_way():
    upward = []
    modules = product_modules()
    for name, path in modules.items():
        package = name.split(".")[0]
        for imported, line in imported_names(name, path, modules):
            top = imported.split(".")[0]
            if top in PACKAGES and top not in MAY_IMPORT[package]:
                upward.append(f"{path.relative_to(ROOT)}:{line} imports {imported}")
    assert upward == []


def test_textual_only_in_tui():
    outside = []
    modules = product_modules()
    for name, path in modules.items():
        if name.split(".")[0] == "tui":
            continue
        for imported, line in imported_names(name, path, modules):
            if imported.split(".")[0] == "textual":
                outside.append(f"{path.relative_to(ROOT)}:{line}")
    assert outside == []


def test_the_command_line_imports_no_textual():
    # the command line is for scripts: Textual comes only with the app it opens
    found = []
    modules = product_modules()
    for name, path in modules.items():
        if name == "tui.cli" or name.startswith("tui.cli."):
            found += [f"{path.relative_to(ROOT)}:{line}" for imported, line in imported_names(name, path, modules)
                      if imported.split(".")[0] == "textual"]
    assert found == []
    assert "tui.cli.main" in modules


def test_no_product_module_is_too_long():
    long = {
        name: count
        for name, path in product_modules().items()
        if (count := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES and name not in KNOWN_LONG
    }
    assert long == {}, f"over {MAX_LINES} lines: {long}"


def test_no_product_module_is_named_like_a_test():
    named = [str(p.relative_to(ROOT)) for p in product_modules().values() if p.name.startswith("test_") or p.name.endswith("_test.py")]
    assert named == []


def test_imports_inside_functions_and_type_checking_count(tmp_path):
    # The rules above pass on the product as it is; this shows they read every kind of import.
    source = tmp_path / "probe.py"
    source.write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from tui.app import DevAgentApp\n"
        "def later():\n    import textual.widgets\n    from . import sibling\n"
    )
    modules = {"agent.probe": source, "agent.sibling": tmp_path / "sibling.py", "tui.app": tmp_path / "app.py"}
    names = [n for n, _ in imported_names("agent.probe", source, modules)]
    assert names == ["typing", "tui.app", "textual.widgets", "agent.sibling"]


def _private_names(paths) -> dict[str, list[str]]:
    """Each `_name` (not dunder) that the files define or reach as an attribute, with where."""
    found: dict[str, list[str]] = {}
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            name = None
            if isinstance(node, ast.Attribute):
                name = node.attr
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = node.name
            elif isinstance(node, ast.Name):
                name = node.id
            elif isinstance(node, ast.arg):
                name = node.arg
            if name and name.startswith("_") and not name.startswith("__"):
                found.setdefault(name, []).append(f"{path.relative_to(path.parents[1])}:{getattr(node, 'lineno', 0)}")
    return found


def test_no_private_textual_name_in_the_app_or_its_tests():
    """A private attribute of Textual's (app._notifications, widget._nodes) reached from tui/
    or tests/ breaks on any Textual release; a name devagent defines itself is its own."""
    import textual

    textual_private = set(_private_names(Path(textual.__file__).parent.rglob("*.py")))
    ours = sorted((ROOT / "tui").rglob("*.py")) + sorted((ROOT / "tests").rglob("*.py"))
    product = [path for package in PACKAGES for path in sorted((ROOT / package).rglob("*.py"))]
    # os._exit is the standard library's documented way out of a forked child
    defined = {"_exit"} | {name for name in _private_names(ours)
                           if any(_defines(path, name) for path in [*ours, *product])}
    reached: dict[str, list[str]] = {}
    for path in ours:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Attribute) and node.attr in textual_private and node.attr not in defined:
                reached.setdefault(node.attr, []).append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not reached, reached


@cache
def _definitions(path: Path) -> frozenset[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for sub in ast.walk(target):
                    if isinstance(sub, ast.Attribute):
                        names.add(sub.attr)
                    elif isinstance(sub, ast.Name):
                        names.add(sub.id)
    return frozenset(names)


def _defines(path: Path, name: str) -> bool:
    return name in _definitions(path)


# agent/ is grouped by concern: loop/ (the tool-use loop), conversation/ (history, transcripts,
# saved sessions, the context window), recall/ (how a session starts from memory and what the
# prompt says of it), settings/, tools/ (one module a tool; toolchain/ and editor/ below them),
# voice/, eval/, prompts/. Its root keeps only what every concern shares (events,
# cancellation, decisions, marks, trust).
#
# The concerns' order, lowest first: a concern imports only from the floors below its own,
# never from its own floor's other concern nor from above. ROOT_FLOOR stands for the modules
# at agent/'s root.
ROOT_FLOOR = "(root)"
CONCERN_FLOORS: list[set[str]] = [
    {"prompts", "settings"},  # text and choices: they import no other concern
    {ROOT_FLOOR},  # events, cancellation, decisions, marks, trust
    {"tools", "voice"},  # what the model can run; what the user says and hears
    {"conversation"},  # the messages, their file, the context window
    {"recall", "instructions", "checkpoints"},  # what the prompt gives of memory; of the repository's
    # instruction files; each turn's checkpoint and going back to it
    {"loop"},  # the tool-use loop that runs all of the above
    {"eval"},  # drives whole sessions
]
AGENT_ROOT_MAX = 12
# A module deeper down may use these of a package above it: its foundations.
# The tool contract, what a path from the model may name, and how a name is shown.
SHARED_ABOVE = {"base", "paths", "names"}


def upward_imports(modules: dict[str, Path]) -> list[str]:
    """Imports of a module that sits in a package above the importer's own (agent.tools.files
    from agent.tools.editor.journal): a lower floor reaching back up into the one that uses it.
    agent/'s root holds what all concerns share, so it is not above anyone in this sense."""
    found = []
    for name, path in modules.items():
        if not name.startswith("agent."):
            continue
        own = name.split(".")[:-1] if path.name != "__init__.py" else name.split(".")
        for imported, line in imported_names(name, path, modules):
            if imported not in modules or not imported.startswith("agent."):
                continue
            target_package = imported.split(".")[:-1]
            if modules[imported].name == "__init__.py":
                continue  # a package's own __init__ is its front door, not a floor above
            above = len(target_package) < len(own) and own[: len(target_package)] == target_package
            if above and target_package != ["agent"] and imported.split(".")[-1] not in SHARED_ABOVE:
                where = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path.name
                found.append(f"{where}:{line} imports {imported}")
    return found


def test_agent_root_holds_only_what_every_concern_shares():
    root = sorted(p.stem for p in (ROOT / "agent").glob("*.py") if p.name != "__init__.py")
    assert len(root) <= AGENT_ROOT_MAX, f"{len(root)} modules at agent/'s root: {root}"


def test_no_import_runs_back_up_in_agent():
    assert upward_imports(product_modules()) == []


def test_the_back_up_rule_finds_a_lower_floor_reaching_up(tmp_path):
    lower = tmp_path / "journal.py"
    lower.write_text("from agent.tools.files import resolve\nfrom agent.tools.base import Tool\nfrom agent.events import X\n")
    modules = {"agent.tools.editor.journal": lower, "agent.tools.files": tmp_path / "files.py",
               "agent.tools.base": tmp_path / "base.py", "agent.events": tmp_path / "events.py"}
    for other in ("files.py", "base.py", "events.py"):
        (tmp_path / other).write_text("")
    assert [line.split(" imports ")[1] for line in upward_imports(modules)] == ["agent.tools.files"]


def test_the_loop_never_imports_the_app():
    found = [f"{path.relative_to(ROOT)}:{line} imports {imported}"
             for name, path in product_modules().items() if name.startswith("agent.loop")
             for imported, line in imported_names(name, path, product_modules())
             if imported.split(".")[0] in {"tui", "textual"}]
    assert found == []
    assert "agent.loop.session" in product_modules()


# tui/ runs down from the app: tui/app.py at the root, the main screen and the dialogs in
# screens/, the widgets in widgets/ (by region), the turn driver in turns/, the command
# line in cli/. A module below may use of the root only these foundations, which import
# nothing else of tui/ (the sanitiser, a tool run's marks, where a reply may be cut, the
# message a decision goes up in, the terminal, the app's key table): never the app itself.
TUI_FOUNDATIONS = {"tui.format", "tui.outcomes", "tui.blocks", "tui.decided", "tui.terminal", "tui.bindings"}


def tui_upward_imports(modules: dict[str, Path]) -> list[str]:
    """Imports in tui/ of a module in a package above the importer's own (tui.app from
    tui.widgets.conversation.code_review): a lower floor reaching back up into what uses it.
    A package's __init__ is its front door, and the foundations are shared by every floor."""
    found = []
    for name, path in modules.items():
        if not name.startswith("tui."):
            continue
        own = name.split(".")[:-1] if path.name != "__init__.py" else name.split(".")
        for imported, line in imported_names(name, path, modules):
            if imported not in modules or not imported.startswith("tui.") or imported in TUI_FOUNDATIONS:
                continue
            if modules[imported].name == "__init__.py":
                continue
            target_package = imported.split(".")[:-1]
            if len(target_package) < len(own) and own[: len(target_package)] == target_package:
                where = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path.name
                found.append(f"{where}:{line} imports {imported}")
    return found


def test_no_import_runs_back_up_in_tui():
    assert tui_upward_imports(product_modules()) == []


def test_the_tui_foundations_import_nothing_else_of_tui():
    modules = product_modules()
    leaning = [f"{name} imports {imported}" for name in sorted(TUI_FOUNDATIONS)
               for imported, _line in imported_names(name, modules[name], modules)
               if imported.split(".")[0] == "tui" and imported != name]
    assert leaning == []


def test_the_tui_back_up_rule_finds_a_widget_reaching_for_the_app(tmp_path):
    widget = tmp_path / "code_review.py"
    widget.write_text("from tui.app import DevAgentApp\nfrom tui.format import sanitize\n"
                      "from tui.widgets.conversation.lines import ToolLine\nfrom tui.screens.trust import TrustPrompt\n")
    modules = {"tui.widgets.conversation.code_review": widget, "tui.app": tmp_path / "app.py",
               "tui.format": tmp_path / "format.py", "tui.widgets.conversation.lines": tmp_path / "lines.py",
               "tui.screens.trust": tmp_path / "trust.py"}
    for other in ("app.py", "format.py", "lines.py", "trust.py"):
        (tmp_path / other).write_text("")
    assert [line.split(" imports ")[1] for line in tui_upward_imports(modules)] == ["tui.app"]


def test_no_helper_in_tui_takes_the_app():
    """The app hands its helpers what they work on (widgets, the turn driver, data), never
    itself: a function or method of a module other than tui/app.py whose parameter is
    named `app` (or typed as the app) would reach into all of it."""
    found = []
    for name, path in product_modules().items():
        if not name.startswith("tui.") or name == "tui.app":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for arg in [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]:
                    annotation = ast.unparse(arg.annotation) if arg.annotation is not None else ""
                    if arg.arg == "app" or "DevAgentApp" in annotation:
                        found.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name}({arg.arg})")
    assert found == []


def concern_of(name: str, path: Path) -> str | None:
    """The concern folder of an agent/ module (agent.loop.session: loop), ROOT_FLOOR for one
    at agent/'s root, None outside agent/ and for agent/__init__."""
    parts = name.split(".")
    if parts[0] != "agent" or len(parts) == 1:
        return None
    if len(parts) == 2 and path.name != "__init__.py":
        return ROOT_FLOOR
    return parts[1]


def imports_against_the_order(modules: dict[str, Path], floors: list[set[str]]) -> list[str]:
    """Each import of one agent/ concern from another that is not on a lower floor."""
    floor = {concern: level for level, concerns in enumerate(floors) for concern in concerns}
    found = []
    for name, path in modules.items():
        own = concern_of(name, path)
        if own is None:
            continue
        for imported, line in imported_names(name, path, modules):
            if imported not in modules:
                continue
            other = concern_of(imported, modules[imported])
            if other is None or other == own:
                continue
            if own not in floor or other not in floor or floor[other] >= floor[own]:
                where = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path.name
                found.append(f"{where}:{line} ({own}) imports {imported} ({other})")
    return found


def test_every_agent_concern_has_its_floor():
    concerns = {p.name for p in (ROOT / "agent").iterdir() if (p / "__init__.py").exists()}
    declared = set().union(*CONCERN_FLOORS) - {ROOT_FLOOR}
    assert concerns == declared


def test_agent_concerns_import_one_way():
    assert imports_against_the_order(product_modules(), CONCERN_FLOORS) == []


def test_the_order_rule_finds_a_concern_reaching_up_or_sideways(tmp_path):
    files = {
        "agent.conversation.window": "from agent.loop.turn import TurnState\nfrom agent.events import X\n",
        "agent.recall.changes": "from agent.conversation.transcripts import scrub\n",
        "agent.tools.build": "from agent.voice import hints\n",
        "agent.loop.turn": "", "agent.events": "", "agent.conversation.transcripts": "",
        "agent.voice": "",
    }
    modules = {}
    for name, text in files.items():
        path = tmp_path / name.replace(".", "_")
        path.mkdir()
        module = path / ("__init__.py" if name == "agent.voice" else "m.py")
        module.write_text(text)
        modules[name] = module
    modules["agent.voice.hints"] = tmp_path / "agent_voice" / "hints.py"
    modules["agent.voice.hints"].write_text("")
    found = imports_against_the_order(modules, CONCERN_FLOORS)
    assert [line.split(" imports ")[1] for line in found] == ["agent.loop.turn (loop)", "agent.voice.hints (voice)"]
