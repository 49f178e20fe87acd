"""The fixed tool list of one session, and the dispatch of a tool_use block to its tool.

The list is made once per session and never changes: it is the start of the cached prompt
prefix, and a different list would be a different prefix.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agent.settings.choices import MEMORY_TOOL_MODES, CodeWrites, MemoryMode, MemoryWrites
from agent.tools.base import Tool, ToolContext, ToolResult

if TYPE_CHECKING:
    from memory.seam import Store


class ToolRegistry:
    def __init__(self, tools: list[Tool]) -> None:
        self.tools = list(tools)
        self._by_name = {t.name: t for t in self.tools}

    @classmethod
    def for_mode(
        cls, mode: MemoryMode, store: Store | None = None, developer: list[Tool] | None = None, *, memory_writes: MemoryWrites = "auto",
        code_writes: CodeWrites = "off",
        user_memory_writes: MemoryWrites = "review",
    ) -> ToolRegistry:
        """developer_tools() (or `developer`, for tests and the evaluation), the text editor
        unless code writes are off, then the memory tool when the mode has one."""
        if developer is None:
            from agent.tools import developer_tools

            developer = developer_tools()
        tools: list[Tool] = list(developer)
        if code_writes != "off":
            from agent.tools.text_editor import TextEditorTool

            editor = TextEditorTool(code_writes)
            if store is not None and hasattr(store, "evidence"):
                from functools import partial

                from agent.tools.editor.cited_memories import cited_note

                editor.after_apply.append(partial(cited_note, store))
            for tool in tools:
                if hasattr(tool, "after_read"):
                    # a file read there counts as seen: an edit after it is checked against it
                    tool.after_read = editor.saw
            tools.append(editor)
        if mode in MEMORY_TOOL_MODES and store is not None:
            from agent.tools.memory_tool import MemoryTool

            tools.append(MemoryTool(store, memory_writes, user_writes=user_memory_writes))
        return cls(tools)

    @property
    def names(self) -> list[str]:
        return [t.name for t in self.tools]

    def get(self, name: str) -> Tool | None:
        return self._by_name.get(name)

    def definitions(self) -> list[dict[str, Any]]:
        return [t.definition() for t in self.tools]

    def summarize(self, name: str, input: Any) -> str:
        tool = self._by_name.get(name)
        if tool is None or not isinstance(input, dict):
            return ""
        try:
            return tool.summarize_input(input)
        except Exception:
            return ""

    def run(self, name: str, input: Any, ctx: ToolContext) -> ToolResult:
        """Never raises: an unknown tool, a bad input or a crash comes back as error text."""
        tool = self._by_name.get(name)
        if tool is None:
            known = ", ".join(self.names)
            return ToolResult(text=f"Error: there is no tool named {name!r}. The tools are: {known}.", is_error=True, summary="unknown tool")
        if not isinstance(input, dict):
            return ToolResult(text=f"Error: the input of {name} must be a JSON object.", is_error=True, summary="bad input")
        try:
            result = tool.run(input, ctx)
        except Exception as err:
            return ToolResult(
                text=f"Error: {name} failed: {type(err).__name__}: {err}",
                is_error=True,
                summary=f"failed: {type(err).__name__}",
                crashed=True,
            )
        if not isinstance(result, ToolResult):
            return ToolResult(text=f"Error: {name} returned nothing usable.", is_error=True, summary="no result")
        return result
