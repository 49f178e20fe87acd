"""The developer tools the agent can call: git, build, test, reading and searching files, the screen pane, and a command the user approves."""

from __future__ import annotations

from agent.tools.base import Tool, ToolContext, ToolResult
from agent.tools.toolchain import user_environment

# The app imports this package at start-up: record how devagent was launched before
# anything can change the environment.
user_environment.capture()

__all__ = ["Tool", "ToolContext", "ToolResult", "developer_tools"]


def developer_tools() -> list[Tool]:
    """The tools in a fixed order: the order is part of the cached prompt prefix."""
    # Imported here so that `import agent.tools` stays cheap for the TUI's start-up.
    from agent.tools.build import BuildTool, RunTestsTool
    from agent.tools.command import RunCommandTool
    from agent.tools.files import ReadFileTool
    from agent.tools.find_files import FindFilesTool
    from agent.tools.git import GitStatusTool
    from agent.tools.git_diff import GitDiffTool
    from agent.tools.git_log import GitLogTool
    from agent.tools.screen import ShowOnScreenTool
    from agent.tools.search import SearchTool

    return [
        GitStatusTool(), GitDiffTool(), BuildTool(), RunTestsTool(), ReadFileTool(), SearchTool(), FindFilesTool(),
        ShowOnScreenTool(), RunCommandTool(), GitLogTool(),
    ]
