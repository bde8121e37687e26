"""What the wire tests share: their own protocol constants, a client per (transport, version,
extensions), the servers of the session, and the assertions every test makes.

No MCP SDK client sits between a test and the wire: the talking is done by the conformance
suite's raw client (`mcp_variants.conformance.wire`), which sends exactly the bytes a test
asks for and keeps exactly the bytes that came back.

* stdio: `StdioTarget` runs `mcp-variants serve --root ROOT`; a stdio connection's era is fixed
  by its first request, so there is one process per handshake (version, extensions) pair and
  one shared process for every stateless (enveloped) request.
* streamable HTTP: one `serve --http` process (tests/support `HttpServer`) for the session; each
  request is one POST; handshake versions get one session (initialize +
  notifications/initialized) per (version, extensions).

`ServerPool.connect(transport, version, extensions)` returns a `WireClient` whose
`request(method, params)` returns the `RoundTrip` (the decoded response, the notifications
that preceded it, the raw bytes). Servers are started on first use, shared by the whole
session, and stopped by PID at the end.

Every message a client receives is checked for the bridge's private keys
("io.github.mcp-variants/bridged", "io.github.mcp-variants/tunnel"): they must never reach a
client (issue 2, "The server": the bridge is invisible on the wire).
"""

from __future__ import annotations

import json
import threading
import uuid
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from mcp_variants.client.stdio import envelope  # noqa: F401  (the tests' envelope is the client's)
from mcp_variants.conformance.wire import HttpTarget, RoundTrip, StdioTarget, Target, ext_key, initialize_params
from mcp_variants.conformance.wire_schema import validate_wire_message
from support.servers import HttpServer, serve_command

# ---- protocol constants (the test's own copy: the tests must not trust src/) ------------------

VERSIONS: tuple[str, ...] = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28", "2026-12-01")
HANDSHAKE_VERSIONS = VERSIONS[:4]
STATELESS_VERSIONS = VERSIONS[4:]
OUTPUTS_VERSION = "2026-12-01"
LEGACY_STRUCTURED_VERSIONS = ("2025-06-18", "2025-11-25", "2026-07-28")
CONTENT_ONLY_VERSIONS = ("2024-11-05", "2025-03-26")
OLDER_VERSIONS = VERSIONS[:5]  # every version before 2026-12-01

TRANSPORTS = ("stdio", "http")
TOOLS = ("execute_code", "list_files", "list_kernels")

VERSION_KEY = "io.modelcontextprotocol/protocolVersion"
UI = "io.modelcontextprotocol/ui"
UI_EXTENSIONS = {UI: {"mimeTypes": ["text/html;profile=mcp-app"]}}
MARKER_KEY = "io.github.mcp-variants/bridged"
TUNNEL_KEY = "io.github.mcp-variants/tunnel"
PRIVATE_KEYS = (MARKER_KEY, TUNNEL_KEY)
CACHE_META_KEY = "io.modelcontextprotocol/cache"

INVALID_PARAMS = -32602
HEADER_MISMATCH = -32020
UNSUPPORTED_VERSION = -32022

REQUEST_TIMEOUT = 60.0


def sel(audience: str, fmt: str) -> dict[str, str]:
    """A wire selector."""
    return {"audience": audience, "format": fmt}


def pairs(transports: tuple[str, ...] = TRANSPORTS, versions: tuple[str, ...] = VERSIONS) -> list[Any]:
    """pytest params for transport x version, with readable ids."""
    return [pytest.param(t, v, id=f"{t}-{v}") for t in transports for v in versions]


def initialize_message(msg_id: int, version: str, extensions: dict[str, Any] | None) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": msg_id, "method": "initialize", "params": initialize_params(version, extensions)}


def find_private_keys(node: Any, path: str = "$") -> list[str]:
    """JSON paths of any dict key in `node` that is one of the bridge's private keys."""
    found: list[str] = []
    if isinstance(node, dict):
        for key, value in node.items():
            if key in PRIVATE_KEYS:
                found.append(f"{path}.{key}")
            found.extend(find_private_keys(value, f"{path}.{key}"))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            found.extend(find_private_keys(value, f"{path}[{i}]"))
    return found


def check_no_private_keys(message: Any) -> None:
    leaks = find_private_keys(message)
    assert not leaks, f"bridge-private key(s) reached the wire at {leaks}: {json.dumps(message)[:2000]}"


def checked(trip: RoundTrip) -> RoundTrip:
    """`trip`, once it is known to hold exactly one response to its request and no bridge-private key."""
    assert trip.problem is None and trip.unsupported is None, (
        f"{trip.problem or trip.unsupported} (request: {json.dumps(trip.request)[:300]}; body: {trip.raw[:2000]!r})")
    for message in trip.messages:
        check_no_private_keys(message)
    responses = [m for m in trip.messages if isinstance(m, dict) and "method" not in m and m.get("id") == trip.request.get("id")]
    assert len(responses) == 1, f"HTTP {trip.status}: expected one response with id {trip.request.get('id')}, got {trip.raw[:2000]!r}"
    if request_version(trip.request) == OUTPUTS_VERSION:
        check_wire_schema(trip)
    return trip


def request_version(request: Any) -> str | None:
    params = request.get("params") if isinstance(request, dict) else None
    meta = params.get("_meta") if isinstance(params, dict) else None
    return meta.get(VERSION_KEY) if isinstance(meta, dict) else None


def check_wire_schema(trip: RoundTrip) -> None:
    """Every message the server sent in answer to a 2026-12-01 request is valid under the repo's wire schema."""
    method = trip.request.get("method") if isinstance(trip.request.get("method"), str) else None
    for message in trip.messages:
        answers = isinstance(message, dict) and "method" not in message
        if answers and message.get("id") != trip.request.get("id"):
            continue  # another request's answer, read on the way (requests in flight at once)
        errors = validate_wire_message(message, method if answers else None)
        assert not errors, f"a 2026-12-01 message breaks the wire schema: {errors[:5]} in {json.dumps(message)[:1500]}"


# ---- clients ------------------------------------------------------------------------------------


class WireClient:
    """A client of one protocol version (and set of extensions) on one target (transport).

    Not `checked.CheckedClient`: it keeps each exchange whole (a RoundTrip, its bytes, status and headers) and can
    send what no client would, where CheckedClient checks the tool results a well-behaved client gets.
    A handshake client's connection is opened at once, and must come back at its version
    (over HTTP, with an Mcp-Session-Id).
    """

    def __init__(self, target: Target, version: str, extensions: dict[str, Any] | None) -> None:
        self.target = target
        self.transport = target.kind
        self.version = version
        self.extensions = extensions
        self._tools: dict[str, dict[str, Any]] | None = None
        if version in HANDSHAKE_VERSIONS:
            self._open()

    def _open(self) -> None:
        session: str | None = "one process each"
        if isinstance(self.target, HttpTarget):
            session, init = self.target.session(self.version, self.extensions)
        else:
            assert isinstance(self.target, StdioTarget)
            init = self.target.handshake(self.version, self.extensions)
        assert init.problem is None and init.unsupported is None, init.problem or init.unsupported
        assert init.result["protocolVersion"] == self.version, init.message
        assert session, f"initialize at {self.version} returned no Mcp-Session-Id"

    def next_id(self) -> int:
        return self.target.next_id()

    def request(
        self, method: str, params: dict[str, Any] | None = None, *, meta: dict[str, Any] | None = None,
        timeout: float = REQUEST_TIMEOUT, bare: bool = False, headers: dict[str, str] | None = None,
    ) -> RoundTrip:
        """Send `method` with `params`, `meta` merged into their `_meta`; stateless clients add the
        envelope unless `bare`. `headers` (HTTP) replace the routing headers of the same name."""
        params = dict(params or {})
        if meta:
            params["_meta"] = {**(params.get("_meta") or {}), **meta}
        return checked(self.target.exchange(self.version, self.extensions, method, params, timeout, envelope=not bare, headers=headers))

    def call(
        self, name: str, arguments: dict[str, Any] | None = None, *, requested: Any = None, meta: dict[str, Any] | None = None,
        timeout: float = REQUEST_TIMEOUT, **extra: Any,
    ) -> RoundTrip:
        """tools/call; `requested` (when not None) becomes `requestedOutputs` verbatim."""
        params: dict[str, Any] = {"name": name, "arguments": arguments if arguments is not None else {}}
        if requested is not None:
            params["requestedOutputs"] = requested
        params.update(extra)
        return self.request("tools/call", params, meta=meta, timeout=timeout)

    def list_tools(self) -> RoundTrip:
        return self.request("tools/list", {})

    def tools(self, *, fresh: bool = False) -> dict[str, dict[str, Any]]:
        """tools/list result as {name: tool}; cached per client unless `fresh` (the listing
        depends only on the version and extensions, which a client fixes)."""
        if fresh or self._tools is None:
            self._tools = {t["name"]: t for t in self.list_tools().result["tools"]}
        return self._tools

    def send(self, message: dict[str, Any], timeout: float = REQUEST_TIMEOUT) -> RoundTrip:
        """stdio: `message` exactly as given, on this client's connection."""
        assert isinstance(self.target, StdioTarget), "send() is for stdio; post() to an HttpServer"
        return checked(self.target.process_for(self.version, self.extensions).request(message, timeout))

    def send_many(self, messages: list[dict[str, Any]], timeout: float = REQUEST_TIMEOUT) -> list[RoundTrip]:
        """stdio: several messages back to back (all in flight at once), then every response."""
        assert isinstance(self.target, StdioTarget), "send_many() is for stdio"
        return [checked(t) for t in self.target.process_for(self.version, self.extensions).request_many(messages, timeout)]

    def __repr__(self) -> str:
        return f"<WireClient {self.transport} {self.version} ext={sorted(self.extensions or {})}>"


def stdio_target(root: Path, *, fresh: bool = False) -> StdioTarget:
    """Our server over stdio, rooted (and run) in `root`: a process per connection, started on first use
    (`fresh`: by an exec, so its kernels are its children)."""
    return StdioTarget(serve_command(root, fresh=fresh), cwd=str(root), timeout=REQUEST_TIMEOUT)


class ServerPool:
    """Servers and clients shared by the whole session, started on first use."""

    def __init__(self, root: Path, log_dir: Path) -> None:
        self.root = root
        self.log_dir = log_dir
        self.stdio = stdio_target(root)
        self._http: HttpServer | None = None
        self._http_failure: str | None = None
        self._clients: dict[tuple[str, str, str], WireClient] = {}
        self._lock = threading.Lock()

    def http_server(self) -> HttpServer:
        if self._http_failure is not None:  # fail fast: one failed start-up is enough
            raise RuntimeError(f"the shared HTTP server did not start: {self._http_failure}")
        if self._http is None:
            try:
                # Its clients are kept for the whole run (connect): their sessions must outlive the default idle
                # timeout, which a long run in parallel can pass between two tests of one client.
                self._http = HttpServer(self.root, "--session-idle-timeout", "7200", log=self.log_dir / "http-server.log")
            except Exception as exc:
                self._http_failure = str(exc)
                raise
        return self._http

    def connect(self, transport: str, version: str, extensions: dict[str, Any] | None = None) -> WireClient:
        key = (transport, version, ext_key(extensions))
        with self._lock:
            if key not in self._clients:
                if transport == "stdio" and version in HANDSHAKE_VERSIONS:
                    # A handshake process serves one version: start its siblings now, so that their
                    # start-ups overlap instead of adding up across a parametrized test.
                    self.stdio.prepare([(v, ext_key(extensions)) for v in HANDSHAKE_VERSIONS])
                target = self.stdio if transport == "stdio" else self.http_server().target
                self._clients[key] = WireClient(target, version, extensions)
            return self._clients[key]

    def close(self) -> None:
        closers = [self.stdio.close] + ([self._http.close] if self._http else [])
        threads = [threading.Thread(target=close) for close in closers]  # stop in parallel
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)


# ---- assertions shared by the tests -----------------------------------------------------------


def validate(schema: dict[str, Any], instance: Any, what: str = "") -> None:
    """`instance` conforms to `schema` (JSON Schema 2020-12, checked by the test's own validator)."""
    Draft202012Validator.check_schema(schema)
    errors = sorted(Draft202012Validator(schema).iter_errors(instance), key=lambda e: list(e.path))
    assert not errors, f"{what} breaks its schema: " + "; ".join(
        f"{'/'.join(map(str, e.path)) or '<root>'}: {e.message[:300]}" for e in errors[:5]
    )


def outputs_of(reply: RoundTrip) -> list[dict[str, Any]]:
    """The `outputs` of a 2026-12-01 CallToolResult, checked to be a non-empty list."""
    result = reply.result
    outputs = result.get("outputs")
    assert isinstance(outputs, list) and outputs, f"no outputs array: {json.dumps(result)[:1500]}"
    return outputs


def selectors_of(outputs: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return sorted((o["audience"], o["format"]) for o in outputs)


def only_output(reply: RoundTrip, audience: str, fmt: str) -> dict[str, Any]:
    """The one output of `reply`, checked to be for (audience, format)."""
    outputs = outputs_of(reply)
    assert selectors_of(outputs) == [(audience, fmt)], selectors_of(outputs)
    return outputs[0]


def output_for(outputs: list[dict[str, Any]], audience: str, fmt: str) -> dict[str, Any]:
    matches = [o for o in outputs if o["audience"] == audience and o["format"] == fmt]
    assert len(matches) == 1, f"expected one {audience}/{fmt} output, got {selectors_of(outputs)}"
    return matches[0]


def check_output_shape(output: dict[str, Any]) -> None:
    """A content output carries `content` blocks, a structured one `structuredContent`, never both."""
    if output["format"] == "content":
        assert "structuredContent" not in output, output.keys()
        blocks = output["content"]
        assert isinstance(blocks, list) and blocks, output
        for block in blocks:
            assert isinstance(block, dict) and isinstance(block.get("type"), str), block
    else:
        assert output["format"] == "structured", output
        assert "content" not in output, output.keys()
        assert "structuredContent" in output, output.keys()


def text_of(blocks: list[dict[str, Any]]) -> str:
    return "".join(b.get("text", "") for b in blocks if b.get("type") == "text")


def unique(prefix: str = "w") -> str:
    return f"{prefix}{uuid.uuid4().hex[:12]}"
