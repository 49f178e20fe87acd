"""The Messages API's rules on a request's shape, which hold for every model: each
`tool_use` answered at the start of the next message and no `tool_result` for nothing, no
empty message or text block, no text block of whitespace alone, at most four `cache_control`
breakpoints, no lone surrogate, and the text editor tool as its page defines it. The double answers a 400 in the API's
words when one is broken (the rules that depend on the model are tests/double/rules.py).
"""

from __future__ import annotations

from typing import Any

MAX_CACHE_BREAKPOINTS = 4


TEXT_EDITOR_FIELDS = {"type", "name", "cache_control", "max_characters", "allowed_callers", "defer_loading",
                      "input_examples", "strict"}


def text_editor_problem(tools: Any) -> str | None:
    """The text editor tool as the API takes it, or what it says about one it refuses.

    https://platform.claude.com/docs/en/agents-and-tools/tool-use/text-editor-tool: the
    `text_editor_20250728` type is named `str_replace_based_edit_tool`; its only setting is
    `max_characters`, a positive whole number (the SDK's ToolTextEditor20250728Param lists
    the fields a tool definition may carry).
    """
    for i, tool in enumerate(tools if isinstance(tools, list) else []):
        if not isinstance(tool, dict) or tool.get("type") != "text_editor_20250728":
            continue
        if tool.get("name") != "str_replace_based_edit_tool":
            return f"tools.{i}.text_editor_20250728.name: Input should be 'str_replace_based_edit_tool'"
        extra = sorted(set(tool) - TEXT_EDITOR_FIELDS)
        if extra:
            return f"tools.{i}.text_editor_20250728.{extra[0]}: Extra inputs are not permitted"
        limit = tool.get("max_characters")
        if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
            return f"tools.{i}.text_editor_20250728.max_characters: Input should be greater than or equal to 1"
    return None


def request_problem(body: Any) -> str | None:
    """What the API would refuse in this request, in its words, or None."""
    if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
        return "messages: Field required"
    editor = text_editor_problem(body.get("tools"))
    if editor:
        return editor
    if _has_lone_surrogate(body):
        # A `\\ud800` escape parses in Python but not at the API.
        return "The request body is not valid JSON: no low surrogate in string"
    marked = sum(
        1
        for part in (body.get("tools") or [], body.get("system") if isinstance(body.get("system"), list) else [])
        for block in part
        if isinstance(block, dict) and "cache_control" in block
    )
    messages = body["messages"]
    for i, message in enumerate(messages):
        content = message.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        if not isinstance(blocks, list):
            return f"messages.{i}.content: Input should be a valid list"
        last = i == len(messages) - 1
        if not blocks and not (last and message.get("role") == "assistant"):
            return f"messages.{i}: all messages must have non-empty content except for the optional final assistant message"
        for j, block in enumerate(blocks):
            if isinstance(block, dict) and "cache_control" in block:
                marked += 1
            if isinstance(block, dict) and block.get("type") == "text" and not block.get("text"):
                return f"messages.{i}.content.{j}.text: text content blocks must be non-empty"
            if isinstance(block, dict) and block.get("type") == "text" and not str(block.get("text")).strip():
                # A reply of "\n\n" sent back: the API's words for it ("Handling stop reasons",
                # empty responses; the Messages API reference on content blocks).
                return "messages: text content blocks must contain non-whitespace text"
        asked = [b["id"] for b in blocks if isinstance(b, dict) and b.get("type") == "tool_use"]
        answered = [b.get("tool_use_id") for b in _leading_results(messages[i + 1])] if not last else []
        missing = [t for t in asked if t not in answered]
        if message.get("role") == "assistant" and missing and not last:
            return (
                f"messages.{i + 1}: `tool_use` ids were found without `tool_result` blocks immediately after: "
                f"{', '.join(missing)}. Each `tool_use` block must have a corresponding `tool_result` block in the next message."
            )
        if message.get("role") == "user":
            previous = messages[i - 1].get("content") if i > 0 else []
            offered = [b.get("id") for b in previous if isinstance(b, dict) and b.get("type") == "tool_use"] if isinstance(previous, list) else []
            for j, block in enumerate(blocks):
                if isinstance(block, dict) and block.get("type") == "tool_result" and block.get("tool_use_id") not in offered:
                    return (
                        f"messages.{i}.content.{j}: unexpected `tool_use_id` found in `tool_result` blocks: "
                        f"{block.get('tool_use_id')}. Each `tool_result` block must have a corresponding `tool_use` block in the previous message."
                    )
    if marked > MAX_CACHE_BREAKPOINTS:
        return f"A maximum of {MAX_CACHE_BREAKPOINTS} blocks with cache_control may be provided. Found {marked}."
    return None


def _has_lone_surrogate(value: Any) -> bool:
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return True
        return False
    if isinstance(value, dict):
        return any(_has_lone_surrogate(k) or _has_lone_surrogate(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_has_lone_surrogate(v) for v in value)
    return False


def _leading_results(message: dict) -> list[dict]:
    """The tool_result blocks at the start of a message, where the API looks for them."""
    content = message.get("content")
    results = []
    for block in content if isinstance(content, list) else []:
        if not (isinstance(block, dict) and block.get("type") == "tool_result"):
            break
        results.append(block)
    return results
