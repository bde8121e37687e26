"""The Python half of the browser tests' MCP Apps host.

Two loopback HTTP servers (two ports, so two origins, as MCP Apps requires of a web host):

* the host origin serves the host page (apps/harness/host.ts, with the official AppBridge)
  and its API: `POST /api/call/<scenario>` makes the scenario's tool call through the
  reference client (`AppsHost.call`, Apps mode, the real server) and answers with what the
  model got, the view's HTML (resources/read) and the `ui/notifications/tool-result` params
  built from the router's view sink; `POST /api/view-call/<scenario>` passes a tools/call
  from the view through `AppsHost.call_from_view` (visibility rules, ui output only);
* the sandbox origin serves the sandbox proxy page with a Content-Security-Policy built
  from the view's declared `_meta.ui.csp`; the view's iframe inherits it.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlparse

from mcp_variants.client import ClientError, ServerError
from mcp_variants.client.apps_host import AppsCall, AppsHost, ViewCallRefused


def csp_header(csp: Mapping[str, Any]) -> str:
    """MCP Apps' restrictive default, widened only by the domains the view declared."""

    def domains(key: str) -> str:
        value = csp.get(key)
        return " ".join(str(d) for d in value) if isinstance(value, list) else ""

    res = domains("resourceDomains")
    return "; ".join(
        [
            "default-src 'none'",
            f"script-src 'self' 'unsafe-inline' {res}".strip(),
            f"style-src 'self' 'unsafe-inline' {res}".strip(),
            f"img-src 'self' data: {res}".strip(),
            f"font-src 'self' data: {res}".strip(),
            f"media-src 'self' data: {res}".strip(),
            f"connect-src {domains('connectDomains') or chr(39) + 'none' + chr(39)}",
            f"frame-src {domains('frameDomains') or chr(39) + 'none' + chr(39)}",
            f"base-uri {domains('baseUriDomains') or chr(39) + 'self' + chr(39)}",
            "object-src 'none'",
            "form-action 'none'",
        ]
    )


@dataclass
class Scenario:
    host: str  # key of the AppsHost (one per protocol version)
    tool: str
    arguments: dict[str, Any]


@dataclass
class ViewCall:
    scenario: str
    name: str
    arguments: dict[str, Any]
    result: dict[str, Any] | None = None
    error: str | None = None


@dataclass
class HostState:
    pages: Path  # host.html and sandbox.html, built from apps/harness
    hosts: dict[str, AppsHost]
    scenarios: dict[str, Scenario]
    calls: dict[str, AppsCall] = field(default_factory=dict)
    view_calls: list[ViewCall] = field(default_factory=list)
    csp_served: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)  # one request at a time per session


def call_payload(call: AppsCall, host: AppsHost, version: str) -> dict[str, Any]:
    view = None
    if call.view_uri is not None and call.tool_result is not None:
        resource = host.load_view(call.view_uri)
        view = {"uri": resource.uri, "html": resource.html, "csp": dict(resource.csp)}
    return {
        "version": version,
        "tool": dict(call.tool),
        "arguments": dict(call.arguments),
        "model": [block for delivery in call.model for block in delivery.payload],
        "view": view,
        "toolResult": call.tool_result,
    }


def make_handler(state: HostState, role: str) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

        def _send(self, status: int, body: bytes, ctype: str, headers: Mapping[str, str] | None = None) -> None:
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            for key, value in (headers or {}).items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(body)

        def _json(self, value: Any, status: int = 200) -> None:
            self._send(status, json.dumps(value).encode(), "application/json")

        def do_GET(self) -> None:
            url = urlparse(self.path)
            if role == "host" and url.path == "/host.html":
                self._send(200, (state.pages / "host.html").read_bytes(), "text/html; charset=utf-8")
            elif role == "sandbox" and url.path == "/sandbox.html":
                csp = json.loads(parse_qs(url.query).get("csp", ["{}"])[0])
                header = csp_header(csp if isinstance(csp, dict) else {})
                state.csp_served.append(header)
                self._send(200, (state.pages / "sandbox.html").read_bytes(), "text/html; charset=utf-8",
                           {"Content-Security-Policy": header})
            else:
                self._send(HTTPStatus.NOT_FOUND, b"not found", "text/plain")

        def do_POST(self) -> None:
            if role != "host":
                self._send(HTTPStatus.NOT_FOUND, b"not found", "text/plain")
                return
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(length) or b"{}")
            path = urlparse(self.path).path
            if path.startswith("/api/call/"):
                name = unquote(path[len("/api/call/"):])
                scenario = state.scenarios[name]
                host = state.hosts[scenario.host]
                with state.lock:
                    call = host.call(scenario.tool, scenario.arguments)
                    state.calls[name] = call
                    payload = call_payload(call, host, host.session.version)
                self._json(payload)
            elif path.startswith("/api/view-call/"):
                name = unquote(path[len("/api/view-call/"):])
                host = state.hosts[state.scenarios[name].host]
                record = ViewCall(name, str(body.get("name")), dict(body.get("arguments") or {}))
                state.view_calls.append(record)
                try:
                    with state.lock:
                        record.result = host.call_from_view(record.name, record.arguments)
                    self._json({"result": record.result})
                except (ViewCallRefused, ServerError, ClientError) as exc:
                    record.error = str(exc)
                    self._json({"error": {"code": getattr(exc, "code", -32602), "message": str(exc)}})
            else:
                self._send(HTTPStatus.NOT_FOUND, b"not found", "text/plain")

    return Handler


class HostServers:
    """The host origin and the sandbox origin, on two loopback ports, until close()."""

    def __init__(self, state: HostState) -> None:
        self.state = state
        self.servers = {role: ThreadingHTTPServer(("127.0.0.1", 0), make_handler(state, role)) for role in ("host", "sandbox")}
        self.threads = [threading.Thread(target=s.serve_forever, daemon=True) for s in self.servers.values()]
        for thread in self.threads:
            thread.start()

    def origin(self, role: str) -> str:
        return f"http://127.0.0.1:{self.servers[role].server_address[1]}"

    def url(self, scenario: str) -> str:
        return f"{self.origin('host')}/host.html?scenario={scenario}&sandbox={self.origin('sandbox')}"

    def close(self) -> None:
        for server in self.servers.values():
            server.shutdown()
            server.server_close()
        for thread in self.threads:
            thread.join(timeout=10)

