"""Streamable HTTP: loopback by default, bearer token required anywhere else, and limits fit for a personal server."""

from __future__ import annotations

import hmac
import ipaddress
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from mcp.server.auth.provider import TokenVerifier
from mcp.server.auth.settings import AuthSettings
from mcp.server.lowlevel import Server
from mcp.server.mcpserver import MCPServer
from mcp.server.transport_security import TransportSecuritySettings

from ._events import DEFAULT_MAX_EVENTS, DEFAULT_RETRY_MS, MemoryEventStore
from ._guard import DEFAULT_MAX_MESSAGE_BYTES, InboundStep, MessageGuard
from ._sessions import evict_idle_at_cap

LOOPBACK_NAMES = {"localhost"}


def is_loopback(host: str) -> bool:
    """True for an address only this machine reaches: `localhost`, 127.0.0.0/8, ::1 (an IPv6 one in brackets too)."""
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


class InsecureBinding(SystemExit):
    """A server asked to listen beyond loopback without a bearer token: the message says what to set."""


TOKEN_VARIABLE = "MCP_VARIANTS_TOKEN"
"""Where `cli` (either layer's) reads the bearer token when `--token` is not given: the environment keeps it off `ps`."""


def check_binding(host: str, token: str | None) -> None:
    """Refuse to serve beyond loopback without a token, and say why."""
    if not is_loopback(host) and not token:
        raise InsecureBinding(
            f"refusing to listen on {host}: beyond loopback the server needs a bearer token. "
            f"Set --token or {TOKEN_VARIABLE}, or bind 127.0.0.1."
        )


class BearerAuth:
    """Every request must carry `Authorization: Bearer <token>`; compared in constant time."""

    def __init__(self, app: Any, token: str) -> None:
        self.app = app
        self._expected = f"Bearer {token}".encode()

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            given = dict(scope["headers"]).get(b"authorization", b"")
            if not hmac.compare_digest(given, self._expected):
                await send({"type": "http.response.start", "status": 401, "headers": [
                    (b"content-type", b"application/json"), (b"www-authenticate", b'Bearer realm="mcp-variants"')]})
                await send({"type": "http.response.body", "body": b'{"error":"missing or wrong bearer token"}'})
                return
        await self.app(scope, receive, send)


@dataclass(frozen=True)
class HttpLimits:
    """What one client may hold over streamable HTTP. `HttpLimits()` is the SDK's own defaults (a 4 MiB body,
    sessions idle for 30 minutes, 10,000 of them) and uvicorn's (no read deadline, no connection cap): a server moved
    onto this API serves as it did. `HttpLimits.personal()` is what the Jupyter server runs with, fit for one person's
    clients (docs/reference/security.md): the SDK's defaults let a client that never ends its sessions pin 1.6 GB.
    Give either, or your own, to `run(..., limits=...)`, `serve_http` or `streamable_http_app`."""

    max_body_bytes: int = DEFAULT_MAX_MESSAGE_BYTES
    session_idle_timeout: float | None = 1800.0  # seconds without a request in flight or an open GET stream; None: never
    max_sessions: int | None = 10_000  # None: no cap
    read_timeout: float | None = None  # for a request's headers, and between pieces of its body (_connections.py)
    max_connections: int | None = None  # open at once; over it, the one waiting longest for a request is closed
    max_events: int = DEFAULT_MAX_EVENTS  # SSE events kept for a stream resumed with Last-Event-ID (_events.py)
    retry_ms: int = DEFAULT_RETRY_MS  # the SSE `retry` field each stream's priming event carries

    @classmethod
    def personal(cls) -> HttpLimits:
        """Limits for one person's clients: sessions idle 10 minutes, 100 of them, a request's headers and each
        piece of its body within 10 s, 200 connections."""
        return cls(session_idle_timeout=600.0, max_sessions=100, read_timeout=10.0, max_connections=200)


def host_patterns(host: str, allowed_hosts: Sequence[str] = ()) -> list[str]:
    """The Host headers served: loopback, the bind address unless it is a wildcard one (0.0.0.0 and :: are
    nobody's Host), and each allowed host, with or without a port (`name` takes `name` and `name:*`)."""
    patterns = ["127.0.0.1:*", "localhost:*", "[::1]:*"]
    if not is_loopback(host) and host not in ("0.0.0.0", "::"):
        patterns.append(f"{host}:*")
    for name in allowed_hosts:
        patterns += [name] if name.endswith(("]", ":*")) or name.rsplit(":", 1)[-1].isdigit() else [name, f"{name}:*"]
    return patterns


class HostHint:
    """The SDK refuses a Host it does not serve with a bare 421 "Invalid Host header": say which option serves it."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        hint = _host_hint(dict(scope["headers"]).get(b"host", b"").decode("latin-1"))
        refused = False

        async def send_hinted(message: Any) -> None:
            nonlocal refused
            if message["type"] == "http.response.start" and message["status"] == 421:
                refused = True
                headers = [(k, v) for k, v in message.get("headers", []) if k != b"content-length"]
                message = {**message, "headers": [*headers, (b"content-length", str(len(hint)).encode())]}
            elif refused and message["type"] == "http.response.body":
                message = {**message, "body": hint, "more_body": False}
            await send(message)

        await self.app(scope, receive, send_hinted)


def _host_hint(host: str) -> bytes:
    name = host.rsplit(":", 1)[0] if not host.endswith("]") else host
    return (f"Invalid Host header: {host!r} is not a name this server answers to (DNS-rebinding protection). "
            f"Serve it with --allowed-host {name or 'NAME'} (or MCP_VARIANTS_ALLOWED_HOSTS).").encode()


def build_http_app(server: MCPServer[Any] | Server[Any], host: str, token: str | None, limits: HttpLimits = HttpLimits(),
                   allowed_hosts: Sequence[str] = (), *, bridge: bool = True, dns_rebinding_protection: bool = True,
                   token_verifier: TokenVerifier | None = None, auth: AuthSettings | None = None) -> Any:
    """The SDK's Starlette app (resumable SSE streams; DNS-rebinding protection on, unless the host in front checks
    Host and Origin itself), behind the message guard (_guard.py), with the 2026-12-01 bridge as its inbound step
    only when `bridge` is True, and auth: one bearer
    `token`, or the SDK's own bearer middleware with `token_verifier` (and its `auth` settings), which makes each
    request's principal the token's."""
    allowed = host_patterns(host, allowed_hosts)
    security = TransportSecuritySettings(
        enable_dns_rebinding_protection=dns_rebinding_protection,
        allowed_hosts=allowed,
        allowed_origins=[f"{scheme}://{h}" for h in allowed for scheme in ("http", "https")],
    )
    options: dict[str, Any] = dict(
        streamable_http_path="/mcp", host=host, transport_security=security, max_request_body_size=limits.max_body_bytes,
        session_idle_timeout=limits.session_idle_timeout, max_sessions=limits.max_sessions,
        event_store=MemoryEventStore(limits.max_events), retry_interval=limits.retry_ms)
    if token_verifier is not None:
        if isinstance(server, MCPServer):  # its own constructor takes them, and its app applies them
            raise TypeError("an MCPServer takes its token_verifier and auth settings in its constructor, not here")
        options.update(token_verifier=token_verifier, auth=auth)
    app: Any = server.streamable_http_app(**options)
    evict_idle_at_cap(server.session_manager)  # at the cap, not a 503 for everyone: _sessions.py
    app = MessageGuard(app, limits.max_body_bytes, inbound=bridge_step() if bridge else None)
    if dns_rebinding_protection:
        app = HostHint(app)
    if token:
        app = BearerAuth(app, token)
    return app


def bridge_step() -> InboundStep:
    """The 2026-12-01 bridge as the guard's inbound step; its module imported only here, only when it is needed."""
    from ._bridge import rewrite_http_request

    return rewrite_http_request
