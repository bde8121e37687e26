"""The fixture server of client mode: a small streamable HTTP MCP server on loopback, one per scenario.

It behaves as a conforming SEP-3279 server for the tools a scenario declares, at every
protocol version (initialize for 2024-11-05 ... 2025-11-25; the stateless `_meta` envelope
for 2026-07-28 and 2026-12-01), and records every message the client sends. Its outputs are
canned: each carries its audience's canary (client_scenarios.CANARY), result `_meta` its own.

Where the SEP leaves a server free, it is lenient, so that one client fault shows as one
failing rule: `requestedOutputs` at an older version is ignored, as an older server does;
a duplicate selector is answered once. Undeclared or unnegotiated selectors are -32602.
Scenario switches make it misbehave on purpose: `listUnnegotiated` (lists the ui variant
although server/discover does not advertise the extension), `legacyOutputVariants`
(outputVariants in a legacy listing), a tool with `legacy: true` (listed at 2026-12-01
without outputVariants, and answered with the legacy fields), `annotate` (content blocks
annotated with the other core audience).

Standard library only (http.server), like the rest of the suite's wire code: it judges the
client, so nothing of this project's own server or SDK wiring is in the loop.
"""

from __future__ import annotations

import json
import threading
import uuid
from collections.abc import Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from .client_scenarios import CANARY, LEGACY_AT_NEW_CANARY, LEGACY_CANARY, META_CANARY
from .constants import (
    CAPABILITIES_KEY,
    HANDSHAKE_VERSIONS,
    INVALID_PARAMS,
    LEGACY_VERSIONS,
    OUTPUTS_VERSION,
    STRUCTURED_LEGACY_VERSIONS,
    UI,
    UI_EXTENSIONS,
    UNSUPPORTED_VERSION,
    VERSION_KEY,
)
from .wire_schema import SchemaReport

ALL_VERSIONS = [*LEGACY_VERSIONS, OUTPUTS_VERSION]
SERVER_INFO = {"name": "mcp-variants-check-client-fixture", "version": "1"}


def payload(audience: str, fmt: str, annotate: bool = False) -> Any:
    """The canned payload of one output: content blocks or a structured value, carrying the audience's canary."""
    canary = CANARY[audience]
    if fmt == "content":
        block: dict[str, Any] = {"type": "text", "text": f"{canary}: 37 Globex customer records."}
        if annotate and audience in ("assistant", "user"):
            block["annotations"] = {"audience": ["user" if audience == "assistant" else "assistant"]}
        return [block]
    return {"assistant": {"count": 37, "canary": canary}, "user": [{"name": "Globex Retail", "canary": canary}],
            "programmatic": {"items": ["cust_1042", canary]}, UI: {"rows": [{"name": "Globex Retail", "canary": canary}]}}[audience]


class Fixture:
    """The scenario's server logic: one JSON-RPC message in, one answer out (None for a notification)."""

    def __init__(self, server: Mapping[str, Any], scenario: str = "") -> None:
        self.server = server
        self.scenario = scenario
        self.tools: dict[str, dict[str, Any]] = {t["name"]: t for t in server["tools"]}
        self.sessions: dict[str, str] = {}
        self.received: list[dict[str, Any]] = []  # every message the client sent, in order
        self.schema = SchemaReport()  # 2026-12-01 messages: the client's ("received") and ours ("sent")
        self._lock = threading.Lock()

    def capabilities(self) -> dict[str, Any]:
        return {"tools": {}, **({"extensions": UI_EXTENSIONS} if self.server.get("extensions") else {})}

    def handle(self, message: Any, headers: Mapping[str, str]) -> tuple[dict[str, Any] | None, dict[str, str]]:
        with self._lock:
            self.received.append(message)
        if not isinstance(message, dict) or not isinstance(message.get("method"), str):
            return (_error(None, -32600, "not a JSON-RPC request") if isinstance(message, dict) and "id" in message else None), {}
        params: dict[str, Any] = message["params"] if isinstance(message.get("params"), dict) else {}
        meta: dict[str, Any] = params["_meta"] if isinstance(params.get("_meta"), dict) else {}
        version = meta.get(VERSION_KEY) or self.sessions.get(headers.get("mcp-session-id", "")) or headers.get("mcp-protocol-version")
        extra: dict[str, str] = {}
        if "id" not in message:
            reply = None
        elif message["method"] == "initialize":
            asked = params.get("protocolVersion")
            answered = asked if asked in HANDSHAKE_VERSIONS else "2025-11-25"
            session = uuid.uuid4().hex
            with self._lock:
                self.sessions[session] = answered
            extra["Mcp-Session-Id"] = session
            reply = _result(message, {"protocolVersion": answered, "capabilities": self.capabilities(), "serverInfo": SERVER_INFO})
        elif version not in ALL_VERSIONS:
            reply = _error(message, UNSUPPORTED_VERSION, "Unsupported protocol version",
                           {"supported": ALL_VERSIONS, "requested": str(version)})
        else:
            reply = self.answer(message, params, meta, version)
        if version == OUTPUTS_VERSION:
            self.schema.check("received", f"{self.scenario}: {message['method']} from the client", message)
            if reply is not None:
                self.schema.check("sent", f"{self.scenario}: {message['method']} fixture response", reply, message["method"])
        return reply, extra

    def answer(self, message: dict[str, Any], params: dict[str, Any], meta: dict[str, Any], version: str) -> dict[str, Any]:
        stateless = version not in HANDSHAKE_VERSIONS
        cache = {"ttlMs": 0, "cacheScope": "private"} if stateless else {}
        complete = {"resultType": "complete"} if stateless else {}
        method = message["method"]
        if method == "server/discover":
            return _result(message, {**complete, **cache, "supportedVersions": ALL_VERSIONS, "capabilities": self.capabilities()})
        if method == "ping":
            return _result(message, complete)
        offered = set((meta.get(CAPABILITIES_KEY) or {}).get("extensions") or {}) if stateless else set()
        if method == "tools/list":
            return _result(message, {**complete, **cache, "tools": [self.listed(t, version, offered) for t in self.tools.values()]})
        if method == "tools/call":
            tool = self.tools.get(params.get("name"))  # type: ignore[arg-type]
            if tool is None:
                return _error(message, INVALID_PARAMS, f"unknown tool {params.get('name')!r}", {"available": sorted(self.tools)})
            if version != OUTPUTS_VERSION or tool.get("legacy"):
                return _result(message, {**complete, **self.legacy_result(tool, version)})
            return self.outputs_result(message, tool, params.get("requestedOutputs"), offered)
        return _error(message, -32601, f"Method not found: {method}")

    def negotiated(self, offered: set[str]) -> set[str]:
        """Extensions this request may use: both sides advertised them (or the fixture is told to pretend)."""
        own = {UI} if self.server.get("extensions") or self.server.get("listUnnegotiated") else set()
        return own & offered

    def declared(self, tool: Mapping[str, Any], offered: set[str]) -> list[dict[str, Any]]:
        allowed = self.negotiated(offered)
        return [v for v in tool["outputVariants"] if v["audience"] in ("assistant", "user", "programmatic") or v["audience"] in allowed]

    def listed(self, tool: Mapping[str, Any], version: str, offered: set[str]) -> dict[str, Any]:
        entry = {k: tool[k] for k in ("name", "description", "inputSchema") if k in tool}
        if version == OUTPUTS_VERSION and not tool.get("legacy"):
            return {**entry, "outputVariants": self.declared(tool, offered)}
        schema = next((v["schema"] for v in tool["outputVariants"] if (v["audience"], v["format"]) == ("assistant", "structured")), None)
        if schema is not None and (version in STRUCTURED_LEGACY_VERSIONS or version == OUTPUTS_VERSION):
            entry["outputSchema"] = schema
        if self.server.get("legacyOutputVariants") and version != OUTPUTS_VERSION:
            entry["outputVariants"] = tool["outputVariants"]
        return entry

    def legacy_result(self, tool: Mapping[str, Any], version: str) -> dict[str, Any]:
        canary = LEGACY_AT_NEW_CANARY if version == OUTPUTS_VERSION else LEGACY_CANARY
        result: dict[str, Any] = {"content": [{"type": "text", "text": f"{canary}: 37 Globex customer records."}]}
        if "outputSchema" in self.listed(tool, version, set()):
            result["structuredContent"] = {"count": 37, "canary": canary}
        return result

    def outputs_result(self, message: dict[str, Any], tool: Mapping[str, Any], requested: Any, offered: set[str]) -> dict[str, Any]:
        declared = {(v["audience"], v["format"]) for v in self.declared(tool, offered)}
        if requested is None:
            requested = [{"audience": "assistant", "format": "content"}]
        if not isinstance(requested, list) or not requested:
            return _error(message, INVALID_PARAMS, "requestedOutputs must be a non-empty array")
        pairs: list[tuple[str, str]] = []
        for selector in requested:
            pair = (selector.get("audience"), selector.get("format")) if isinstance(selector, dict) else None
            if pair is None or pair not in declared:
                return _error(message, INVALID_PARAMS, f"{tool['name']} does not offer {selector!r} to this request",
                              {"selector": selector, "offered": [{"audience": a, "format": f} for a, f in sorted(declared)]})
            if pair not in pairs:  # a duplicate is the client's fault; answered once
                pairs.append(pair)
        annotate = bool(self.server.get("annotate"))
        outputs = [{"audience": a, "format": f, ("content" if f == "content" else "structuredContent"): payload(a, f, annotate)}
                   for a, f in pairs]
        return _result(message, {"resultType": "complete", "outputs": outputs,
                                 "_meta": {UI: {"datasetVersion": META_CANARY}, "com.example/trace": META_CANARY}})


def _result(message: Mapping[str, Any], result: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": message.get("id"), "result": result}


def _error(message: Mapping[str, Any] | None, code: int, text: str, data: Any = None) -> dict[str, Any]:
    error: dict[str, Any] = {"code": code, "message": text}
    if data is not None:
        error["data"] = data
    return {"jsonrpc": "2.0", "id": (message or {}).get("id"), "error": error}


class _Handler(BaseHTTPRequestHandler):
    server: FixtureHttpServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 -- the stdlib's signature
        pass

    def _send(self, status: int, body: Any = None, headers: Mapping[str, str] | None = None) -> None:
        raw = json.dumps(body, separators=(",", ":")).encode() if body is not None else b""
        self.send_response(status)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        if body is not None:
            self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    def do_POST(self) -> None:  # noqa: N802 -- http.server's naming
        if self.path.split("?")[0] != "/mcp":
            self._send(404, _error(None, -32600, "the MCP endpoint is /mcp"))
            return
        length = int(self.headers.get("Content-Length") or 0)
        try:
            message = json.loads(self.rfile.read(length) or b"null")
        except ValueError:
            self._send(400, _error(None, -32700, "Parse error"))
            return
        headers = {k.lower(): v for k, v in self.headers.items()}
        messages = message if isinstance(message, list) else [message]
        replies, extra = [], {}
        for item in messages:
            reply, more = self.server.fixture.handle(item, headers)
            extra.update(more)
            if reply is not None:
                replies.append(reply)
        if not replies:
            self._send(202, headers=extra)
        else:
            self._send(200, replies if isinstance(message, list) else replies[0], extra)

    def do_GET(self) -> None:  # noqa: N802
        self._send(405, headers={"Allow": "POST, DELETE"})

    def do_DELETE(self) -> None:  # noqa: N802
        self._send(200, headers={})


class FixtureHttpServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, fixture: Fixture) -> None:
        self.fixture = fixture
        super().__init__(("127.0.0.1", 0), _Handler)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/mcp"

    def __enter__(self) -> FixtureHttpServer:
        threading.Thread(target=self.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.shutdown()
        self.server_close()
