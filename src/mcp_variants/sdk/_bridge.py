"""The 2026-12-01 bridge: the workaround for the SDK's protocol versions. The SDK's other gaps are worked around
where they bite: _sessions.py (no eviction at the session cap), _stdio_era.py (a stdio connection's era fixed by
whatever request comes first), _serve.lowlevel_server (MCPServer's low-level server is private).

mcp 2.3.0 knows protocol versions up to 2026-07-28. It answers 2026-12-01 with
-32022 before any handler runs, and it re-validates every result against the
wire model of the request's version, dropping what it does not know
(`outputVariants` on tools, `outputs` on results). This module:

* inbound: presents a 2026-12-01 request to the SDK as 2026-07-28 (envelope and
  `MCP-Protocol-Version` header), marking it with a private `_meta` key that no
  client can forge (any incoming copy is removed first);
* handlers: for a marked request, `tunnel()` hides the real result inside the
  result's `_meta`, where the SDK keeps it untouched;
* outbound: `unwrap_result()` puts the real result back on the wire, and every -32022
  error names all the versions this server serves.

Delete this module when the SDK serves 2026-12-01 itself: knows the version,
passes `requestedOutputs` through typed params, and keeps `outputVariants` on
Tool and `outputs` on CallToolResult (docs/sdk-change.md is that change, and
tests/sdk/test_patched_sdk.py runs the conformance suite on an SDK patched so).
Until then `needed()` says whether the installed SDK is one that needs it: the
transports (_serve.py) bridge only then, and `_requests.finish` tunnels only a
result the SDK would sieve as another version's.

The rewriting does no I/O (decoded messages, changed in place); sdk/_stdio.py applies it to each
message as it crosses, and the ASGI middleware (`BridgeMiddleware`) to each HTTP body. Wire tests
cover both transports.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any, Final

import orjson
from mcp.shared.message import SessionMessage
from mcp_types import JSONRPCError, JSONRPCRequest, JSONRPCResponse
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from ..protocol.jsonrpc import INVALID_REQUEST, Batch, Kind, Refusal, check_bytes, dumps, peek_id, refuse_batch
from ..protocol.versions import HANDSHAKE_VERSIONS, OUTPUTS_VERSION, STATELESS_VERSIONS, SUPPORTED_VERSIONS

SDK_VERSION: Final[str] = "2026-07-28"
VERSION_KEY: Final[str] = "io.modelcontextprotocol/protocolVersion"
MARKER_KEY: Final[str] = "io.github.mcp-variants/bridged"
TUNNEL_KEY: Final[str] = "io.github.mcp-variants/tunnel"
UNSUPPORTED_PROTOCOL_VERSION: Final[int] = -32022
HEADER_MISMATCH: Final[int] = -32020
_TASK_METHODS: Final[frozenset[str]] = frozenset({"tasks/get", "tasks/update", "tasks/cancel"})
_PLACEHOLDERS: Final[dict[str, dict[str, Any]]] = {"tools/call": {"content": []}, "tools/list": {"tools": []}}
# Keys the SDK adds to a result that the real result keeps.
_SDK_ENVELOPE_KEYS: Final[tuple[str, ...]] = ("resultType", "ttlMs", "cacheScope")


def needed() -> bool:
    """True while the installed SDK does not serve 2026-12-01 itself (mcp 2.3.0 knows versions up to 2026-07-28)."""
    return OUTPUTS_VERSION not in MODERN_PROTOCOL_VERSIONS


# ---- pure rewriting -------------------------------------------------------------------------


def rewrite_request(params: dict[str, Any] | None, header_version: str | None = None) -> str | None:
    """Present a 2026-12-01 request as 2026-07-28, in place. Returns the header to forward.

    A header that disagrees with the body is left as it is, so the SDK still answers
    the mismatch with -32020.
    """
    if not isinstance(params, dict):
        return header_version
    meta = params.get("_meta")
    if not isinstance(meta, dict):
        return header_version
    meta.pop(MARKER_KEY, None)
    if meta.get(VERSION_KEY) != OUTPUTS_VERSION or header_version not in (None, OUTPUTS_VERSION):
        return header_version
    meta[VERSION_KEY] = SDK_VERSION
    meta[MARKER_KEY] = True
    return SDK_VERSION if header_version is not None else None


def is_outputs_request(params: Any) -> bool:
    """True when the bridge admitted this request as 2026-12-01."""
    meta = params.get("_meta") if isinstance(params, dict) else None
    return isinstance(meta, dict) and meta.get(MARKER_KEY) is True


def tunnel(method: str, result: dict[str, Any]) -> dict[str, Any]:
    """A result the SDK will accept at 2026-07-28, carrying the real one for `unwrap_result`."""
    return {**_PLACEHOLDERS[method], "_meta": {TUNNEL_KEY: result}}


def unwrap_result(result: dict[str, Any]) -> dict[str, Any]:
    """The real result of a tunnelled response, with the SDK's envelope keys kept."""
    meta = result.get("_meta")
    if not isinstance(meta, dict) or TUNNEL_KEY not in meta:
        return result
    sdk_meta = {k: v for k, v in meta.items() if k != TUNNEL_KEY}
    real = dict(meta[TUNNEL_KEY])
    for key in _SDK_ENVELOPE_KEYS:
        if key in result and key not in real:
            real[key] = result[key]
    merged_meta = {**sdk_meta, **(real.get("_meta") or {})}
    if merged_meta:
        real["_meta"] = merged_meta
    return real


def rewrite_error(error: dict[str, Any]) -> None:
    """-32022 names every version this server serves, 2026-12-01 included, in place."""
    if error.get("code") == UNSUPPORTED_PROTOCOL_VERSION:
        data = error.get("data")
        error["data"] = {**(data if isinstance(data, dict) else {}), "supported": list(SUPPORTED_VERSIONS)}


def rewrite_response(message: dict[str, Any]) -> dict[str, Any]:
    """Outbound rewrite of one decoded JSON-RPC message."""
    if isinstance(message.get("result"), dict):
        message["result"] = unwrap_result(message["result"])
    elif isinstance(message.get("error"), dict):
        rewrite_error(message["error"])
    return message


# ---- stdio: applied by sdk/_stdio.py to each message as it crosses ----------------------------


def bridge_inbound(item: SessionMessage | Exception) -> SessionMessage | Exception:
    """A message read from the client, as the SDK should see it."""
    if isinstance(item, SessionMessage) and isinstance(item.message, JSONRPCRequest):
        rewrite_request(item.message.params)
    return item


def bridge_outbound(item: SessionMessage) -> SessionMessage:
    """A message the SDK wrote, as the client should see it."""
    message = item.message
    if isinstance(message, JSONRPCResponse):
        message.result = unwrap_result(message.result)
    elif isinstance(message, JSONRPCError) and message.error.code == UNSUPPORTED_PROTOCOL_VERSION:
        error = message.error.model_dump(mode="json")
        rewrite_error(error)
        message.error.data = error["data"]
    return item


# ---- streamable HTTP --------------------------------------------------------------------------

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

DEFAULT_MAX_MESSAGE_BYTES: Final[int] = 4 * 1024 * 1024  # a stdio line, an HTTP body: the SDK's own limit for a body
_HEADER: Final[bytes] = b"mcp-protocol-version"
_NEEDLES: Final[tuple[bytes, ...]] = (TUNNEL_KEY.encode(), str(UNSUPPORTED_PROTOCOL_VERSION).encode())
_NULL_ID: Final[bytes] = b'"id":null'
_EVENT_ENDS: Final[tuple[bytes, ...]] = (b"\n\n", b"\r\n\r\n", b"\r\r")


class BridgeMiddleware:
    """ASGI middleware applying the same rewriting to streamable HTTP POSTs.

    It reads each POST body, so it also keeps the body within `max_body_bytes` (413 at once
    when Content-Length says more; otherwise reading stops at the limit: memory stays
    constant whatever a client sends) and answers, as stdio does, every body that is no
    message the SDK would answer (protocol/jsonrpc.py); a batch is refused (400, -32600):
    the SDK's HTTP transport takes one message per POST. With `rewrite=False` (an SDK that
    serves 2026-12-01 itself) only those checks remain, and the request id put on the SDK's
    anonymous errors: no request or response is rewritten.
    """

    def __init__(self, app: ASGIApp, max_body_bytes: int = DEFAULT_MAX_MESSAGE_BYTES, *, rewrite: bool = True) -> None:
        self.app = app
        self.max_body_bytes = max_body_bytes
        self.rewrite = rewrite

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method") != "POST":
            # A GET stream replays stored events (Last-Event-ID) as the SDK wrote them: tunnelled results too.
            await self.app(scope, receive, _OutboundRewriter(send) if scope["type"] == "http" else send)
            return
        body = await self._read_body(scope, receive)
        if body is None:
            return  # the client went away while sending
        if isinstance(body, Refusal):  # and close the connection: the rest of the body is never read
            await _answer(send, 413, body.response(), close=True)
            return
        checked = check_bytes(body)
        if isinstance(checked, Batch):
            await _answer(send, 400, refuse_batch(checked, "Invalid Request: JSON-RPC batches are not served over streamable HTTP"))
            return
        if isinstance(checked, Refusal):
            await _answer(send, 400, checked.response())
            return
        mismatch = _task_name_mismatch(checked.body, scope["headers"])
        if mismatch is not None:
            await _answer(send, 400, mismatch.response())
            return
        if self.rewrite:
            if checked.kind is Kind.REQUEST and (unrouted := _unrouted(checked.body, scope["headers"], checked.id)) is not None:
                await _answer(send, 400, unrouted.response())
                return
            body, scope = self._rewrite_inbound(checked.body, body, scope)
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
            await self.app(scope, replay, _OutboundRewriter(send, checked.id if checked.kind is Kind.REQUEST else None, self.rewrite))
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

    @staticmethod
    def _rewrite_inbound(decoded: dict[str, Any], body: bytes, scope: Scope) -> tuple[bytes, Scope]:
        """The body and scope the SDK gets for a request: bridged when it is a 2026-12-01 one, else as they came."""
        if not isinstance(decoded.get("params"), dict):
            return body, scope  # the SDK answers what is not a request
        headers = scope["headers"]
        versions = [v.decode("latin-1") for k, v in headers if k == _HEADER]
        if len(versions) > 1:
            return body, scope  # the SDK refuses a repeated routing header with -32020
        header = versions[0] if versions else None
        meta = decoded["params"].get("_meta")
        before = dict(meta) if isinstance(meta, dict) else None
        forwarded = rewrite_request(decoded["params"], header)
        if before == decoded["params"].get("_meta") and forwarded == header:
            return body, scope
        new_headers = [(k, v) for k, v in headers if k not in (_HEADER, b"content-length")]
        if forwarded is not None:
            new_headers.append((_HEADER, forwarded.encode("latin-1")))
        body = dumps(decoded)
        new_headers.append((b"content-length", str(len(body)).encode()))
        return body, {**scope, "headers": new_headers}


def _unrouted(decoded: dict[str, Any], headers: list[tuple[bytes, bytes]], request_id: Any) -> Refusal | None:
    """A stateless-era request (its `_meta` names 2026-07-28 or later) whose MCP-Protocol-Version header is missing
    or names a handshake-era version: the SDK routes by the header, so it would take it for a handshake-era request,
    answer "Missing session ID" and open a session. The refusal names the header instead."""
    params = decoded.get("params")
    meta = params.get("_meta") if isinstance(params, dict) else None
    version = meta.get(VERSION_KEY) if isinstance(meta, dict) else None
    given = [v.decode("latin-1") for k, v in headers if k == _HEADER]
    stateless = isinstance(version, str) and version in STATELESS_VERSIONS
    if not stateless or len(given) > 1 or (given and given[0] not in HANDSHAKE_VERSIONS):
        return None  # the SDK answers the rest (a mismatch between stateless versions, a repeated header: -32020)
    said = f"says {given[0]}" if given else "is missing"
    return Refusal(request_id, HEADER_MISMATCH,
                   f"Bad Request: the MCP-Protocol-Version header {said}; a request whose params._meta names protocol "
                   f"version {version} carries the header MCP-Protocol-Version: {version}",
                   {"header": "MCP-Protocol-Version", "expected": version, "received": given[0] if given else None})


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


async def _answer(send: Send, status: int, message: Any, close: bool = False) -> None:
    body = dumps(message)
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    if close:
        headers.append((b"connection", b"close"))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body, "more_body": False})


class _OutboundRewriter:
    """Rewrites a JSON response whole, or an SSE stream event by event (an event split across chunks is held
    until it is complete)."""

    def __init__(self, send: Send, request_id: Any = None, rewrite: bool = True) -> None:
        self._send = send
        self._request_id = request_id  # the SDK answers some transport errors (no session...) with id null
        self._rewrite = rewrite  # False: only that id is put right
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
            body = _rewrite_json_body(b"".join(self._parts), self._request_id, self._rewrite)
            assert self._start is not None
            headers = [(k, v) for k, v in self._start.get("headers", []) if k != b"content-length"]
            headers.append((b"content-length", str(len(body)).encode()))
            await self._send({**self._start, "headers": headers})
            await self._send({"type": "http.response.body", "body": body, "more_body": False})
            return
        if not self._rewrite:
            await self._send(message)
            return
        events = self._events.feed(message.get("body", b""))
        if not more:
            events += self._events.rest()
        if events or not more:
            await self._send({**message, "body": _rewrite_sse_events(events)})


class SseEvents:
    """Cuts an event stream into whole events (each ends with a blank line), in linear time."""

    def __init__(self) -> None:
        self._pending = bytearray()

    def feed(self, chunk: bytes) -> bytes:
        """The events `chunk` completes; the bytes of an unfinished one are kept."""
        scan_from = max(0, len(self._pending) - 3)  # an end may straddle the two
        self._pending += chunk
        end = max(_end_after(self._pending, mark, scan_from) for mark in _EVENT_ENDS)
        if end == 0:
            return b""
        events = bytes(self._pending[:end])
        del self._pending[:end]
        return events

    def rest(self) -> bytes:
        """At the end of the stream: what is left."""
        rest = bytes(self._pending)
        self._pending.clear()
        return rest


def _end_after(buffer: bytearray, mark: bytes, start: int) -> int:
    at = buffer.rfind(mark, start)
    return at + len(mark) if at >= 0 else 0


def _rewrite_json_body(body: bytes, request_id: Any = None, rewrite: bool = True) -> bytes:
    """A JSON response as the client should see it; an error with id null gets `request_id` (the request's own,
    which the SDK did not read) when there is one. `rewrite=False`: that id only."""
    anonymous = request_id is not None and _NULL_ID in body
    if not anonymous and not (rewrite and any(needle in body for needle in _NEEDLES)):
        return body
    try:
        decoded = orjson.loads(body)
    except orjson.JSONDecodeError:
        return body
    if not isinstance(decoded, dict):
        return body
    if anonymous and "error" in decoded and decoded.get("id") is None:
        decoded["id"] = request_id
    return dumps(rewrite_response(decoded) if rewrite else decoded)


def _rewrite_sse_events(events: bytes) -> bytes:
    if not any(needle in events for needle in _NEEDLES):
        return events
    lines = events.split(b"\n")
    for i, line in enumerate(lines):
        if line.startswith(b"data:"):
            payload = line[5:].strip()
            end = b"\r" if line.endswith(b"\r") else b""
            lines[i] = b"data: " + _rewrite_json_body(payload) + end
    return b"\n".join(lines)


__all__ = [
    "BridgeMiddleware",
    "is_outputs_request",
    "rewrite_request",
    "rewrite_response",
    "bridge_inbound",
    "bridge_outbound",
    "needed",
    "tunnel",
    "unwrap_result",
]

