"""A stand-in for the Claude Messages API, served over real HTTP on 127.0.0.1.

The real anthropic SDK talks to it exactly as it talks to the real service, so a test
asserts on what the agent actually sent (system prompt, tools, cache_control, the first
user message, replayed history) and on how it copes with what came back.

In a test, use the `claude_double` fixture from tests/conftest.py. It starts a double,
points ANTHROPIC_BASE_URL / ANTHROPIC_API_KEY at it and sets XDG_DATA_HOME /
XDG_CONFIG_HOME to temporary folders::

    from tests.double.server import text, tool_use, thinking

    def test_something(claude_double):
        claude_double.add(tool_use("git_status", {}))           # first request
        claude_double.add(text("The build is red."))            # second request
        ...run the agent...
        first = claude_double.requests[0]
        first.body["system"], first.body["tools"], first.headers["authorization"]
        claude_double.requests[1].tool_results()   # tool_result blocks of the last user message

Scripting
---------
Every POST /v1/messages takes the next scripted reply from a queue. A reply is a plain
dict (JSON-serialisable, so a script file can hold the same thing); build one with
`reply(...)` or pass content blocks straight to `add(...)`:

- content blocks: `text("...")`, `tool_use(name, input, id=None, raw_input=None)`
  (raw_input: the exact JSON text to stream, for a model that sends broken input),
  `thinking("...", signature="sig")`, `redacted_thinking(data)`.
- `reply(*blocks, stop_reason=None, usage=None, wait=0.0, delay=0.0, chunk=12, ping=False,
  drop_after=None, malformed_after=None, stall=None, error_after=None, ...)`
  - stop_reason: default "tool_use" when a tool_use block is present, else "end_turn".
  - usage: dict with any of input_tokens, output_tokens, cache_read_input_tokens,
    cache_creation_input_tokens; missing ones are estimated from the request size.
  - wait: seconds before the response starts at all (a slow API, cancel before headers).
  - delay: seconds slept before each SSE event (slow streams, cancellation tests).
  - chunk: characters per text/thinking delta and per input_json_delta.
  - ping: send a `ping` event after message_start.
  - input_seconds: how long the model takes to write each tool input. A tool the request
    does not mark `eager_input_streaming` gets its input held back, as the API does: `ping`
    events every `ping_every` seconds (default 1.0) meanwhile, then the input in one
    input_json_delta (tests/double/rules.py, rule 14); an eager one comes in pieces spread
    over the same time.
  - drop_after=N: send N events, then close the connection mid-body (a dropped stream).
  - malformed_after=N: send N events, then an event whose data is not JSON.
  - stall=S: after the first content_block_delta, wait S seconds before going on.
  - error_after=N: send N events, then an SSE `error` event (error_type, error_message;
    default overloaded_error / "Overloaded"), as the API does when it fails mid-stream.
  - hold=gate (or a list of gates, in stream order): a `Gate` from `claude_double.gate(after=N)`;
    the stream stops after N events (by default after its first content_block_delta) until
    the test calls `gate.open()`; `gate.reached` is set once it is there. The window a cancel or queue test needs,
    opened by the test rather than guessed with `delay`.
- `error(status, message=None, type=None, retry_after_ms=5)`: an HTTP error with the
  API's error JSON body, e.g. `error(429)`, `error(529)`, `error(500)`,
  `error(400, "messages.3.content.2: Invalid `signature` in `thinking` block...")`.
  retry_after_ms is sent as the `retry-after-ms` header, which clients honour, so retries
  in tests take milliseconds.

- `add(*items)`: queue replies; an item may be a reply dict, an error dict, a content
  block (then all blocks given in that one call form one reply), or a plain str (a text
  reply). `pending()` says how many are still queued.
- `responder`: optional callable `(Request) -> reply | None`, asked first for every
  messages request; None falls through to the queue. It lets a "scripted model" react to
  what it received (tool results, the date, the memory in the prompt).
- `default`: the reply used when the queue is empty and no responder answered. Left
  None, an empty queue answers 400 invalid_request_error naming the request number, so a
  test that sends more requests than it scripted fails loudly.
- `count_tokens`: int, or callable `(Request) -> int`, for POST
  /v1/messages/count_tokens (default: an estimate of the request's size).

Like the API, the double refuses a history the API would refuse, with a 400 naming the
place, before it takes a reply from the queue: a `tool_use` without its `tool_result` at
the start of the next message, a `tool_result` for no `tool_use`, a message or a text
block that is empty or whitespace alone, more than four `cache_control` breakpoints, a lone surrogate
(`\\ud800`) anywhere in the body, a text editor tool (`text_editor_20250728`) with another
name or fields it does not take. So every test that runs the loop also checks that what
it sent was a valid conversation. It also enforces, by default, the rules that depend on the
model and on its earlier replies (tests/double/rules.py lists them with their doc pages):
the thinking prefix check, thinking, effort, compaction, prefill and sampling per model, the
compaction trigger's minimum, each model's output ceiling, a reply longer than the request's
max_tokens cut there (stop_reason "max_tokens", a tool input cut mid-JSON), and a thinking
block cut off by max_tokens (scripted as a reply whose last block is thinking and whose
stop_reason is "max_tokens": no signature comes).
`refusal(...)` scripts a reply the model declined.

Where it lives
--------------
This module is the server and the script queue. The reply builders are
tests/double/script.py, the recorded `Request` tests/double/request.py, the rules on a
request's shape tests/double/history.py, the SSE events and JSON message of a reply
tests/double/wire.py; the builders and `Request` are imported from here.

Recording
---------
`requests` lists every request as `Request(path, method, headers, body, time, peer)`
(GET /v1/models, the model list, is answered and recorded too);
headers are lower-cased. `messages_requests()` keeps only POST /v1/messages.
`Request` helpers: `stream`, `system_text()`, `messages`, `first_user_text()`,
`last_user_text()`, `tool_results()`, `tool_names()`.

Another process
---------------
The TUI's tmux test and the screenshot script run the real `devagent` binary against
a double in its own process::

    python -m tests.double.server --port 0 --script script.json \
        --port-file port.txt --record requests.jsonl

It prints `listening on http://127.0.0.1:PORT` (and writes PORT to --port-file), then
serves until killed. Point the agent at it with ANTHROPIC_BASE_URL=http://127.0.0.1:PORT
and any ANTHROPIC_API_KEY. The script is JSON::

    {"replies": [reply, ...],                 # the queue, in order
     "default": reply,                        # optional, once the queue is empty
     "count_tokens": 1234,                    # optional answer of count_tokens
     "rules": [{"contains": "build", "reply": reply}, ...]}

A rule answers (every time it matches, before the queue) when its text occurs in the
last user message, tool results included; a rule whose "once" is true is used once.
Every request is appended to --record as one JSON line.
"""

from __future__ import annotations

import argparse
import json
import socket
import sys
import threading
import time
import uuid
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from tests.double import context as double_context
from tests.double import rules as double_rules
from tests.double import wire as double_wire
from tests.double.history import request_problem, text_editor_problem
from tests.double.request import Request
from tests.double.script import (
    Gate,
    as_reply,
    error,
    redacted_thinking,
    refusal,
    reply,
    text,
    thinking,
    tool_use,
)
from tests.double.wire import json_message, sse_events

# the builders and the request are imported from here by the tests: one name for the double
__all__ = ["ClaudeDouble", "Gate", "Request", "error", "redacted_thinking", "refusal", "reply", "request_problem",
           "text", "text_editor_problem", "thinking", "tool_use"]

SERVE_POLL_SECONDS = 0.01


class ClaudeDouble:
    """The Messages API on 127.0.0.1; see the module docstring for the scripting API."""

    def __init__(self, port: int = 0, record: Path | None = None) -> None:
        self._queue: list[dict] = []
        self._lock = threading.Lock()
        self.requests: list[Request] = []
        self.responder: Callable[[Request], dict | None] | None = None
        self.default: dict | None = None
        self.count_tokens: int | Callable[[Request], int] | None = None
        # Context management, as tests/double/context.py describes.
        self.context_window = double_context.DEFAULT_WINDOW
        self.simulate_cache = False
        self.refuse_context_management: set[str] = set()
        self.compaction_summary: Callable[[list[dict]], str] | None = None
        self.context_state = double_context.ContextState()
        # The model rules and the thinking blocks handed out (tests/double/rules.py); a test
        # may add a model of its own to `models`.
        self.models: dict[str, double_rules.Rules] = dict(double_rules.MODELS)
        self.ledger = double_rules.Ledger()
        self.record = record
        self._port = port
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._gates: list[Gate] = []

    # scripting
    def add(self, *items: Any) -> ClaudeDouble:
        with self._lock:
            if items and all(isinstance(i, dict) and "type" in i and "content" not in i for i in items):
                self._queue.append(reply(*items))
            else:
                self._queue.extend(as_reply(i) for i in items)
        return self

    def gate(self, after: int | None = None, timeout: float = 120.0) -> Gate:
        """A gate for `reply(hold=...)`, opened when the double stops if the test did not."""
        made = Gate(after, timeout)
        self._gates.append(made)
        return made

    def pending(self) -> int:
        with self._lock:
            return len(self._queue)

    def messages_requests(self) -> list[Request]:
        return [r for r in self.requests if r.path.split("?")[0].rstrip("/") == "/v1/messages"]

    # lifecycle
    @property
    def port(self) -> int:
        assert self._server is not None, "the double is not running"
        return self._server.server_address[1]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> ClaudeDouble:
        double = self

        class Handler(_Handler):
            owner = double

        self._server = ThreadingHTTPServer(("127.0.0.1", self._port), Handler)
        self._server.daemon_threads = True
        # the serving loop's poll is how long stop() waits for it to notice: every test
        # against the double ends with one, so 50 ms cost the quick loop seconds
        self._thread = threading.Thread(target=self._server.serve_forever, args=(SERVE_POLL_SECONDS,), name="claude-double",
                                        daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        for gate in self._gates:
            gate.open()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> ClaudeDouble:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # internals
    def _record(self, request: Request) -> None:
        with self._lock:
            self.requests.append(request)
            if self.record is not None:
                with open(self.record, "a", encoding="utf-8") as f:
                    f.write(json.dumps(request.to_json()) + "\n")

    def _next_reply(self, request: Request) -> dict:
        if self.responder is not None:
            answer = self.responder(request)
            if answer is not None:
                return as_reply(answer)
        with self._lock:
            if self._queue:
                return self._queue.pop(0)
        if self.default is not None:
            return as_reply(self.default)
        number = len(self.messages_requests())
        return error(400, f"the Claude double has no scripted reply for request {number}")


class _Handler(BaseHTTPRequestHandler):
    owner: ClaudeDouble
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # quiet: tests read requests, not logs
        pass

    def do_GET(self) -> None:
        """The model list (GET /v1/models), the one read-only call the agent makes: the app
        opens its connection with it while a question is spoken."""
        request = Request(path=self.path, method="GET", headers={k.lower(): v for k, v in self.headers.items()}, body=None,
                          peer=self.client_address)
        self.owner._record(request)
        route, _, query = self.path.partition("?")
        if route.rstrip("/") != "/v1/models":
            self._send_json(404, {"type": "error", "error": {"type": "not_found_error", "message": f"no route {self.path}"}})
            return
        limit = next((int(v) for k, _, v in (p.partition("=") for p in query.split("&")) if k == "limit" and v.isdigit()), 20)
        ids = sorted(self.owner.models)[:max(1, limit)]
        data = [{"type": "model", "id": name, "display_name": name, "created_at": "2026-01-01T00:00:00Z"} for name in ids]
        self._send_json(200, {"data": data, "has_more": len(ids) < len(self.owner.models),
                              "first_id": ids[0] if ids else None, "last_id": ids[-1] if ids else None})

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body: Any = json.loads(raw) if raw else {}
        except ValueError:
            body = raw.decode("utf-8", "replace")
        request = Request(
            path=self.path,
            method="POST",
            headers={k.lower(): v for k, v in self.headers.items()},
            body=body,
            peer=self.client_address,
        )
        self.owner._record(request)
        route = self.path.split("?")[0].rstrip("/")
        problem = request_problem(body) if route in ("/v1/messages", "/v1/messages/count_tokens") else None
        if problem is None and route in ("/v1/messages", "/v1/messages/count_tokens"):
            refused = double_rules.problem(self.owner, body, request.headers)
            if refused is not None:
                self._send_json(refused.status, {"type": "error", "error": {"type": refused.type, "message": refused.message}})
                return
            view = double_context.prepare(self.owner, body, request.headers)
            if isinstance(view, double_context.Refusal):
                problem = view.message
            else:
                request.context = view
        if problem is not None:
            self._send_json(400, {"type": "error", "error": {"type": "invalid_request_error", "message": problem}})
            return
        if route == "/v1/messages/count_tokens":
            counter = self.owner.count_tokens
            value = counter(request) if callable(counter) else counter
            answer: dict[str, Any] = {}
            if value is None:
                value = request.context.input_tokens + request.context.cache_read + request.context.cache_write
            if isinstance(body, dict) and body.get("context_management") is not None:
                answer["context_management"] = {"original_input_tokens": request.context.original_tokens}
            self._send_json(200, {"input_tokens": int(value), **answer})
            return
        if route != "/v1/messages":
            self._send_json(404, {"type": "error", "error": {"type": "not_found_error", "message": f"no route {self.path}"}})
            return
        # A paused compaction answers with the compaction block alone; no reply is used up.
        rep = reply() if request.context is not None and request.context.paused else self.owner._next_reply(request)
        if rep.get("wait"):
            time.sleep(float(rep["wait"]))
        if "error" in rep:
            err = rep["error"]
            headers = {"retry-after-ms": str(err.get("retry_after_ms", 5))}
            self._send_json(
                int(err["status"]),
                {"type": "error", "error": {"type": err["type"], "message": err["message"]}},
                headers,
            )
            return
        if request.stream:
            self._stream(rep, request)
        else:
            self._send_json(200, json_message(rep, request, self.owner))

    def _send_json(self, status: int, payload: dict, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.send_header("request-id", f"req_{uuid.uuid4().hex[:16]}")
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()

    def _chunk(self, data: bytes) -> None:
        # Chunked framing, so a connection closed early is an incomplete body to the
        # client, not a short but complete one.
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()

    def _stream(self, rep: dict, request: Request) -> None:
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-cache")
        self.send_header("transfer-encoding", "chunked")
        self.send_header("request-id", f"req_{uuid.uuid4().hex[:16]}")
        self.end_headers()
        events = sse_events(rep, request, self.owner)
        delay = float(rep.get("delay") or 0)
        stall = rep.get("stall")
        drop_after = rep.get("drop_after")
        malformed_after = rep.get("malformed_after")
        error_after = rep.get("error_after")
        error_kind = (rep.get("error_type") or "overloaded_error", rep.get("error_message") or "Overloaded")
        gates = list(rep.get("hold") or [])
        # An eagerly streamed input takes as long to write as a buffered one, in pieces.
        pieces = sum(1 for name, data in events if name == "content_block_delta" and data["delta"]["type"] == "input_json_delta")
        buffered = any(name == "ping" for name, _ in events[1:])
        input_wait = float(rep.get("input_seconds") or 0) / pieces if pieces and not buffered else 0.0
        try:
            for n, (name, data) in enumerate(events):
                if drop_after is not None and n >= drop_after:
                    self.close_connection = True
                    self.wfile.flush()
                    self.connection.shutdown(socket.SHUT_RDWR)
                    return
                if error_after is not None and n == error_after:
                    payload = {"type": "error", "error": {"type": error_kind[0], "message": error_kind[1]}}
                    self._chunk(f"event: error\ndata: {json.dumps(payload)}\n\n".encode())
                    self._chunk(b"")
                    return
                if malformed_after is not None and n == malformed_after:
                    self._chunk(b"event: content_block_delta\ndata: {\"type\": \"content_block_delta\", \"index\": 0, \"delta\n\n")
                    self._chunk(b"")
                    return
                if delay:
                    time.sleep(delay)
                if name == "ping" and n > 1:
                    # the API's pings come while the model writes what it holds back
                    time.sleep(float(rep.get("ping_every") or double_wire.PING_EVERY))
                elif input_wait and name == "content_block_delta" and data["delta"]["type"] == "input_json_delta":
                    time.sleep(input_wait)
                self._chunk(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode())
                if stall and name == "content_block_delta":
                    time.sleep(float(stall))
                    stall = None
                while gates and gates[0].here(n + 1, name):
                    gates.pop(0).hold()
            self._chunk(b"")
        except (BrokenPipeError, ConnectionResetError, OSError):
            # the client went away (a cancelled turn): nothing left to tell it
            self.close_connection = True


# --- a script file, for a double in its own process -------------------------------------


def load_script(double: ClaudeDouble, script: dict) -> None:
    double.add(*script.get("replies", []))
    if script.get("default") is not None:
        double.default = script["default"]
    if script.get("count_tokens") is not None:
        double.count_tokens = int(script["count_tokens"])
    rules = list(script.get("rules", []))
    if rules:

        def responder(request: Request) -> dict | None:
            seen = request.last_user_text()
            for rule in list(rules):
                if rule["contains"].lower() in seen.lower():
                    if rule.get("once"):
                        rules.remove(rule)
                    return rule["reply"]
            return None

        double.responder = responder


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Serve a scripted Claude Messages API on 127.0.0.1.")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--script", type=Path, help="JSON script: replies, default, rules")
    parser.add_argument("--port-file", type=Path)
    parser.add_argument("--record", type=Path, help="append every request as a JSON line")
    args = parser.parse_args(argv)
    double = ClaudeDouble(port=args.port, record=args.record)
    if args.script:
        load_script(double, json.loads(args.script.read_text(encoding="utf-8")))
    double.start()
    if args.port_file:
        args.port_file.write_text(str(double.port))
    print(f"listening on {double.url}", flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        double.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
