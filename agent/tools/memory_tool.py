"""Claude's memory tool (memory_20250818), carried out by the repository's MemoryStore.

The definition has no schema of ours: the API knows the tool and its six commands. All the
checking (paths, caps, secrets, the lock) is the store's; this adapts its answer to a
ToolResult, words the one-line summary the app shows, and masks credentials in it.
"""

from __future__ import annotations

from typing import Any

from agent.tools.base import ToolContext, ToolResult
from agent.tools.masking import ScanCancelled, mask_result, withheld


class MemoryTool:
    name = "memory"

    def __init__(self, store: Any) -> None:
        self.store = store

    def definition(self) -> dict[str, Any]:
        return {"type": "memory_20250818", "name": "memory"}

    def summarize_input(self, input: dict[str, Any]) -> str:
        command = input.get("command")
        if not isinstance(command, str):
            return "?"
        if command == "rename":
            return f"rename {input.get('old_path', '?')} -> {input.get('new_path', '?')}"
        path = input.get("path")
        return f"{command} {path}" if isinstance(path, str) else command

    def run(self, input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        try:
            text, is_error = self.store.run(input)
        except Exception as err:  # the store promises not to raise; a turn must survive if it does
            text, is_error = f"Error: the memory command failed: {err}", True
        command = input.get("command") if isinstance(input.get("command"), str) else "memory"
        if is_error:
            summary = text.splitlines()[0][:80] if text else "failed"
        elif command == "view":
            summary = f"{len(text.splitlines())} lines"
        else:
            summary = text.splitlines()[0][:80] if text else "done"
        # The store refuses credentials in writes, but a file edited by hand can hold one:
        # what `view` shows goes through the same mask as every tool result.
        try:
            return mask_result(ToolResult(text=text, is_error=is_error, summary=summary), getattr(ctx, "cancel", None))
        except ScanCancelled:
            return withheld(self.name)
        except Exception as exc:
            return ToolResult(
                text=f"Error: memory output withheld: the secret filter is unavailable ({type(exc).__name__}).",
                is_error=True,
                summary="output withheld",
            )
