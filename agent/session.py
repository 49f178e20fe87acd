"""One conversation with Claude: the manual, streamed tool-use loop.

A user turn streams a reply, runs every tool_use block in it, sends the tool_results back
and repeats until the model ends its turn. Everything the caller sees comes through the
sink as events; nothing raises out of `send`. The history only ever grows at its end,
because a thinking block's signature binds it to everything before it.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import Any

import anthropic

from agent import claude, modes, prompts
from agent.cancel import Cancellation
from agent.config import AgentConfig, api_key_problem
from agent.events import (
    AgentError,
    Event,
    ShowOnScreen,
    TextDelta,
    ThinkingStarted,
    ToolFinished,
    ToolStarted,
    TurnFinished,
    TurnStarted,
    Usage,
)
from agent.tools.base import ToolContext, ToolResult
from agent.tools.registry import ToolRegistry
from agent.transcripts import Transcript, content_blocks

Sink = Callable[[Event], None]

CANCELLED_TOOL = "Not run: the user cancelled the turn."


class StreamBroken(Exception):
    """The stream ended before message_stop, or sent something that is not an event."""


class TurnCancelled(Exception):
    pass


def _today(now: datetime) -> str:
    return f"Today is {now.strftime('%A, %d %B %Y')} ({now.date().isoformat()})."


class Session:
    def __init__(
        self,
        repo: Path,
        config: AgentConfig,
        *,
        client: Any = None,
        store: Any = None,
        now: datetime | Callable[[], datetime] | None = None,
        tools: list | None = None,
        save_transcript: bool = True,
    ) -> None:
        self.repo = Path(repo).resolve()
        if config.build_command is None and config.test_command is None:
            # The user's per-repository build and test commands, when the caller did not
            # already look them up.
            config = config.for_repository(self.repo)
        self.config = config
        self._client = client
        self._no_retry_client: Any = None
        self._now = now
        self.turn = 0
        self.messages: list[dict] = []
        self.usage = Usage()
        self._lock = threading.Lock()
        self._closed = False
        self.started = self.now()

        mode = config.memory_mode
        if store is None and mode in ("on-demand", "preloaded", "index"):
            from memory.roots import open_memory

            store = open_memory(self.repo)
        self.store = store
        self.start = modes.prepare(
            mode, self.repo, store=store, window_turns=config.window_turns, now=self.started,
            aging_days=config.memory_aging_days,
        )
        self.registry = ToolRegistry.for_mode(
            mode, store if self.start.memory_tool else None, tools, memory_writes=config.memory_writes
        )
        self.tool_definitions = self.registry.definitions()
        self.system = self._system_blocks()

        self.transcript = None
        if save_transcript:
            self.transcript = Transcript(self.repo, started=self.started, model=config.model, memory_mode=mode)
        for message, when in zip(self.start.replay, self.start.replay_times):
            self._append(message, when=when, replayed=True)
        self._sent_first = False

    # --- setup ----------------------------------------------------------------------------

    def now(self) -> datetime:
        if callable(self._now):
            return self._now()
        if isinstance(self._now, datetime):
            return self._now
        return datetime.now().astimezone()

    def _system_blocks(self) -> list[dict]:
        stable = prompts.system_prompt()
        if self.start.memory_tool:
            stable = f"{stable}\n\n{prompts.memory_rules()}"
        blocks = [{"type": "text", "text": stable}]
        context = self.start.context
        memory = self.registry.get("memory")
        note = memory.mode_note() if memory is not None and hasattr(memory, "mode_note") else ""
        if note:
            context = f"{note}\n\n{context}" if context else note
        if context:
            blocks.append({"type": "text", "text": context})
        return blocks

    @property
    def client(self) -> Any:
        if self._client is None:
            self._client = claude.make_client(self.config)
        return self._client

    def _streaming_client(self) -> Any:
        if self._no_retry_client is None:
            client = self.client
            with_options = getattr(client, "with_options", None)
            self._no_retry_client = with_options(max_retries=0) if with_options else client
        return self._no_retry_client

    # --- the turn -------------------------------------------------------------------------

    def send(self, text: str, sink: Sink, cancel: Cancellation | None = None) -> Usage:
        """Runs one user turn to its end; reports through `sink` and returns the turn's usage."""
        with self._lock:
            cancel = cancel or Cancellation()
            self.turn += 1
            turn = self.turn
            emit = _safe(sink)
            emit(TurnStarted(turn, text))
            started = time.monotonic()
            usage = Usage()
            reply_text: list[str] = []
            cancelled = False

            problem = api_key_problem() if self._client is None else None
            if problem:
                emit(AgentError(turn, problem))
                emit(TurnFinished(turn, usage, "", False))
                return usage

            self._add_user_text(text)
            try:
                usage = self._loop(turn, emit, cancel, reply_text, started)
            except TurnCancelled as stop:
                usage = stop.args[0] if stop.args else usage
                cancelled = True
            except _TurnFailed as failed:
                usage = failed.usage
                emit(AgentError(turn, failed.message))
            except Exception as err:  # a bug of ours must not take the app down
                emit(AgentError(turn, f"The turn failed unexpectedly: {type(err).__name__}: {err}"))
            usage = replace(usage, total_time=time.monotonic() - started)
            self.usage = self.usage + usage
            emit(TurnFinished(turn, usage, "".join(reply_text), cancelled))
            return usage

    def _loop(self, turn: int, emit: Sink, cancel: Cancellation, reply_text: list[str], started: float) -> Usage:
        usage = Usage()
        for _ in range(self.config.max_api_calls_per_turn):
            if cancel.cancelled:
                raise TurnCancelled(usage)
            content, stop_reason, call, bad_inputs = self._call_with_retries(turn, emit, cancel, reply_text, started, usage)
            usage = usage + call
            if content:
                self._append({"role": "assistant", "content": content})
            if stop_reason == "pause_turn":
                continue
            tool_uses = [b for b in content if b.get("type") == "tool_use"]
            if stop_reason != "tool_use" or not tool_uses:
                if stop_reason == "max_tokens":
                    raise _TurnFailed("The reply hit the output limit and was cut short; ask for less at a time.", usage)
                return usage
            results = self._run_tools(turn, tool_uses, emit, cancel, bad_inputs)
            self._append({"role": "user", "content": results})
            if cancel.cancelled:
                raise TurnCancelled(usage)
        raise _TurnFailed(
            f"Stopped after {self.config.max_api_calls_per_turn} calls to Claude in one turn; ask again more narrowly.",
            usage,
        )

    def _call_with_retries(
        self, turn: int, emit: Sink, cancel: Cancellation, reply_text: list[str], started: float, before: Usage
    ) -> tuple[list[dict], str | None, Usage, dict[str, str]]:
        """One API call, retried with backoff on 429, 529, 5xx and lost connections as long as
        nothing of the reply has reached the user yet."""
        spent = Usage()
        attempt = 0
        while True:
            try:
                content, stop_reason, call, bad_inputs = self._stream_once(turn, emit, cancel, reply_text, started)
                return content, stop_reason, spent + call, bad_inputs
            except TurnCancelled as stop:
                raise TurnCancelled(before + spent + stop.args[0])
            except _TurnFailed as failed:
                spent = spent + failed.usage
                delay = None
                if failed.cause is not None and attempt < self.config.max_retries:
                    delay = claude.retry_delay(failed.cause, attempt)
                if delay is None:
                    raise _TurnFailed(failed.message, before + spent)
            attempt += 1
            if cancel.wait(delay):
                raise TurnCancelled(before + spent)

    def _stream_once(
        self, turn: int, emit: Sink, cancel: Cancellation, reply_text: list[str], started: float
    ) -> tuple[list[dict], str | None, Usage, dict[str, str]]:
        params = claude.request_params(
            self.config, system=self.system, tools=self.tool_definitions, messages=self.messages
        )
        blocks: dict[int, dict] = {}
        json_parts: dict[int, list[str]] = {}
        stop_reason: str | None = None
        raw_usage: dict[str, int] = {}
        first_token: float | None = None
        finished = False
        stream = None
        remove_hook: Callable[[], None] = lambda: None

        def partial_usage() -> Usage:
            if not raw_usage:
                # Refused before a reply began (a 429, say): not a call worth counting.
                return Usage()
            u = claude.call_usage(self.config.model, _Counts(raw_usage))
            return replace(u, time_to_first_token=first_token)

        try:
            stream = _open_stream(self._streaming_client(), params, cancel)
            if stream is None:
                raise TurnCancelled(Usage())
            # A stalled read blocks the loop inside the SDK, and closing the response from
            # another thread does not wake it; shutting the socket down does.
            remove_hook = cancel.on_cancel(lambda: _abort(stream))
            for event in stream:
                if cancel.cancelled:
                    raise TurnCancelled(partial_usage())
                kind = getattr(event, "type", None)
                if kind == "message_start":
                    raw_usage.update(_usage_dict(event.message.usage))
                elif kind == "content_block_start":
                    block = event.content_block.to_dict()
                    if block.get("type") == "tool_use":
                        block["input"] = {}
                    blocks[event.index] = block
                    if block.get("type") in ("thinking", "redacted_thinking"):
                        emit(ThinkingStarted(turn))
                elif kind == "content_block_delta":
                    block = blocks.get(event.index)
                    if block is None:
                        raise StreamBroken("a delta for a block that never started")
                    delta = event.delta
                    if delta.type == "text_delta":
                        if not block.get("text") and reply_text and not reply_text[-1].endswith("\n"):
                            # A new text block after a tool call starts a new paragraph.
                            reply_text.append("\n\n")
                            emit(TextDelta(turn, "\n\n"))
                        block["text"] = block.get("text", "") + delta.text
                        if first_token is None:
                            first_token = time.monotonic() - started
                        reply_text.append(delta.text)
                        emit(TextDelta(turn, delta.text))
                    elif delta.type == "input_json_delta":
                        json_parts.setdefault(event.index, []).append(delta.partial_json)
                    elif delta.type == "thinking_delta":
                        block["thinking"] = block.get("thinking", "") + delta.thinking
                    elif delta.type == "signature_delta":
                        block["signature"] = delta.signature
                elif kind == "content_block_stop":
                    block = blocks.get(event.index)
                    if block is not None and block.get("type") == "tool_use":
                        raw = "".join(json_parts.get(event.index, [])).strip()
                        block["input"] = _parse_input(raw)
                elif kind == "message_delta":
                    stop_reason = event.delta.stop_reason
                    raw_usage.update({k: v for k, v in _usage_dict(event.usage).items() if v is not None})
                elif kind == "message_stop":
                    finished = True
            if cancel.cancelled:
                raise TurnCancelled(partial_usage())
            if not finished:
                raise StreamBroken("the stream ended before message_stop")
        except TurnCancelled:
            raise
        except (anthropic.APIStatusError, anthropic.APIConnectionError) as err:
            if cancel.cancelled:
                raise TurnCancelled(partial_usage())
            # Once a block has started, the user has seen part of the reply: no retry.
            raise _TurnFailed(claude.describe_api_error(err), partial_usage(), cause=None if blocks else err)
        except StreamBroken:
            if cancel.cancelled:
                raise TurnCancelled(partial_usage())
            raise _TurnFailed(
                "The connection to Claude dropped in the middle of the reply; the turn stopped there. Ask again.",
                partial_usage(),
            )
        except (ValueError, KeyError, AttributeError, TypeError) as err:
            if cancel.cancelled:
                raise TurnCancelled(partial_usage())
            raise _TurnFailed(
                f"Claude's reply stream had an event that could not be read ({type(err).__name__}); "
                "the turn stopped there. Ask again.",
                partial_usage(),
            )
        except Exception as err:
            # httpx2 transport errors (a connection reset mid-body) surface unwrapped here.
            if cancel.cancelled:
                raise TurnCancelled(partial_usage())
            if _is_transport_error(err):
                raise _TurnFailed(
                    "The connection to Claude dropped in the middle of the reply; the turn stopped there. Ask again.",
                    partial_usage(),
                )
            raise
        finally:
            remove_hook()
            if stream is not None:
                _close_quietly(stream)

        usage = partial_usage()
        # Input that is not JSON goes back as {} (a request must stay valid); the tool does
        # not run and the model hears why.
        bad_inputs = {b["id"]: b["input"].raw for b in blocks.values() if isinstance(b.get("input"), _BadInput)}
        content = [_clean_block(blocks[i]) for i in sorted(blocks)]
        return [b for b in content if b is not None], stop_reason, usage, bad_inputs

    def _run_tools(
        self, turn: int, tool_uses: list[dict], emit: Sink, cancel: Cancellation, bad_inputs: dict[str, str]
    ) -> list[dict]:
        results: list[dict] = []
        ctx = ToolContext(repo=self.repo, cancel=cancel, config=self.config)
        for block in tool_uses:
            tool_id, name, input = block["id"], block["name"], block.get("input")
            if cancel.cancelled:
                results.append(_tool_result(tool_id, CANCELLED_TOOL, True))
                continue
            emit(ToolStarted(turn, tool_id, name, self.registry.summarize(name, input)))
            began = time.monotonic()
            if tool_id in bad_inputs:
                result = ToolResult(
                    text=f"Error: the tool input was not valid JSON: {bad_inputs[tool_id][:200]}",
                    is_error=True,
                    summary="bad input",
                )
            else:
                result = self.registry.run(name, input, ctx)
            duration = time.monotonic() - began
            if cancel.cancelled and not result.is_error:
                result = ToolResult(text=f"{result.text}\n(The user cancelled the turn.)", is_error=result.is_error, summary=result.summary, log=result.log, screen=result.screen)
            emit(ToolFinished(turn, tool_id, name, duration, result.is_error, result.summary, result.log))
            if result.screen is not None:
                title, content, fmt = result.screen
                emit(ShowOnScreen(turn, title, content, fmt))
            results.append(_tool_result(tool_id, result.text, result.is_error))
        return results

    # --- history --------------------------------------------------------------------------

    def _add_user_text(self, text: str) -> None:
        blocks: list[dict] = []
        if not self._sent_first:
            # The date belongs here and not in the system prompt: a prompt that says
            # "Monday" is not a prefix of one that said "Friday".
            blocks.append({"type": "text", "text": _today(self.now())})
            self._sent_first = True
        news = self._memory_news()
        if news:
            blocks.append({"type": "text", "text": news})
        blocks.append({"type": "text", "text": text if text.strip() else "(silence)"})
        message, replaces_last = _user_message_after(self.messages, blocks)
        if replaces_last:
            self.messages[-1] = message
            # The saved copy gets only the new words; loading joins consecutive user records.
            self._save({"role": "user", "content": blocks})
        else:
            self._append(message)

    def _memory_news(self) -> str | None:
        """The user's decisions on held memory changes since the last turn, in one line."""
        memory = self.registry.get("memory")
        news = getattr(memory, "news", None)
        return news() if callable(news) else None

    def _append(self, message: dict, *, when: datetime | None = None, replayed: bool = False) -> None:
        self.messages.append(message)
        self._save(message, when=when, replayed=replayed)

    def _save(self, message: dict, *, when: datetime | None = None, replayed: bool = False) -> None:
        if self.transcript is not None:
            try:
                self.transcript.add_message(message, turn=self.turn, time=when or self.now(), replayed=replayed)
            except OSError:
                # A full disk must not end the conversation; only the saved copy is lost.
                pass

    # --- the end --------------------------------------------------------------------------

    def close(self) -> None:
        """Ends the session; summary mode spends one more call writing notes for the next one."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            if self.config.memory_mode == "summary" and self.turn > 0:
                notes = self._write_summary()
                if notes and self.transcript is not None:
                    try:
                        self.transcript.add_summary(notes, time=self.now())
                    except OSError:
                        pass

    def _write_summary(self) -> str | None:
        if api_key_problem() and self._client is None:
            return None
        ask = [{"type": "text", "text": prompts.summary_request()}]
        message, replaces_last = _user_message_after(self.messages, ask)
        messages = [*self.messages[:-1], message] if replaces_last else [*self.messages, message]
        # The session's own request with the ask at its end, so it reads the conversation from
        # the cache: a different tool_choice or thinking setting would start a new cache. The
        # ask itself tells the model not to use the tools.
        params = claude.request_params(self.config, system=self.system, tools=self.tool_definitions, messages=messages)
        try:
            reply = self.client.messages.create(**params)
        except Exception:
            return None
        self.usage = self.usage + claude.call_usage(self.config.model, reply.usage)
        text = "".join(getattr(b, "text", "") for b in reply.content if getattr(b, "type", "") == "text").strip()
        return text or None


# --- small pieces -------------------------------------------------------------------------


class _TurnFailed(Exception):
    def __init__(self, message: str, usage: Usage, *, cause: BaseException | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.usage = usage
        # The API error behind it, when retrying the call could help.
        self.cause = cause


class _BadInput:
    def __init__(self, raw: str) -> None:
        self.raw = raw


class _Counts:
    def __init__(self, values: dict) -> None:
        self.__dict__.update(values)


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
    names = ("input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")
    return {n: getattr(usage, n, None) for n in names if getattr(usage, n, None) is not None}


def _clean_block(block: dict) -> dict | None:
    """The block as it goes back to the API: only the fields a request accepts."""
    kind = block.get("type")
    if kind == "text":
        return {"type": "text", "text": block["text"]} if block.get("text") else None
    if kind == "tool_use":
        value = block.get("input")
        return {
            "type": "tool_use",
            "id": block["id"],
            "name": block["name"],
            "input": value if isinstance(value, dict) else {},
        }
    if kind == "thinking":
        return {"type": "thinking", "thinking": block.get("thinking", ""), "signature": block.get("signature", "")}
    if kind == "redacted_thinking":
        return {"type": "redacted_thinking", "data": block.get("data", "")}
    return None


def _tool_result(tool_id: str, text: str, is_error: bool) -> dict:
    result: dict[str, Any] = {"type": "tool_result", "tool_use_id": tool_id, "content": text or "(no output)"}
    if is_error:
        result["is_error"] = True
    return result


def _user_message_after(messages: list[dict], blocks: list[dict]) -> tuple[dict, bool]:
    """The user message that brings `blocks` after `messages`, and whether it takes the place
    of the last one.

    After a turn that failed before Claude answered, the history ends with the user's words:
    the new words join them in the same message, so the history still only grows at its end.
    After a reply cut short while asking for tools, every tool_use gets its result first, as
    the API requires.
    """
    if not messages:
        return {"role": "user", "content": blocks}, False
    last = messages[-1]
    content = content_blocks(last)
    if last["role"] == "user":
        return {"role": "user", "content": [*content, *blocks]}, True
    unanswered = [b["id"] for b in content if isinstance(b, dict) and b.get("type") == "tool_use"]
    results = [_tool_result(i, "Not run: the reply was cut short.", True) for i in unanswered]
    return {"role": "user", "content": [*results, *blocks]}, False


def _open_stream(client: Any, params: dict, cancel: Cancellation) -> Any:
    """Sends the request and returns the stream once its headers arrive, or None on cancel.

    The request runs on its own thread: until the headers come there is no socket to shut
    down, and a slow or overloaded API must not hold a cancelled turn.
    """
    done = threading.Event()
    lock = threading.Lock()
    box: dict[str, Any] = {}

    def send() -> None:
        try:
            opened = client.messages.create(**params, stream=True)
        except BaseException as err:  # handed to the waiting thread, which raises it
            box["error"] = err
            done.set()
            return
        with lock:
            box["stream"] = opened
            abandoned = box.get("abandoned", False)
        done.set()
        if abandoned:
            _close_quietly(opened)

    threading.Thread(target=send, name="claude-request", daemon=True).start()
    while not done.wait(0.05):
        if cancel.cancelled:
            with lock:
                box["abandoned"] = True
                late = box.get("stream")
            if late is not None:
                _close_quietly(late)
            return None
    if "error" in box:
        raise box["error"]
    return box["stream"]


def _abort(stream: Any) -> None:
    import socket

    try:
        network = stream.response.extensions["network_stream"]
        network.get_extra_info("socket").shutdown(socket.SHUT_RDWR)
    except Exception:
        # No socket to reach (another transport): the loop still stops at the next event.
        pass


def _close_quietly(stream: Any) -> None:
    try:
        stream.close()
    except Exception:
        pass


def _is_transport_error(err: BaseException) -> bool:
    import httpx2

    seen: BaseException | None = err
    while seen is not None:
        if isinstance(seen, (httpx2.TransportError, httpx2.StreamError, ConnectionError)):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def _safe(sink: Sink) -> Sink:
    def emit(event: Event) -> None:
        try:
            sink(event)
        except Exception:
            # The display failing must not leave the conversation half-updated.
            pass

    return emit
