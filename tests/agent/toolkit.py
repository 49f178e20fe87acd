"""Small real tools for loop tests: they keep the Tool contract and do real work."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from agent.tools.base import ToolContext, ToolResult


class EchoTool:
    name = "echo"

    def definition(self) -> dict:
        return {
            "name": "echo",
            "description": "Repeat the text.",
            "input_schema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
        }

    def summarize_input(self, input: dict) -> str:
        return str(input.get("text", ""))[:20]

    def run(self, input: dict, ctx: ToolContext) -> ToolResult:
        return ToolResult(text=f"echo: {input.get('text')}", summary="echoed")


class CrashTool:
    """Breaks its promise never to raise, as a buggy tool would."""

    name = "crash"

    def definition(self) -> dict:
        return {"name": "crash", "description": "Fails.", "input_schema": {"type": "object", "properties": {}}}

    def summarize_input(self, input: dict) -> str:
        return ""

    def run(self, input: dict, ctx: ToolContext) -> ToolResult:
        raise RuntimeError("disk on fire")


class ScreenTool:
    name = "show"

    def definition(self) -> dict:
        return {"name": "show", "description": "Show.", "input_schema": {"type": "object", "properties": {}}}

    def summarize_input(self, input: dict) -> str:
        return "a table"

    def run(self, input: dict, ctx: ToolContext) -> ToolResult:
        return ToolResult(text="Shown.", summary="shown", screen=("Errors", "| a | b |", "markdown"))


class SleepTool:
    """Starts a real process tree (a parent and a child) and waits for it, cancellably."""

    name = "sleep"

    def __init__(self, pid_file: Path) -> None:
        self.pid_file = pid_file

    def definition(self) -> dict:
        return {"name": "sleep", "description": "Sleep.", "input_schema": {"type": "object", "properties": {}}}

    def summarize_input(self, input: dict) -> str:
        return "a long time"

    def run(self, input: dict, ctx: ToolContext) -> ToolResult:
        child = f"import subprocess,sys,time; p=subprocess.Popen([sys.executable,'-c','import time; time.sleep(60)']); open({str(self.pid_file)!r},'w').write(str(p.pid)); time.sleep(60)"
        proc = subprocess.Popen([sys.executable, "-c", child], start_new_session=True)
        ctx.cancel.register_process(proc)
        try:
            began = time.monotonic()
            while proc.poll() is None and time.monotonic() - began < 60:
                time.sleep(0.02)
        finally:
            ctx.cancel.unregister_process(proc)
        if ctx.cancel.cancelled:
            return ToolResult(text="Cancelled.", is_error=True, summary="cancelled")
        return ToolResult(text="Slept.", summary="slept")
