"""One streamed call: open it so that a cancel can stop it anywhere, read its events into a
reply, add what it cost to the turn, and turn every fault into a TurnCancelled or a
TurnFailed (agent.loop.faults).

`StreamAccumulator` takes one event at a time and knows nothing of sockets or turns, so it
can be fed recorded events as well as live ones.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from agent.cancel import Cancellation
from agent.conversation import utf8
from agent.events import Usage
from agent.loop import claude
from agent.loop.faults import StreamBroken, TurnCancelled, TurnFailed, stream_fault
from agent.loop.silence import SilenceWatch
from agent.loop.turn import TurnState
from agent.loop.wire import Ear, ear_of
from agent.settings import claude_models

USAGE_FIELDS = ("input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")


@dataclass
class Reply:
    """A call's reply as the history will hold it."""

    content: list[dict[str, Any]]
    stop_reason: str | None
    # tool_use id -> the raw input that was not JSON (the tool does not run)
    bad_inputs: dict[str, str] = field(default_factory=dict)
    # tool_use id -> how many characters of its input were not valid Unicode (replaced)
    replaced_inputs: dict[str, int] = field(default_factory=dict)
    # The call's raw token counts and the API's context_management.applied_edits, which
    # say how full the context was and what was cleared from it (agent.conversation.window).
    raw_usage: dict[str, int] = field(default_factory=dict)
    applied_edits: list[Any] | None = None
    # What the API said about a refusal (`stop_details`: category, explanation), if it did.
    stop_details: dict[str, Any] | None = None

    @property
    def compaction(self) -> dict[str, Any] | None:
        """The compaction block this reply begins with, when the API compacted the context."""
        return next((b for b in self.content if b.get("type") == "compaction" and b.get("content")), None)

    @property
    def tool_uses(self) -> list[dict[str, Any]]:
        return [b for b in self.content if b.get("type") == "tool_use"]


class _BadInput:
    def __init__(self, raw: str) -> None:
        self.raw = raw


class _Counts:
    def __init__(self, values: dict[str, Any]) -> None:
        self.__dict__.update(values)


class StreamAccumulator:
    """A reply built from its stream events: blocks, tool inputs from partial JSON, usage.

    `on_text(text, new_block)` hears each piece of visible text as it arrives, `on_thinking()`
    each thinking block that starts, `on_tool_input(id, name, so_far)` a tool's input as it
    starts and grows (its JSON text so far), and once more with None when it is whole;
    `on_progress(text)`, when given, each thinking block's text once the block is whole (the
    model's progress notes, on a request whose thinking returns them: agent.settings.claude_models). `feed`
    raises StreamBroken for an event that does not fit the stream so far, and lets a
    malformed event's AttributeError or KeyError through.
    """

    def __init__(
        self,
        on_text: Callable[[str, bool], None] = lambda text, new_block: None,
        on_thinking: Callable[[], None] = lambda: None,
        on_tool_input: Callable[[str, str, str | None], None] = lambda id, name, so_far: None,
        on_progress: Callable[[str], None] | None = None,
    ) -> None:
        self.on_text = on_text
        self.on_progress = on_progress
        self.on_thinking = on_thinking
        self.on_tool_input = on_tool_input
        self.blocks: dict[int, dict[str, Any]] = {}
        self._json: dict[int, list[str]] = {}
        self._usage: dict[str, int] = {}
        self.stop_reason: str | None = None
        self.finished = False
        self.first_text_at: float | None = None
        # The last message_delta event as it came, for what it carries beyond the stop
        # reason and the usage counts.
        self.message_delta: Any = None

    def feed(self, event: Any) -> None:
        kind = getattr(event, "type", None)
        if kind == "message_start":
            self._usage.update(_usage_dict(event.message.usage))
        elif kind == "content_block_start":
            self._start_block(event.index, event.content_block.to_dict())
        elif kind == "content_block_delta":
            self._delta(event.index, event.delta)
        elif kind == "content_block_stop":
            block = self.blocks.get(event.index)
            if block is not None and block.get("type") == "tool_use":
                block["input"] = _parse_input("".join(self._json.get(event.index, [])).strip())
                self.on_tool_input(block.get("id", ""), block.get("name", ""), None)
            elif block is not None and block.get("type") == "thinking" and self.on_progress is not None:
                self.on_progress(str(block.get("thinking") or ""))
        elif kind == "message_delta":
            self.message_delta = event
            self.stop_reason = event.delta.stop_reason
            self._usage.update(_usage_dict(event.usage))
        elif kind == "message_stop":
            self.finished = True

    def _start_block(self, index: int, block: dict[str, Any]) -> None:
        self.blocks[index] = block
        if block.get("type") == "tool_use":
            block["input"] = {}
            self.on_tool_input(block.get("id", ""), block.get("name", ""), "")
        if block.get("type") in ("thinking", "redacted_thinking"):
            self.on_thinking()

    def _delta(self, index: int, delta: Any) -> None:
        block = self.blocks.get(index)
        if block is None:
            raise StreamBroken("a delta for a block that never started")
        if delta.type == "text_delta":
            new_block = not block.get("text")
            block["text"] = block.get("text", "") + delta.text
            if self.first_text_at is None:
                self.first_text_at = time.monotonic()
            self.on_text(delta.text, new_block)
        elif delta.type == "input_json_delta":
            pieces = self._json.setdefault(index, [])
            pieces.append(delta.partial_json)
            self.on_tool_input(block.get("id", ""), block.get("name", ""), "".join(pieces))
        elif delta.type == "thinking_delta":
            block["thinking"] = block.get("thinking", "") + delta.thinking
        elif delta.type == "signature_delta":
            block["signature"] = delta.signature
        elif delta.type == "compaction_delta":
            # One delta carries the whole summary (the SDK's accumulator sets, not appends).
            block["content"] = delta.content
            block["encrypted_content"] = delta.encrypted_content

    @property
    def shown(self) -> str:
        """The words of this reply the user has seen so far."""
        return "".join(b.get("text", "") for _, b in sorted(self.blocks.items()) if b.get("type") == "text")

    def usage(self, model: str, started: float) -> Usage:
        """What the call cost so far; `started` is when the turn began, for the first token."""
        if not self._usage:
            # Refused before a reply began (a 429, say): not a call worth counting.
            return Usage()
        first = None if self.first_text_at is None else self.first_text_at - started
        usage = replace(claude.call_usage(model, _Counts(self._usage)), time_to_first_token=first)
        # A compaction is billed but its tokens are not in the top-level counts.
        iterations = getattr(getattr(self.message_delta, "usage", None), "iterations", None) or []
        for spent in (i for i in iterations if getattr(i, "type", "") == "compaction"):
            usage = usage + replace(claude.call_usage(model, spent), api_calls=0)
        return usage

    def reply(self) -> Reply:
        """The finished reply with only the fields a request accepts, all of it valid Unicode.

        Input that is not JSON goes back as {} (a request must stay valid); the tool does not
        run and the model hears why. Input with lone surrogates runs replaced, and says so.
        """
        bad = {b["id"]: b["input"].raw for b in self.blocks.values() if isinstance(b.get("input"), _BadInput)}
        content = [c for c in (_clean_block(self.blocks[i]) for i in sorted(self.blocks)) if c is not None]
        replaced: dict[str, int] = {}
        for block in content:
            if block["type"] == "tool_use":
                block["input"], count = utf8.valid_value(block["input"])
                if count and block["id"] not in bad:
                    replaced[block["id"]] = count
        content = utf8.valid_value(content)[0]
        managed = getattr(self.message_delta, "context_management", None)
        applied = list(managed.applied_edits) if managed is not None else None
        details = getattr(getattr(self.message_delta, "delta", None), "stop_details", None)
        stop_details = details.to_dict() if details is not None and hasattr(details, "to_dict") else None
        return Reply(content, self.stop_reason, bad, replaced, dict(self._usage), applied, stop_details)


def stream_reply(client: Any, params: dict[str, Any], turn: TurnState, model: str) -> Reply:
    """Streams one call, showing its words through `turn` as they come; what the call cost
    goes to `turn.spend` once it ends, however it ended.

    Raises TurnCancelled or TurnFailed (see agent.loop.faults.stream_fault); anything else is a
    bug of ours and goes up as it is.
    """
    cancel = turn.cancel
    arriving = InputArriving(turn)
    progress = turn.progress if claude_models.thinking_is_progress(params.get("thinking")) else None
    acc = StreamAccumulator(on_text=turn.say, on_thinking=turn.thinking, on_tool_input=arriving.grew, on_progress=progress)
    stream = None
    watch: SilenceWatch | None = None
    ear: Ear | None = None

    def remove_hook() -> None:
        return None

    try:
        stream = open_stream(client, params, cancel)
        if stream is None:
            raise TurnCancelled()
        # A stalled read blocks the loop inside the SDK, and closing the response from
        # another thread does not wake it; shutting the socket down does.
        remove_hook = cancel.on_cancel(lambda: abort(stream))
        watch = SilenceWatch(lambda: abort(stream)).start()
        heard = watch.heard
        ear = ear_of(stream)
        if ear is not None:
            # Below the SDK, pings too: a tool input the API buffers is not silence.
            def hear() -> None:
                heard()
                arriving.waited()

            ear.listener = hear
        for event in stream:
            watch.heard()
            if cancel.cancelled:
                break
            acc.feed(event)
        if cancel.cancelled:
            raise TurnCancelled(acc.shown)
        if not acc.finished:
            raise StreamBroken("the stream ended before message_stop")
    except Exception as err:
        if watch is not None and watch.fired and not cancel.cancelled:
            raise TurnFailed(watch.message(), shown=acc.shown, error=err) from err
        fault = stream_fault(err, cancelled=cancel.cancelled, shown=acc.shown)
        if fault is None or fault is err:
            raise
        raise fault from err
    finally:
        turn.spend(acc.usage(model, turn.started))
        remove_hook()
        if ear is not None:
            ear.listener = None
        if watch is not None:
            watch.stop()
        if stream is not None:
            close_quietly(stream)
    return acc.reply()


class InputArriving:
    """Tells the user that a tool's input is on its way, and how far it has come: a file of a
    few hundred lines takes the model a minute to write, and while the API buffers it (no
    fine-grained streaming for the tool) nothing else comes. Said when the input starts, then
    at most every `EVERY` seconds as it grows or as the stream is heard waiting for it."""

    EVERY = 1.0

    def __init__(self, turn: TurnState) -> None:
        self.turn = turn
        self._open: tuple[str, str] | None = None
        self._so_far = ""
        self._began = 0.0
        self._said_at = 0.0

    def grew(self, tool_id: str, name: str, so_far: str | None) -> None:
        if so_far is None:
            self._open = None
            return
        now = time.monotonic()
        if self._open is None or self._open[0] != tool_id:
            self._open, self._began, self._said_at, self._so_far = (tool_id, name), now, 0.0, ""
        if so_far and not self._so_far:
            self._said_at = 0.0  # the first of it (all of it, when the API held it back): said at once
        self._so_far = so_far
        self._say(now)

    def waited(self) -> None:
        if self._open is not None:
            self._say(time.monotonic())

    def _say(self, now: float) -> None:
        if self._said_at and now - self._said_at < self.EVERY:
            return
        self._said_at = now
        assert self._open is not None
        tool_id, name = self._open
        self.turn.input_arriving(tool_id, name, _target(self._so_far), len(self._so_far.encode("utf-8")), now - self._began)


_PATH = re.compile(r'"(?:path|file_path|old_path)"\s*:\s*"((?:[^"\\]|\\.){1,400})"')


def _target(so_far: str) -> str:
    """The path a tool input names, once the JSON so far holds it whole."""
    found = _PATH.search(so_far)
    if found is None:
        return ""
    try:
        path = json.loads(f'"{found.group(1)}"')
    except ValueError:
        return ""
    return str(path)


def open_stream(client: Any, params: dict[str, Any], cancel: Cancellation) -> Any:
    """Sends the request and returns the stream once its headers arrive, or None on cancel.

    The request runs on its own thread: until the headers come there is no socket to shut
    down, and a slow or overloaded API must not hold a cancelled turn.
    """
    done = threading.Event()
    lock = threading.Lock()
    box: dict[str, Any] = {}

    def send() -> None:
        try:
            # Context management and compaction are beta parameters: the beta endpoint takes them.
            endpoint = client.beta.messages if "betas" in params else client.messages
            opened = endpoint.create(**params, stream=True)
        except BaseException as err:  # handed to the waiting thread, which raises it
            box["error"] = err
            done.set()
            return
        with lock:
            box["stream"] = opened
            abandoned = box.get("abandoned", False)
        done.set()
        if abandoned:
            close_quietly(opened)

    threading.Thread(target=send, name="claude-request", daemon=True).start()
    while not done.wait(0.05):
        if cancel.cancelled:
            with lock:
                box["abandoned"] = True
                late = box.get("stream")
            if late is not None:
                close_quietly(late)
            return None
    if "error" in box:
        raise box["error"]
    return box["stream"]


def abort(stream: Any) -> None:
    import socket

    try:
        network = stream.response.extensions["network_stream"]
        network.get_extra_info("socket").shutdown(socket.SHUT_RDWR)
    except Exception:
        # No socket to reach (another transport): the loop still stops at the next event.
        pass


def close_quietly(stream: Any) -> None:
    try:
        stream.close()
    except Exception:
        pass


def _parse_input(raw: str) -> Any:
    if not raw:
        return {}
    try:
        return json.loads(raw)
    except ValueError:
        return _BadInput(raw)


def _usage_dict(usage: Any) -> dict[str, Any]:
    if usage is None:
        return {}
    return {n: getattr(usage, n, None) for n in USAGE_FIELDS if getattr(usage, n, None) is not None}


def _clean_block(block: dict[str, Any]) -> dict[str, Any] | None:
    """The block as it goes back to the API: only the fields a request accepts."""
    kind = block.get("type")
    if kind == "text":
        # A reply of "\n\n" alone: the API refuses a text block of whitespace sent back.
        return {"type": "text", "text": block["text"]} if str(block.get("text") or "").strip() else None
    if kind == "tool_use":
        value = block.get("input")
        return {
            "type": "tool_use",
            "id": block["id"],
            "name": block["name"],
            "input": value if isinstance(value, dict) else {},
        }
    if kind == "thinking":
        if not block.get("signature"):
            # Cut off by max_tokens before its signature came: the API refuses it back
            # ("Troubleshooting thinking"), and it is the reply's last block, so leaving it
            # out changes no later block's prefix.
            return None
        return {"type": "thinking", "thinking": block.get("thinking", "") or "", "signature": block["signature"]}
    if kind == "redacted_thinking":
        return {"type": "redacted_thinking", "data": block.get("data", "")}
    if kind == "compaction":
        # Sent back exactly as it came: the API checks its signature.
        return {k: block[k] for k in ("type", "content", "encrypted_content", "signature", "tool_changes") if k in block}
    return None
