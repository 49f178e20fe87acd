"""Turns a live session's events into a TurnRecord (turn_records).

Events carry what the user saw (text, tool names, screens) but not a tool's input or the
text the model got back, so after each turn the record is completed from the session's
message list, matched by tool_use id. What the model saw is what the scoring judges.
"""

from __future__ import annotations

from typing import Any

from agent.eval.turn_records import Shown, ToolRun, TurnRecord
from agent.events import AgentError, Event, ShowOnScreen, TextDelta, ToolFinished, ToolStarted, TurnFinished


class TurnRecorder:
    """A sink for one turn at a time; `records` grows by one TurnRecord per finished turn."""

    def __init__(self) -> None:
        self.records: list[TurnRecord] = []
        self.current: TurnRecord | None = None
        self._runs: dict[str, ToolRun] = {}

    def begin(self, question: str) -> None:
        self.current = TurnRecord(question)
        self._runs = {}

    def __call__(self, event: Event) -> None:
        turn = self.current
        if turn is None:
            return
        match event:
            case TextDelta(text=text):
                turn.add_text(text)
            case ToolStarted():
                run = ToolRun(name=event.name, tool_id=event.tool_id, result=event.summary)
                self._runs[event.tool_id] = run
                turn.items.append(run)
            case ToolFinished():
                started = self._runs.get(event.tool_id)
                if started is not None:
                    started.is_error = event.is_error
                    started.result = event.log or event.summary
            case ShowOnScreen():
                turn.items.append(Shown(event.title, event.content))
            case AgentError(message=message):
                turn.error = message if turn.error is None else f"{turn.error} {message}"
            case TurnFinished():
                turn.usage = event.usage.to_dict()

    def finish(self, messages: list[dict[str, Any]]) -> TurnRecord:
        """Fills tool inputs and results from the conversation, then files the turn."""
        turn = self.current
        assert turn is not None, "finish() without begin()"
        inputs, results = _tool_blocks(messages)
        for run in turn.tools():
            if run.tool_id in inputs:
                run.input = inputs[run.tool_id]
            if run.tool_id in results:
                run.result = results[run.tool_id]
        self.records.append(turn)
        self.current = None
        return turn


def _tool_blocks(messages: list[dict[str, Any]]) -> tuple[dict[str, dict[str, Any]], dict[str, str]]:
    inputs: dict[str, dict[str, Any]] = {}
    results: dict[str, str] = {}
    for message in messages:
        content = message.get("content")
        if not isinstance(content, list):
            continue
        for block in content:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "tool_use" and isinstance(block.get("input"), dict):
                inputs[block["id"]] = block["input"]
            elif block.get("type") == "tool_result":
                results[block.get("tool_use_id", "")] = _result_text(block.get("content"))
    return inputs, results


def _result_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(b.get("text", "") for b in content if isinstance(b, dict))
    return ""
