"""What a session said and did, turn by turn, in the order it happened.

The scoring rules read these records rather than live events, so they can be tested on
transcripts written by hand, and every run's raw record can go into the JSON report.
Order matters: "said the build is red before building" is a question about sequence.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Said:
    text: str


@dataclass
class Shown:
    title: str
    content: str


@dataclass
class ToolRun:
    name: str
    input: dict[str, Any] = field(default_factory=dict)
    result: str = ""
    is_error: bool = False
    tool_id: str = ""


Item = Said | Shown | ToolRun


@dataclass
class TurnRecord:
    question: str
    items: list[Item] = field(default_factory=list)
    usage: dict[str, Any] = field(default_factory=dict)
    error: str | None = None

    def answer(self) -> str:
        """Everything the agent said in this turn: what a listener heard."""
        return "".join(i.text for i in self.items if isinstance(i, Said))

    def shown(self) -> str:
        return "\n".join(f"{i.title}\n{i.content}" for i in self.items if isinstance(i, Shown))

    def said_or_shown(self) -> str:
        return self.answer() + "\n" + self.shown()

    def tools(self, *names: str) -> list[ToolRun]:
        return [i for i in self.items if isinstance(i, ToolRun) and (not names or i.name in names)]

    def add_text(self, text: str) -> None:
        if self.items and isinstance(self.items[-1], Said):
            self.items[-1].text += text
        else:
            self.items.append(Said(text))

    def to_json(self) -> dict[str, Any]:
        return {
            "question": self.question,
            "items": [_item_json(i) for i in self.items],
            "usage": self.usage,
            "error": self.error,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TurnRecord:
        return cls(
            question=data["question"],
            items=[_item_from_json(i) for i in data.get("items", [])],
            usage=dict(data.get("usage") or {}),
            error=data.get("error"),
        )


def _item_json(item: Item) -> dict[str, Any]:
    if isinstance(item, Said):
        return {"kind": "said", "text": item.text}
    if isinstance(item, Shown):
        return {"kind": "shown", "title": item.title, "content": item.content}
    return {
        "kind": "tool",
        "name": item.name,
        "input": item.input,
        "result": item.result,
        "is_error": item.is_error,
        "tool_id": item.tool_id,
    }


def _item_from_json(data: dict[str, Any]) -> Item:
    kind = data["kind"]
    if kind == "said":
        return Said(data["text"])
    if kind == "shown":
        return Shown(data.get("title", ""), data.get("content", ""))
    if kind == "tool":
        return ToolRun(
            name=data["name"],
            input=dict(data.get("input") or {}),
            result=data.get("result", ""),
            is_error=bool(data.get("is_error")),
            tool_id=data.get("tool_id", ""),
        )
    raise ValueError(f"unknown transcript item kind {kind!r}")


def turns_to_json(turns: list[TurnRecord]) -> list[dict[str, Any]]:
    return [t.to_json() for t in turns]


def turns_from_json(data: list[dict[str, Any]]) -> list[TurnRecord]:
    return [TurnRecord.from_json(t) for t in data]
