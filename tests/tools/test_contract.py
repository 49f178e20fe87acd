"""What the loop relies on: the tool list, the definitions, and that run() never raises."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent.tools import developer_tools
from agent.tools.base import Tool, ToolResult
from agent.tools.masking import mask_result
from agent.tools.registry import ToolRegistry
from agent.tools.screen import ShowOnScreenTool
from tests.repos import git_repo
from tests.tools.repos import ctx_for


def test_fixed_order_and_protocol():
    tools = developer_tools()
    assert [t.name for t in tools] == [
        "git_status", "git_diff", "build", "test", "read_file", "search", "find_files", "show_on_screen",
        "run_command", "git_log",
    ]
    for tool in tools:
        assert isinstance(tool, Tool)
        definition = tool.definition()
        assert definition["name"] == tool.name
        assert len(definition["description"]) > 80
        assert definition["input_schema"]["type"] == "object"
        json.dumps(definition)  # goes to the API as JSON
    # Stable between calls: the definitions are part of the cached prompt prefix.
    assert [t.definition() for t in tools] == [t.definition() for t in developer_tools()]


def test_summaries_are_short():
    tools = {t.name: t for t in developer_tools()}
    assert tools["git_status"].summarize_input({}) == "git status"
    assert tools["build"].summarize_input({}) == "whole repository"
    assert tools["build"].summarize_input({"project": "Shop.Core"}) == "Shop.Core"
    assert tools["test"].summarize_input({"filter": "Orchestrator"}) == "filter Orchestrator"
    assert tools["read_file"].summarize_input({"path": "src/a.cs", "start_line": 100, "end_line": 120}) == "src/a.cs:100-120"
    assert tools["show_on_screen"].summarize_input({"title": "Build errors", "content": "x"}) == "Build errors"
    assert tools["search"].summarize_input({"pattern": "max_age", "path": "src", "glob": "*.py"}) == "/max_age/ in src *.py"
    assert tools["search"].summarize_input({"pattern": "a.b(", "literal": True}) == "'a.b('"
    assert tools["find_files"].summarize_input({"glob": "**/test_*.py"}) == "**/test_*.py"
    assert tools["git_diff"].summarize_input({}) == "staged and unstaged"
    assert tools["git_diff"].summarize_input({"against": "main", "path": "src/a.py"}) == "against main src/a.py"


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=10), inner, max_size=3),
    max_leaves=8,
)
inputs = st.dictionaries(
    st.sampled_from([
        "path", "start_line", "end_line", "project", "filter", "title", "content", "format", "pattern", "glob",
        "literal", "context", "staged", "against", "other",
    ]),
    json_values,
    max_size=4,
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(input=inputs)
def test_run_never_raises(tmp_path_factory, input):
    # A folder with no toolchain, so build and test never start a process here.
    repo = tmp_path_factory.getbasetemp() / "plain-repo"
    if not repo.exists():
        git_repo(repo)
        (repo / "a.txt").write_text("hello\n")
    for tool in developer_tools():
        if tool.name == "git_status":
            continue  # takes no input; covered by its own tests
        result = tool.run(input, ctx_for(repo))
        assert isinstance(result, ToolResult)
        assert isinstance(result.text, str) and result.text
        # An answer from the catch-all is a crash the tool should have turned into a sentence.
        assert not result.crashed, result.text
        assert isinstance(tool.summarize_input(input), str)


def test_a_crash_is_told_apart_from_a_bad_input(monkeypatch):
    tool = ShowOnScreenTool()
    bad = tool.run({"title": "x"}, ctx_for(None))
    assert bad.is_error and not bad.crashed
    monkeypatch.setattr(ShowOnScreenTool, "_run", lambda self, input: 1 / 0)
    crashed = tool.run({"title": "x", "content": "y"}, ctx_for(None))
    assert crashed.is_error and crashed.crashed
    assert crashed.text == "Error: show_on_screen failed unexpectedly (ZeroDivisionError: division by zero)."


def test_the_registry_marks_a_tool_that_escapes_its_own_guard():
    class Escapes:
        name = "escapes"

        def definition(self) -> dict:
            return {"name": self.name}

        def summarize_input(self, input: dict) -> str:
            return ""

        def run(self, input: dict, ctx) -> ToolResult:
            raise RuntimeError("no guard")

    registry = ToolRegistry([Escapes()])
    result = registry.run("escapes", {}, ctx_for(None))
    assert result.is_error and result.crashed and result.summary == "failed: RuntimeError"
    assert not registry.run("nothing", {}, ctx_for(None)).crashed


def test_show_on_screen():
    result = ShowOnScreenTool().run({"title": "Errors", "content": "line 1\nline 2\n", "format": "diff"}, ctx_for(None))
    assert not result.is_error
    assert result.screen == ("Errors", "line 1\nline 2\n", "diff")
    assert result.text == "Shown on screen: 'Errors' (2 lines, diff)."
    default = ShowOnScreenTool().run({"title": "Plan", "content": "# Plan"}, ctx_for(None))
    assert default.screen == ("Plan", "# Plan", "markdown")
    bad = ShowOnScreenTool().run({"title": "x", "content": "y", "format": "html"}, ctx_for(None))
    assert bad.is_error and bad.screen is None
    assert bad.text == "Error: format must be one of markdown, text, diff, not 'html'."
    assert ShowOnScreenTool().run({"title": "x"}, ctx_for(None)).text == "Error: content must be a string."


def test_screen_content_is_masked_too():
    key = "AKIAIOSFODNN7Q4W2ZLM"
    result = ShowOnScreenTool().run({"title": "Config", "content": f"id = {key}\n", "format": "text"}, ctx_for(None))
    assert key not in result.screen[1]
    assert "Note: 1 credential-shaped string was masked (AWS access key ID, screen line 1)." in result.text


def test_masking_is_not_applied_twice():
    once = mask_result(ToolResult(text='Password="hunter2-Long-1"', log='Password="hunter2-Long-1"'))
    twice = mask_result(once)
    assert once.text.startswith('Password="[masked: password]"')
    assert twice.text == once.text
    assert twice.log == once.log
    assert once.text.count("Note:") == 1


def test_a_key_inside_a_marker_look_alike_is_still_masked():
    key = "AKIA" + "IOSFODNN7Q4W2ZLM"
    result = mask_result(ToolResult(text=f"cached = [masked: {key}]"))
    assert key not in result.text
    assert "(AWS access key ID, result line 1)" in result.text
