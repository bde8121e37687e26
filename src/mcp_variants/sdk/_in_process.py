"""The reference client's transport to a server in the test's own process, at every version, 2026-12-01 included.

An in-process test client (FastMCP's `Client(mcp)`, the SDK's) speaks the versions the SDK knows, so it never sees a
2026-12-01 variant. The reference client (`mcp_variants.client`) speaks them all but talks to a process or a URL.
This transport gives it the server as it is: served by `serve_stdio` exactly as on stdio (the message guard, the
connection's era, the 2026-12-01 bridge), over two pipes in place of stdin and stdout, on a thread of its own with
its own event loop; the session's `close` is the stdin EOF a stdio server stops on, and the thread is joined.

It lives here, not in `mcp_variants.client`: the client stands on the core alone (it judges servers, ours included)
and never imports the server API, while this package may use the client, which it ships beside.
"""

from __future__ import annotations

import json
import os
import selectors
import threading
import time
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
from mcp.server.lowlevel import Server
from mcp.server.mcpserver import MCPServer

from ..client.errors import TransportError
from ..client.transport import Routing
from ._guard import DEFAULT_MAX_MESSAGE_BYTES
from ._serve import AnyServer, lowlevel_server, serve_stdio

READ_CHUNK = 64 * 1024
STOP_TIMEOUT_S = 60.0  # after EOF: a stdio server gives running requests 30 s, then its answers 10 s to be read

Serve = Callable[[tuple[int, int]], Awaitable[None]]
"""Serves a server on two descriptors (read, write) until EOF on the first: `serve_stdio(server, fds=...)`."""


class InProcessTransport:
    """The reference client's `Transport` to an `MCPServer` (given `Variants(mcp)`) or a low-level `Server` (given
    `serve_tools`) in this process, served as `serve_stdio` serves it, on a thread of its own:

        with ClientSession(InProcessTransport(mcp)) as session:      # mcp_variants.client.ClientSession
            result = session.call("world_clock", {"zone": "UTC"}, ["programmatic/structured"])

    Every version the client speaks (`ClientSession(transport, version=...)`), each request answered as on stdio.
    Closing it (the session's `close`, its `with`) ends the server as the end of stdin does, once the requests it
    is running are answered, and joins the thread. `bridge`, `max_message_bytes`: as `serve_stdio` takes them.
    The server's notifications and its own requests are read and left unanswered, as `StdioTransport` leaves them.
    FastMCP: `mcp_variants.fastmcp.InProcessTransport`."""

    def __init__(self, server: AnyServer, *, bridge: bool | None = None,
                 max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES) -> None:
        if not isinstance(server, MCPServer | Server):
            raise TypeError(f"InProcessTransport takes the SDK's MCPServer or low-level Server, not {type(server).__name__}"
                            " (FastMCP: mcp_variants.fastmcp.InProcessTransport)")

        async def serve(fds: tuple[int, int]) -> None:
            await serve_stdio(server, fds=fds, bridge=bridge, max_message_bytes=max_message_bytes)

        self.start(lowlevel_server(server).name, serve)

    def start(self, name: str, serve: Serve) -> None:
        """Start `serve` on this transport's pipes, in a thread named after the server `name`: what `__init__` does
        with `serve_stdio`, and what a framework's layer calls in its own subclass's `__init__` with its own."""
        to_server, self._to_server = os.pipe()
        self._from_server, from_server = os.pipe()
        self._buffer = bytearray()
        self._readable = selectors.DefaultSelector()  # not select.select: a test process may hold descriptors past 1024
        self._readable.register(self._from_server, selectors.EVENT_READ)
        self._closed = False
        self.failure: BaseException | None = None  # what the server raised, if it stopped by raising
        self.thread = threading.Thread(target=self._serve, args=(serve, (to_server, from_server)), daemon=True,
                                       name=f"in-process MCP server {name}")
        self.thread.start()

    def _serve(self, serve: Serve, fds: tuple[int, int]) -> None:
        try:
            anyio.run(serve, fds)
        except BaseException as exc:  # kept for the client's error; the thread ends either way
            self.failure = exc
        finally:
            for fd in fds:  # the server's ends: closing its write end is the EOF the client reads
                os.close(fd)

    # -- Transport

    def request(self, body: bytes, routing: Routing, timeout: float) -> dict[str, Any]:
        """Write `body` to the server; its response to `routing.id` (TransportError when the server stopped, wrote a
        line that is not JSON, or did not answer within `timeout` s)."""
        self._write(body, routing)
        deadline = time.monotonic() + timeout
        while True:
            message = self._next_message(routing, deadline)
            if isinstance(message, dict) and "method" not in message and message.get("id") == routing.id:
                return message

    def notify(self, body: bytes, routing: Routing) -> None:
        """Write `body`, a notification, to the server."""
        self._write(body, routing)

    def close(self) -> None:
        """EOF to the server; what it still writes is read (so no answer waits on a full pipe); its thread joined.
        TransportError when it has not stopped within STOP_TIMEOUT_S."""
        if self._closed:
            return
        self._closed = True
        os.close(self._to_server)
        deadline = time.monotonic() + STOP_TIMEOUT_S
        try:
            while self._read(deadline):
                self._buffer.clear()
        except TimeoutError:
            pass
        finally:
            self._readable.close()
            os.close(self._from_server)
        self.thread.join(max(deadline - time.monotonic(), 0))
        if self.thread.is_alive():
            raise TransportError(f"{self.thread.name} did not stop within {STOP_TIMEOUT_S:.0f} s of the end of its input")

    # -- the pipes

    def _write(self, body: bytes, routing: Routing) -> None:
        if self._closed:
            raise TransportError(f"{routing.method}: the transport is closed")
        data = memoryview(body.rstrip(b"\n") + b"\n")
        try:
            while data:
                data = data[os.write(self._to_server, data):]
        except OSError as exc:  # the server stopped reading: it has stopped
            raise self._stopped(routing, f"cannot write to the server: {exc}") from self.failure

    def _next_message(self, routing: Routing, deadline: float) -> Any:
        """The next message the server wrote: TransportError when it wrote a line that is not JSON, stopped, or
        wrote nothing more by `deadline`."""
        while (end := self._buffer.find(b"\n")) < 0 or not self._buffer[:end].strip():
            if end >= 0:
                del self._buffer[:end + 1]
                continue
            try:
                more = self._read(deadline)
            except TimeoutError:
                raise TransportError(f"{routing.method}: no answer within the timeout") from None
            if not more:
                raise self._stopped(routing, "the server closed its output before answering") from self.failure
        line = bytes(self._buffer[:end])
        del self._buffer[:end + 1]
        try:
            return json.loads(line)
        except ValueError:
            raise TransportError(f"{routing.method}: the server wrote a line that is not JSON: {line[:500]!r}") from None

    def _read(self, deadline: float) -> bool:
        """Read what the server wrote into the buffer: False at its end; TimeoutError at `deadline`."""
        if not self._readable.select(max(deadline - time.monotonic(), 0)):
            raise TimeoutError
        chunk = os.read(self._from_server, READ_CHUNK)
        self._buffer += chunk
        return bool(chunk)

    def _stopped(self, routing: Routing, what: str) -> TransportError:
        """The error for a server that has stopped, saying what it raised (`failure`, raised from it by the caller)."""
        self.thread.join(timeout=5)  # its thread sets `failure` as it ends
        why = f" ({type(self.failure).__name__}: {self.failure})" if self.failure is not None else ""
        return TransportError(f"{routing.method}: {what}{why}")
