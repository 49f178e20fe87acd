"""show_on_screen: the way a voice agent hands over anything too long to say out loud."""

from __future__ import annotations

from typing import Any

from agent.settings.choices import SCREEN_FORMATS, as_choice
from agent.tools.base import ToolContext, ToolInputError, ToolResult, optional_str
from agent.tools.guard import guarded

# The pane scrolls, but a runaway payload would still cost the model output tokens and the
# UI its memory; a limit far above any readable page is enough.
MAX_CONTENT_CHARS = 200_000


class ShowOnScreenTool:
    name = "show_on_screen"

    def definition(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": (
                "Show what is too long or detailed to speak (code, errors, listings, diffs, "
                "tables, plans) on the screen pane beside the conversation, in place of what it showed."
            ),
            "input_schema": {
                "type": "object",
                "properties": {
                    "title": {"type": "string", "description": "A short heading."},
                    "content": {"type": "string"},
                    "format": {
                        "type": "string",
                        "enum": list(SCREEN_FORMATS),
                        "description": "markdown (default), text (monospaced) or diff (unified, coloured).",
                    },
                },
                "required": ["title", "content"],
            },
        }

    def summarize_input(self, input: dict[str, Any]) -> str:
        title = input.get("title") if isinstance(input, dict) else None
        return str(title)[:60] if title else "screen"

    def run(self, input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        return guarded(self.name, lambda: self._run(input), ctx.cancel)

    def _run(self, input: dict[str, Any]) -> ToolResult:
        if not isinstance(input, dict):
            raise ToolInputError("Error: the input must be an object with title and content.")
        title = optional_str(input, "title") or "Untitled"
        content = input.get("content")
        if not isinstance(content, str):
            raise ToolInputError("Error: content must be a string.")
        word = optional_str(input, "format") or SCREEN_FORMATS[0]
        fmt = as_choice(word, SCREEN_FORMATS)
        if fmt is None:
            raise ToolInputError(f"Error: format must be one of {', '.join(SCREEN_FORMATS)}, not {word!r}.")
        cut = ""
        if len(content) > MAX_CONTENT_CHARS:
            content = content[:MAX_CONTENT_CHARS]
            cut = f" It was cut to the first {MAX_CONTENT_CHARS:,} characters."
        lines = content.count("\n") + (1 if content and not content.endswith("\n") else 0)
        return ToolResult(
            text=f"Shown on screen: {title!r} ({lines:,} line{'s' if lines != 1 else ''}, {fmt}).{cut}",
            summary=f"{title[:40]} on screen",
            screen=(title, content, fmt),
        )
