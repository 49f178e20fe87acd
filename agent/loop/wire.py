"""What arrives on the connection, heard below the SDK.

While the API buffers a tool's input (no fine-grained streaming) or thinks with its text
omitted, it sends nothing but `ping` events, which the SDK drops before the caller sees an
event ("Streaming messages": a stream may hold any number of pings). A silence watch fed only
by the SDK's events would take a long edit for a dead connection. So every response of the
client carries an `Ear` that hears each piece of its body as it is read, pings included.

The ear is put on by an httpx response hook, a public hook of the client the SDK is given:
the SDK's own transport (keep-alive, proxies) stays as it is.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import httpx2

# The key of the ear in a response's extensions.
EAR = "devagent.ear"


class Ear:
    """Calls `listener` (set once the stream is opened) for every piece of the body read."""

    def __init__(self) -> None:
        self.listener: Callable[[], None] | None = None

    def heard(self) -> None:
        listener = self.listener
        if listener is not None:
            listener()


class HeardStream(httpx2.SyncByteStream):
    """A response body stream that tells its ear of every piece before handing it on."""

    def __init__(self, inner: Any, ear: Ear) -> None:
        self._inner = inner
        self._ear = ear

    def __iter__(self) -> Iterator[bytes]:
        for piece in self._inner:
            self._ear.heard()
            yield piece

    def close(self) -> None:
        self._inner.close()


def listen(response: Any) -> None:
    """The response hook: an ear on the response, heard as its body is read."""
    ear = Ear()
    response.stream = HeardStream(response.stream, ear)
    response.extensions = {**response.extensions, EAR: ear}


def ear_of(stream: Any) -> Ear | None:
    """The ear of an SDK stream's response, when its client was made with `listen`."""
    try:
        ear = stream.response.extensions.get(EAR)
    except Exception:
        return None
    return ear if isinstance(ear, Ear) else None
