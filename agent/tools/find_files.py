"""find_files: the repository's files whose path matches a glob, as ripgrep walks them
(.gitignore followed, nothing under .git, node_modules or a virtual environment)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from agent.tools import ripgrep
from agent.tools.base import ToolContext, ToolInputError, ToolResult, required_str
from agent.tools.guard import guarded
from agent.tools.names import shown_name
from agent.tools.search import SEARCH_TIMEOUT, glob_arguments, path_order, rg_or_refuse, search_scope

MAX_FILES_LISTED = 200


class FindFilesTool:
    name = "find_files"

    def definition(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": (
                "The files whose path matches a glob: test_*.py matches a name in any folder, "
                f"src/**/*.rs a path. At most {MAX_FILES_LISTED}, in path order."
            ),
            "input_schema": {
                "type": "object",
                "properties": {
                    "glob": {"type": "string"},
                    "path": {"type": "string", "description": "A folder to look in."},
                },
                "required": ["glob"],
            },
        }

    def summarize_input(self, input: dict[str, Any]) -> str:
        if not isinstance(input, dict):
            return "find_files"
        where = f" in {str(input['path'])[:40]}" if input.get("path") else ""
        return str(input.get("glob", ""))[:60] + where

    def run(self, input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        return guarded(self.name, lambda: self._run(input, ctx), ctx.cancel)

    def _run(self, input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        if not isinstance(input, dict):
            raise ToolInputError("Error: the input must be an object with a glob.")
        required_str(input, "glob")
        root = Path(ctx.repo).resolve()
        if not root.is_dir():
            return ToolResult(text=f"Error: the repository folder {ctx.repo} does not exist.", is_error=True, summary="no folder")
        where_args, scope_name = search_scope(input, root)
        globs, glob_name = glob_arguments(input)
        # --null: a name may hold a newline, and each would read as two files
        argv = ripgrep.command(rg_or_refuse(), "--files", "--null", ripgrep.base_arguments(), globs, ripgrep.skip_globs(), where_args)
        run = ripgrep.Run(argv, root, SEARCH_TIMEOUT, ctx.cancel)
        paths = [os.fsdecode(name) for name in b"".join(run.lines()).split(b"\0") if name]
        if run.cancelled:
            return ToolResult(text="The file search was cancelled.", is_error=True, summary="cancelled")
        if run.timed_out:
            return ToolResult(text=f"The file search took longer than {SEARCH_TIMEOUT:.0f} seconds and was stopped.", is_error=True, summary="timed out")
        if run.returncode == 2 and not paths:
            message = ripgrep.rg_error(run.stderr) or "ripgrep failed"
            return ToolResult(text=f"Error: the file search failed: {message}", is_error=True, summary="failed")
        where = f" in {scope_name}" if scope_name else ""
        if not paths:
            return ToolResult(text=f"No files match {glob_name}{where}.", summary="no files", outside_text=False)
        paths = [shown_name(p) for p in sorted(paths, key=path_order)]
        listed = paths[:MAX_FILES_LISTED]
        count = f"{len(paths):,} file{'s' if len(paths) != 1 else ''}"
        text = f"{count} match {glob_name}{where}:\n" + "\n".join(listed)
        if len(paths) > MAX_FILES_LISTED:
            text += f"\n... and {len(paths) - MAX_FILES_LISTED:,} more not listed: narrow the glob or give a path."
        return ToolResult(text=text, summary=count)


