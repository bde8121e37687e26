"""Streamable HTTP transport for the reference client (httpx, synchronous).

One POST per message. Stateless versions (2026-07-28 and later) carry the routing
headers `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` (transport.NAMED_BY); handshake
versions carry `Mcp-Session-Id` once `initialize` has returned one. A response is either
one JSON body or an SSE stream whose `data:` events are JSON-RPC messages.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from typing import Any

import httpx

from ..sse import read_sse, sse_events
from .errors import HttpRefusal, TransportError
from .transport import Routing

ACCEPT = "application/json, text/event-stream"
CONNECT_TIMEOUT_S = 30.0


def parse_messages(response: httpx.Response) -> list[dict[str, Any]]:
    """Every JSON-RPC message of a response: one JSON body, or SSE `data:` events in order (ValueError when one is not JSON)."""
    ctype = response.headers.get("content-type", "")
    if ctype.startswith("text/event-stream"):
        messages, problem, _ = read_sse(response.content.splitlines(keepends=True))
        if problem:
            raise ValueError(problem)
        return messages
    if ctype.startswith("application/json") and response.content.strip():
        body = response.json()
        return body if isinstance(body, list) else [body]
    return []


def _is_event_stream(response: httpx.Response) -> bool:
    return str(response.headers.get("content-type", "")).startswith("text/event-stream")


def _events(response: httpx.Response) -> Iterator[str]:
    """Each SSE event's data as soon as the event ends."""
    lines = (line.encode() + b"\n" for line in response.iter_lines())
    return (payload for payload, _ in sse_events(lines))


def _is_jsonrpc(text: str) -> bool:
    try:
        message = json.loads(text)
    except ValueError:
        return False
    return isinstance(message, dict) and message.get("jsonrpc") == "2.0"


class HttpTransport:
    """POSTs to one MCP endpoint; optional bearer token; keeps the handshake session id.

    Pass your own `httpx.Client` to add event hooks (tests record the request bytes
    that way) or TLS settings; the transport closes only a client it created.
    """

    def __init__(self, url: str, *, token: str | None = None, client: httpx.Client | None = None) -> None:
        self.url = url
        self._token = token
        self._own_client = client is None
        self.http = client or httpx.Client()
        self.session_id: str | None = None
        self.notifications: list[dict[str, Any]] = []

    def headers(self, routing: Routing) -> dict[str, str]:
        headers = {"Content-Type": "application/json", "Accept": ACCEPT}
        if routing.version is not None:
            headers["MCP-Protocol-Version"] = routing.version
        if routing.stateless:
            headers["Mcp-Method"] = routing.method
            if routing.name is not None:
                headers["Mcp-Name"] = routing.name
        if self.session_id is not None:
            headers["Mcp-Session-Id"] = self.session_id
        if self._token is not None:
            headers["Authorization"] = f"Bearer {self._token}"
        return headers

    def _post(self, body: bytes, routing: Routing, timeout: float) -> httpx.Response:
        try:
            return self.http.post(self.url, content=body, headers=self.headers(routing), timeout=timeout)
        except httpx.HTTPError as exc:
            raise TransportError(f"{routing.method}: {type(exc).__name__}: {exc}") from exc

    def request(self, body: bytes, routing: Routing, timeout: float) -> dict[str, Any]:
        response = self._post(body, routing, timeout)
        try:
            messages = parse_messages(response)
        except ValueError as exc:
            raise TransportError(
                f"{routing.method}: HTTP {response.status_code}, undecodable body: {exc}"
            ) from exc
        for message in messages:
            if isinstance(message, dict) and message.get("id") == routing.id and "method" not in message:
                if routing.method == "initialize" and "mcp-session-id" in response.headers:
                    self.session_id = response.headers["mcp-session-id"]
                return message
            self.notifications.append(message)
        ctype = response.headers.get("content-type", "no content-type")
        raise TransportError(
            f"{routing.method}: HTTP {response.status_code} ({ctype}) without a response to request "
            f"{routing.id}: {response.text[:300]!r}"
        )

    def relay(self, body: bytes, routing: Routing) -> Iterator[str]:
        """The text of each JSON-RPC message the server sends back for `body`, unchanged, as it arrives: the one JSON
        body, or each SSE event as soon as it ends (a run's progress while it runs). A stream may stay open and quiet
        for as long as a run lasts: no read timeout. Keeps the session id `initialize` returns. TransportError when the
        server cannot be reached; HttpRefusal for an HTTP error status without a JSON-RPC message."""
        timeout = httpx.Timeout(CONNECT_TIMEOUT_S, read=None)
        try:
            with self.http.stream("POST", self.url, content=body, headers=self.headers(routing), timeout=timeout) as response:
                if routing.method == "initialize" and "mcp-session-id" in response.headers:
                    self.session_id = response.headers["mcp-session-id"]
                if _is_event_stream(response):
                    yield from _events(response)
                    return
                text = response.read().decode("utf-8", errors="replace").strip()
        except httpx.HTTPError as exc:
            raise TransportError(f"{routing.method}: {type(exc).__name__}: {exc}") from exc
        if _is_jsonrpc(text):
            yield text
        elif response.status_code >= 400:
            raise HttpRefusal(response.status_code, text)

    def listen(self, version: str) -> Iterator[str]:
        """The text of each message on the handshake session's own event stream (GET), as it arrives: what the server
        sends outside any request (a subscribed resource's updates). Nothing when the server offers no such stream
        (405, or any other answer); TransportError when it cannot be reached."""
        headers = {"Accept": "text/event-stream", "MCP-Protocol-Version": version}
        if self.session_id is not None:
            headers["Mcp-Session-Id"] = self.session_id
        if self._token is not None:
            headers["Authorization"] = f"Bearer {self._token}"
        try:
            with self.http.stream("GET", self.url, headers=headers, timeout=httpx.Timeout(CONNECT_TIMEOUT_S, read=None)) as response:
                if response.status_code == 200 and _is_event_stream(response):
                    yield from _events(response)
        except httpx.HTTPError as exc:
            raise TransportError(f"GET {self.url}: {type(exc).__name__}: {exc}") from exc

    def notify(self, body: bytes, routing: Routing) -> None:
        response = self._post(body, routing, timeout=30)
        if response.status_code not in (200, 202, 204):
            raise TransportError(f"{routing.method}: HTTP {response.status_code}: {response.text[:300]!r}")

    def close(self) -> None:
        """End a handshake session (DELETE, best effort), then the HTTP client we own."""
        if self.session_id is not None:
            headers = {"Mcp-Session-Id": self.session_id}
            if self._token is not None:
                headers["Authorization"] = f"Bearer {self._token}"
            with contextlib.suppress(httpx.HTTPError):
                self.http.delete(self.url, headers=headers, timeout=10)
            self.session_id = None
        if self._own_client:
            self.http.close()
