"""The seam between the session and the wire: bytes out, one decoded response back.

The session encodes every message itself and hands the transport the exact bytes to
write, so a recording wrapper sees precisely what reaches the server.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol


@dataclass(frozen=True, slots=True)
class Routing:
    """What a transport needs besides the body: routing headers and the id to wait for."""

    method: str
    id: int | str | None  # None for a notification
    version: str | None  # protocol version for the header; None while a handshake is pending
    stateless: bool  # 2026-07-28 and later: per-request envelope, Mcp-Method/Mcp-Name headers
    name: str | None = None  # Mcp-Name: what the request names (NAMED_BY)


NAMED_BY = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri"}  # the Mcp-Name header's param


def routing_for(method: str, request_id: int | str | None, params: Any, version: str | None, stateless: bool) -> Routing:
    """What a transport needs to carry a request or notification: what it names (Mcp-Name: the tool of a tools/call,
    the prompt of a prompts/get, the uri of a resources/read; a 2026 server refuses the request without it), and no
    version for `initialize` (the handshake chooses it)."""
    key = NAMED_BY.get(method)
    name = params.get(key) if key and isinstance(params, Mapping) else None
    return Routing(method, request_id, None if method == "initialize" else version, stateless,
                   name if isinstance(name, str) else None)


class Transport(Protocol):
    """Anything that can carry one JSON-RPC request and bring back its response."""

    def request(self, body: bytes, routing: Routing, timeout: float) -> dict[str, Any]: ...

    def notify(self, body: bytes, routing: Routing) -> None: ...

    def close(self) -> None: ...


class RecordingTransport:
    """Wraps a transport and keeps every body written, so tests can assert on the bytes, and every response
    brought back (`received`), so tests can compare two transports' answers whole."""

    def __init__(self, inner: Transport) -> None:
        self.inner = inner
        self.sent: list[tuple[Routing, bytes]] = []
        self.received: list[dict[str, Any]] = []

    def request(self, body: bytes, routing: Routing, timeout: float) -> dict[str, Any]:
        self.sent.append((routing, body))
        response = self.inner.request(body, routing, timeout)
        self.received.append(response)
        return response

    def notify(self, body: bytes, routing: Routing) -> None:
        self.sent.append((routing, body))
        self.inner.notify(body, routing)

    def close(self) -> None:
        self.inner.close()

    def messages(self) -> list[dict[str, Any]]:
        """Every written body, decoded."""
        return [json.loads(body) for _, body in self.sent]
