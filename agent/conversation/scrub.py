"""Taking a memory the user deleted or rewrote out of the conversation's memory tool calls.

The model's earlier memory tool calls hold what it wrote (`create`, `str_replace`, ...) and
their results what it read (`view`). When the user deletes or edits that memory, its old
text is replaced there, in the running conversation and in one resumed from its transcript,
so that it is never sent again. A saved transcript keeps the messages as they were said, with
a record of each scrub after them (agent.conversation.transcripts), and the memory the model knew at the
end of each turn as fingerprints, so that a resumed session can tell what changed on disk
since, even while no session ran.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from typing import Any

# What stands in a past memory tool call for the text of a memory the user deleted since.
GONE = "(a memory the user deleted since: its text is not sent again)"
# ... and for the old text of one the user rewrote since.
REWRITTEN = "(a memory the user changed since: its old text is not sent again; view it for what it says now)"
_TEXT_FIELDS = ("file_text", "old_str", "new_str", "insert_text")


def _about(given: dict[str, Any], paths: Mapping[str, str]) -> str | None:
    """What replaces the text of a memory call that reads or writes one of `paths` (not its
    delete or rename); None for any other call."""
    path = given.get("path")
    if not isinstance(path, str) or given.get("command") in ("delete", "rename"):
        return None
    return paths.get(path.rstrip("/"))


def scrubbed(messages: list[dict[str, Any]], deleted: Iterable[str], edited: Iterable[str] = ()) -> list[dict[str, Any]]:
    """`messages` without the text of the `deleted` and `edited` memories: in the model's
    memory tool calls on them (what it wrote) and in their results (what it read). Other
    messages are the same objects."""
    paths = {p.rstrip("/"): REWRITTEN for p in edited}
    paths.update({p.rstrip("/"): GONE for p in deleted})
    if not paths:
        return messages
    calls: dict[str, str] = {}
    out: list[dict[str, Any]] = []
    for message in messages:
        content = message.get("content")
        if not isinstance(content, list):
            out.append(message)
            continue
        blocks: list[Any] = []
        changed = False
        for block in content:
            kind = block.get("type") if isinstance(block, dict) else None
            given = block.get("input") if kind == "tool_use" else None
            stand_in = _about(given, paths) if isinstance(given, dict) and block.get("name") == "memory" else None
            if isinstance(given, dict) and stand_in is not None:
                calls[str(block.get("id"))] = stand_in
                fields = {k: stand_in for k in _TEXT_FIELDS if isinstance(given.get(k), str) and given.get(k) not in (GONE, REWRITTEN)}
                if fields:
                    block = {**block, "input": {**given, **fields}}
                    changed = True
            elif kind == "tool_result" and str(block.get("tool_use_id")) in calls and block.get("content") not in (GONE, REWRITTEN):
                block = {**block, "content": calls[str(block.get("tool_use_id"))]}
                changed = True
            blocks.append(block)
        out.append({**message, "content": blocks} if changed else message)
    return out


def fingerprints(files: Mapping[str, str | None]) -> dict[str, str]:
    """Each memory's text as a short hash, for the transcript: enough to tell a file changed,
    nothing of what it says. A file known only by name has an empty one."""
    return {path: hashlib.sha256(text.encode("utf-8")).hexdigest()[:24] if text is not None else ""
            for path, text in files.items()}


def changed_since(known: Mapping[str, str], now: Mapping[str, str | None]) -> tuple[list[str], list[str]]:
    """(deleted, edited): the memories of `known` (fingerprints) that are gone from `now` or
    say something else there."""
    current = fingerprints(now)
    deleted = sorted(set(known) - set(current))
    edited = sorted(p for p in set(known) & set(current) if known[p] and current[p] and known[p] != current[p])
    return deleted, edited


def written_paths(messages: Iterable[dict[str, Any]]) -> set[str]:
    """The memories the model's calls in `messages` read or wrote and did not delete or move
    away themselves: what an older transcript, saved without fingerprints, shows it knew."""
    known: set[str] = set()
    for message in messages:
        content = message.get("content")
        if message.get("role") != "assistant" or not isinstance(content, list):
            continue
        for block in content:
            given = block.get("input") if isinstance(block, dict) and block.get("type") == "tool_use" else None
            if not isinstance(given, dict) or block.get("name") != "memory":
                continue
            path, command = given.get("path"), given.get("command")
            if command == "rename":
                old, new = given.get("old_path"), given.get("new_path")
                if isinstance(old, str):
                    known.discard(old.rstrip("/"))
                if isinstance(new, str):
                    known.add(new.rstrip("/"))
            elif isinstance(path, str) and command == "delete":
                known = {p for p in known if p != path.rstrip("/") and not p.startswith(path.rstrip("/") + "/")}
            elif isinstance(path, str):
                known.add(path.rstrip("/"))
    return known
