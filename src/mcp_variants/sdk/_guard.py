"""The message guard: what every message must be before the SDK sees it, on both transports, for good.

- the message limit (`DEFAULT_MAX_MESSAGE_BYTES`): a stdio line (_lines.py) or an HTTP body. A body declared larger
  is a 413 at once; one that grows larger is cut off as it arrives, so memory stays constant whatever a client sends;
- each body checked as JSON-RPC (protocol/jsonrpc.py) and answered, -32600 or -32700, when it is no message the SDK
  would answer (the SDK drops what it cannot parse without a word);
- a batch refused (400, -32600): the SDK's HTTP transport takes one message per POST;
- a tasks/* request whose Mcp-Name header disagrees with its `taskId` refused (-32020; mcp 2.3.0 checks the header
  for tools/call, prompts/get and resources/read only);
- on the way out, the request's id on the SDK's anonymous transport errors, and each answer `as_sent` (_tunnel.py):
  a tunnelled result opened, a -32022 naming every served version.

`MessageGuard` is the streamable HTTP half, as ASGI middleware; stdio applies the same rules in _stdio.py. The
2026-12-01 bridge, where the SDK needs it, is one more `inbound` step (_bridge.rewrite_http_request), never a
condition of these checks.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

import orjson
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..protocol.jsonrpc import INVALID_REQUEST, Batch, JsonRpcMessage, Kind, Refusal, check_bytes, dumps, peek_id, refuse_batch
from ..protocol.versions import HEADER_MISMATCH
from ..sse import SseEvents
from ._tunnel import NEEDLES, as_sent

DEFAULT_MAX_MESSAGE_BYTES: Final[int] = 4 * 1024 * 1024
"""The largest message taken, a stdio line or an HTTP body (4 MiB): the SDK's own limit for a body."""
_TASK_METHODS: Final[frozenset[str]] = frozenset({"tasks/get", "tasks/update", "tasks/cancel"})
_NULL_ID: Final[bytes] = b'"id":null'

InboundStep = Callable[[JsonRpcMessage, bytes, Scope], "tuple[bytes, Scope] | Refusal"]
"""One more step for a checked message before the SDK gets it: the body and scope to pass on, or a refusal (400)."""


class MessageGuard:
    """ASGI middleware in front of the SDK's streamable HTTP app: each POST body within `max_body_bytes`, checked as
    one JSON-RPC message, its task headers checked, then `inbound` (if any) applied; each answer as sent."""

    def __init__(self, app: ASGIApp, max_body_bytes: int = DEFAULT_MAX_MESSAGE_BYTES, inbound: InboundStep | None = None) -> None:
        self.app = app
        self.max_body_bytes = max_body_bytes
        self.inbound = inbound

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method") != "POST":
            # A GET stream replays stored events (Last-Event-ID) as the SDK wrote them: tunnelled results too.
            await self.app(scope, receive, _AsSent(send) if scope["type"] == "http" else send)
            return
        body = await self._read_body(scope, receive)
        if body is None:
            return  # the client went away while sending
        if isinstance(body, Refusal):  # and close the connection: the rest of the body is never read
            await answer_json(send, 413, body.response(), close=True)
            return
        checked = check_bytes(body)
        if isinstance(checked, Batch):
            await answer_json(send, 400, refuse_batch(checked, "Invalid Request: JSON-RPC batches are not served over streamable HTTP"))
            return
        if isinstance(checked, Refusal):
            await answer_json(send, 400, checked.response())
            return
        mismatch = _task_name_mismatch(checked.body, scope["headers"])
        if mismatch is not None:
            await answer_json(send, 400, mismatch.response())
            return
        if self.inbound is not None:
            passed = self.inbound(checked, body, scope)
            if isinstance(passed, Refusal):
                await answer_json(send, 400, passed.response())
                return
            body, scope = passed
        delivered = False
        upstream: Receive | None = receive

        async def replay() -> Message:
            nonlocal delivered
            if not delivered:
                delivered = True
                return {"type": "http.request", "body": body, "more_body": False}
            if upstream is None:
                return {"type": "http.disconnect"}  # what uvicorn answers once the response is complete
            message: Message = await upstream()
            return message

        try:
            await self.app(scope, replay, _AsSent(send, checked.id if checked.kind is Kind.REQUEST else None))
        finally:
            # The SDK keeps a session's last message, its request and so this `replay`, until the next message: cut off
            # from uvicorn's `receive`, it keeps no more of the connection (its cycle, h11 state, socket).
            upstream = None

    async def _read_body(self, scope: Scope, receive: Receive) -> bytes | Refusal | None:
        """The whole body, a refusal once it is known to be too large (nothing more is read), or None on a disconnect."""
        limit = self.max_body_bytes
        declared = next((v for k, v in scope["headers"] if k == b"content-length"), b"")
        if declared.isdigit() and int(declared) > limit:
            return _too_large(int(declared), limit, None)
        parts: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return None
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > limit:
                return _too_large(size, limit, peek_id((b"".join(parts) + chunk)[:4096]))
            parts.append(chunk)
            if not message.get("more_body"):
                return parts[0] if len(parts) == 1 else b"".join(parts)


def _task_name_mismatch(decoded: dict[str, Any], headers: Any) -> Refusal | None:
    """SEP-2663 mirrors a tasks/* request's `taskId` in the Mcp-Name header, and a header that disagrees with
    the body is -32020; mcp 2.3.0 checks Mcp-Name for tools/call, prompts/get and resources/read only."""
    params = decoded.get("params")
    if decoded.get("method") not in _TASK_METHODS or not isinstance(params, dict):
        return None
    given = next((v.decode("latin-1") for k, v in headers if k == b"mcp-name"), None)
    if given is None or given == params.get("taskId"):
        return None
    return Refusal(decoded.get("id"), HEADER_MISMATCH, "Mcp-Name header does not match the request body's 'taskId' parameter")


def _too_large(size: int, limit: int, request_id: Any) -> Refusal:
    return Refusal(request_id, INVALID_REQUEST,
                   f"Invalid Request: the body is {size:,} bytes or more; this server takes at most {limit:,} (--max-message-bytes)",
                   {"limit": limit})


async def answer_json(send: Send, status: int, message: Any, close: bool = False) -> None:
    """One JSON-RPC answer, whole, with `status` (and `Connection: close` when the rest of the body is left unread)."""
    body = dumps(message)
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    if close:
        headers.append((b"connection", b"close"))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body, "more_body": False})


class _AsSent:
    """Each answer as sent: a JSON response whole, or an SSE stream event by event (an event split across chunks is
    held until it is complete)."""

    def __init__(self, send: Send, request_id: Any = None) -> None:
        self._send = send
        self._request_id = request_id  # the SDK answers some transport errors (no session...) with id null
        self._start: Message | None = None
        self._json = False
        self._parts: list[bytes] = []
        self._events = SseEvents()

    async def __call__(self, message: Message) -> None:
        if message["type"] == "http.response.start":
            content_type = dict(message.get("headers", [])).get(b"content-type", b"")
            self._json = content_type.startswith(b"application/json")
            if self._json:
                self._start = message  # held until the body's length is known
                return
            await self._send(message)
            return
        if message["type"] != "http.response.body":
            await self._send(message)
            return
        more = bool(message.get("more_body"))
        if self._json:
            self._parts.append(message.get("body", b""))
            if more:
                return
            body = _json_body_as_sent(b"".join(self._parts), self._request_id)
            assert self._start is not None
            headers = [(k, v) for k, v in self._start.get("headers", []) if k != b"content-length"]
            headers.append((b"content-length", str(len(body)).encode()))
            await self._send({**self._start, "headers": headers})
            await self._send({"type": "http.response.body", "body": body, "more_body": False})
            return
        events = self._events.feed(message.get("body", b""))
        if not more:
            events += self._events.rest()
        if events or not more:
            await self._send({**message, "body": _sse_events_as_sent(events)})


def _json_body_as_sent(body: bytes, request_id: Any = None) -> bytes:
    """A JSON response as the client gets it; an error with id null gets `request_id` (the request's own, which the
    SDK did not read) when there is one."""
    anonymous = request_id is not None and _NULL_ID in body
    if not anonymous and not any(needle in body for needle in NEEDLES):
        return body
    try:
        decoded = orjson.loads(body)
    except orjson.JSONDecodeError:
        return body
    if not isinstance(decoded, dict):
        return body
    if anonymous and "error" in decoded and decoded.get("id") is None:
        decoded["id"] = request_id
    return dumps(as_sent(decoded))


def _sse_events_as_sent(events: bytes) -> bytes:
    if not any(needle in events for needle in NEEDLES):
        return events
    lines = events.split(b"\n")
    for i, line in enumerate(lines):
        if line.startswith(b"data:"):
            payload = line[5:].strip()
            end = b"\r" if line.endswith(b"\r") else b""
            lines[i] = b"data: " + _json_body_as_sent(payload) + end
    return b"\n".join(lines)
