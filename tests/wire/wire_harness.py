"""Wire-level harness: raw JSON-RPC bytes to real `mcp-variants serve` processes.

Imported by conftest.py (fixtures) and by the test modules (helpers).

No MCP SDK client sits between a test and the wire. Two transports, one interface:

* stdio: `python -m mcp_variants serve --root ROOT`; JSON lines on stdin, a reader
  thread routes stdout lines (responses by id, notifications in arrival order).
  A stdio connection's era is fixed by its first request, so there is one process
  per handshake (version, extensions) pair and one shared process for every
  stateless (enveloped) request.
* streamable HTTP: `serve --http --host 127.0.0.1 --port P`; each request is one
  POST made with httpx; the response is `application/json` or `text/event-stream`
  (SSE `data:` lines, notifications before the response). Handshake versions get
  one session (initialize + notifications/initialized) per (version, extensions).

`connect(transport, version, extensions)` returns a `WireClient` whose
`request(method, params)` returns a `Reply` (the decoded response and the
notifications that preceded it). Servers are started lazily, shared by the whole
session, and terminated by PID at the end.

Every message the harness decodes is checked for the bridge's private keys
("io.github.mcp-variants/bridged", "io.github.mcp-variants/tunnel"): they must
never reach a client (issue 2, "The server": the bridge is invisible on the wire).
"""

from __future__ import annotations

import itertools
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from jsonschema import Draft202012Validator

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
CAPS_KEY = "io.modelcontextprotocol/clientCapabilities"
UI = "io.modelcontextprotocol/ui"
UI_EXTENSIONS = {UI: {"mimeTypes": ["text/html;profile=mcp-app"]}}
MARKER_KEY = "io.github.mcp-variants/bridged"
TUNNEL_KEY = "io.github.mcp-variants/tunnel"
PRIVATE_KEYS = (MARKER_KEY, TUNNEL_KEY)
CACHE_META_KEY = "io.modelcontextprotocol/cache"

INVALID_PARAMS = -32602
HEADER_MISMATCH = -32020
UNSUPPORTED_VERSION = -32022

START_TIMEOUT = 30.0
REQUEST_TIMEOUT = 60.0


def sel(audience: str, fmt: str) -> dict[str, str]:
    """A wire selector."""
    return {"audience": audience, "format": fmt}


def pairs(transports: tuple[str, ...] = TRANSPORTS, versions: tuple[str, ...] = VERSIONS) -> list[Any]:
    """pytest params for transport x version, with readable ids."""
    return [pytest.param(t, v, id=f"{t}-{v}") for t in transports for v in versions]


def envelope(version: str, extensions: dict[str, Any] | None) -> dict[str, Any]:
    """The stateless `_meta` envelope (SEP-2575): version and client capabilities."""
    caps: dict[str, Any] = {"extensions": extensions} if extensions else {}
    return {VERSION_KEY: version, CAPS_KEY: caps}


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


# ---- replies ------------------------------------------------------------------------------------


@dataclass
class Reply:
    """One JSON-RPC response and the notifications that arrived before it (same request)."""

    message: dict[str, Any]
    notifications: list[dict[str, Any]] = field(default_factory=list)
    status: int | None = None  # HTTP status
    headers: httpx.Headers | None = None
    raw: bytes = b""  # the response exactly as received (stdio line or HTTP body)

    @property
    def ok(self) -> bool:
        return "result" in self.message

    @property
    def result(self) -> dict[str, Any]:
        assert "result" in self.message, f"expected a result, got {json.dumps(self.message)[:2000]}"
        return self.message["result"]

    @property
    def error(self) -> dict[str, Any]:
        assert "error" in self.message, f"expected a JSON-RPC error, got {json.dumps(self.message)[:2000]}"
        return self.message["error"]

    def progress(self, token: Any) -> list[dict[str, Any]]:
        return [
            n for n in self.notifications
            if n.get("method") == "notifications/progress" and (n.get("params") or {}).get("progressToken") == token
        ]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def server_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "mcp_variants", "serve", *args]


def child_pids(pid: int) -> list[int]:
    """Direct children of `pid` (the kernels a server started), from /proc."""
    children: list[int] = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as f:
                children.extend(int(c) for c in f.read().split())
    except OSError:
        pass
    return children


def stop_process(proc: subprocess.Popen[bytes], *, graceful: float = 15.0) -> None:
    """Stop a server we started, by its PID: EOF/SIGTERM first (it shuts its kernels
    down), then SIGKILL; kernels it left behind are terminated by their own PIDs."""
    kernels = child_pids(proc.pid)
    if proc.poll() is None and proc.stdin is not None and proc.stdin.closed:
        try:  # stdio: EOF was sent; give it time to shut its kernels down
            proc.wait(timeout=graceful)
        except subprocess.TimeoutExpired:
            pass
    if proc.poll() is None:
        os.kill(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=graceful)
        except subprocess.TimeoutExpired:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)
    for pid in kernels:
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                still_ours = b"ipykernel" in f.read()  # not a reused PID
            if still_ours:
                os.kill(pid, signal.SIGTERM)
        except (OSError, ProcessLookupError):
            pass


# ---- stdio ---------------------------------------------------------------------------------------


class StdioServer:
    """One `serve` process over stdio; responses routed by id by a reader thread."""

    def __init__(self, root: Path, *extra: str) -> None:
        self.proc = subprocess.Popen(
            server_command("--root", str(root), *extra),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=root,
        )
        self._ids = itertools.count(1)
        self._cond = threading.Condition()
        self._log: list[dict[str, Any]] = []  # every decoded message, in arrival order
        self._raw: list[bytes] = []  # the undecoded line of each _log entry
        self._responses: dict[Any, int] = {}  # id -> index in _log
        self.undecodable: list[bytes] = []
        self.stderr = bytearray()
        self._threads = [
            threading.Thread(target=self._read_stdout, daemon=True),
            threading.Thread(target=self._read_stderr, daemon=True),
        ]
        for t in self._threads:
            t.start()

    def _read_stdout(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            try:
                message = json.loads(line)
            except ValueError:
                self.undecodable.append(line)
                continue
            with self._cond:
                self._log.append(message)
                self._raw.append(line)
                if isinstance(message, dict) and "method" not in message and "id" in message:
                    self._responses[message["id"]] = len(self._log) - 1
                self._cond.notify_all()
        with self._cond:
            self._cond.notify_all()

    def _read_stderr(self) -> None:
        assert self.proc.stderr is not None
        for chunk in iter(lambda: self.proc.stderr.read1(65536), b""):  # type: ignore[union-attr]
            self.stderr += chunk

    def next_id(self) -> int:
        return next(self._ids)

    def send_line(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(data.rstrip(b"\n") + b"\n")
            self.proc.stdin.flush()
        except BrokenPipeError:
            self.proc.wait(timeout=10)
            raise RuntimeError(
                f"stdio server exited ({self.proc.returncode}) before the request; stderr: {bytes(self.stderr[-3000:])!r}"
            ) from None

    def exchange(self, message: dict[str, Any], timeout: float = REQUEST_TIMEOUT) -> Reply:
        """Send one request and wait for the response with its id."""
        with self._cond:
            mark = len(self._log)
        raw = json.dumps(message).encode()
        self.send_line(raw)
        deadline = time.monotonic() + timeout
        with self._cond:
            while message["id"] not in self._responses:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"no response to {raw[:300]!r} within {timeout} s; stderr: {self.stderr[-2000:]!r}")
                if self.proc.poll() is not None:
                    raise RuntimeError(f"server exited ({self.proc.returncode}); stderr: {self.stderr[-3000:]!r}")
                self._cond.wait(min(left, 0.5))
            index = self._responses.pop(message["id"])
            response, raw_response = self._log[index], self._raw[index]
            notifications = [m for m in self._log[mark:index] if isinstance(m, dict) and "method" in m and "id" not in m]
        check_no_private_keys(response)
        for n in notifications:
            check_no_private_keys(n)
        return Reply(response, notifications, raw=raw_response)

    def exchange_many(self, messages: list[dict[str, Any]], timeout: float = REQUEST_TIMEOUT) -> list[Reply]:
        """Send several requests back to back (all in flight at once), then collect every response."""
        for message in messages:
            self.send_line(json.dumps(message).encode())
        deadline = time.monotonic() + timeout
        replies: list[Reply] = []
        with self._cond:
            for message in messages:
                while message["id"] not in self._responses:
                    left = deadline - time.monotonic()
                    if left <= 0 or self.proc.poll() is not None:
                        raise TimeoutError(f"no response to id {message['id']}; stderr: {self.stderr[-2000:]!r}")
                    self._cond.wait(min(left, 0.5))
                index = self._responses.pop(message["id"])
                replies.append(Reply(self._log[index], [], raw=self._raw[index]))
        for reply in replies:
            check_no_private_keys(reply.message)
        return replies

    def notify(self, message: dict[str, Any]) -> None:
        self.send_line(json.dumps(message).encode())

    def close(self) -> None:
        if self.proc.stdin is not None and not self.proc.stdin.closed:
            try:
                self.proc.stdin.close()  # EOF: the server shuts its kernels down and exits
            except OSError:
                pass
        stop_process(self.proc)
        for t in self._threads:
            t.join(timeout=5)


# ---- HTTP ----------------------------------------------------------------------------------------


def parse_http_body(response: httpx.Response) -> list[dict[str, Any]]:
    """Every JSON-RPC message in a response: one JSON body, or SSE `data:` events in order."""
    ctype = response.headers.get("content-type", "")
    if ctype.startswith("text/event-stream"):
        messages: list[dict[str, Any]] = []
        data: list[str] = []
        for line in response.text.splitlines() + [""]:
            if line.startswith("data:"):
                data.append(line[5:].lstrip(" "))
            elif line == "" and data:
                payload = "\n".join(data)
                data = []
                if payload.strip():
                    messages.append(json.loads(payload))
        return messages
    if ctype.startswith("application/json") and response.content.strip():
        return [response.json()]
    return []


class HttpServer:
    """One `serve --http` process on a free loopback port."""

    def __init__(self, root: Path, *extra: str, host: str = "127.0.0.1", log_dir: Path) -> None:
        self.port = free_port()
        self.host = host
        self.url = f"http://127.0.0.1:{self.port}/mcp"
        self.stderr_path = log_dir / f"http-{self.port}.stderr"
        self._stderr = open(self.stderr_path, "wb")
        self.proc = subprocess.Popen(
            server_command("--http", "--host", host, "--port", str(self.port), "--root", str(root), *extra),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=self._stderr,
            cwd=root,
        )
        self._ids = itertools.count(1)
        self.http = httpx.Client(timeout=REQUEST_TIMEOUT)
        try:
            self._wait_until_accepting()
        except BaseException:
            self.close()
            raise

    def _wait_until_accepting(self) -> None:
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"HTTP server exited ({self.proc.returncode}): {self.stderr_text()[-3000:]}")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return
            except OSError:
                time.sleep(0.05)
        raise TimeoutError(f"HTTP server did not accept within {START_TIMEOUT} s")

    def stderr_text(self) -> str:
        if not self._stderr.closed:
            self._stderr.flush()
        return self.stderr_path.read_bytes().decode(errors="replace")

    def next_id(self) -> int:
        return next(self._ids)

    def post(
        self, body: Any, headers: dict[str, str] | list[tuple[str, str]] | None = None, *, timeout: float = REQUEST_TIMEOUT
    ) -> httpx.Response:
        """POST raw bytes (a dict/list is JSON-encoded) with the streamable HTTP Accept header.
        `headers` as a list of pairs may repeat a header."""
        raw = body if isinstance(body, bytes) else json.dumps(body).encode()
        base = [("Accept", "application/json, text/event-stream"), ("Content-Type", "application/json")]
        extra = list(headers.items()) if isinstance(headers, dict) else list(headers or [])
        names = {k.lower() for k, _ in extra}
        all_headers = [(k, v) for k, v in base if k.lower() not in names] + extra
        return self.http.post(self.url, content=raw, headers=all_headers, timeout=timeout)

    def exchange(self, message: dict[str, Any], headers: dict[str, str], timeout: float = REQUEST_TIMEOUT) -> Reply:
        response = self.post(message, headers, timeout=timeout)
        messages = parse_http_body(response)
        for m in messages:
            check_no_private_keys(m)
        responses = [m for m in messages if "method" not in m and m.get("id") == message["id"]]
        if len(responses) != 1:
            raise AssertionError(
                f"HTTP {response.status_code} {response.headers.get('content-type')}: expected one response "
                f"with id {message['id']}, got {response.text[:2000]!r}"
            )
        notifications = [m for m in messages[: messages.index(responses[0])] if "method" in m and "id" not in m]
        return Reply(responses[0], notifications, status=response.status_code, headers=response.headers, raw=response.content)

    def close(self) -> None:
        """Idempotent: stop the process (by PID) and release the client and log file."""
        self.http.close()
        stop_process(self.proc)
        self._stderr.close()


# ---- one interface over both transports ---------------------------------------------------------


class WireClient:
    """A client of one protocol version (and set of extensions) on one transport."""

    transport: str

    def __init__(self, version: str, extensions: dict[str, Any] | None) -> None:
        self.version = version
        self.extensions = extensions
        self.stateless = version in STATELESS_VERSIONS or version not in VERSIONS
        self._tools: dict[str, dict[str, Any]] | None = None

    def _params(
        self, params: dict[str, Any] | None, meta: dict[str, Any] | None, envelope_version: str | None, bare: bool = False
    ) -> dict[str, Any]:
        """The request params: `params`, plus the stateless envelope (unless `bare`), plus `meta`."""
        out = dict(params or {})
        full_meta: dict[str, Any] = {}
        if self.stateless and not bare:
            full_meta.update(envelope(envelope_version or self.version, self.extensions))
        full_meta.update(meta or {})
        if full_meta:
            out["_meta"] = full_meta
        return out

    def request(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        *,
        meta: dict[str, Any] | None = None,
        timeout: float = REQUEST_TIMEOUT,
        bare: bool = False,
    ) -> Reply:
        """Send `method` with `params`; stateless clients add the `_meta` envelope unless `bare`,
        then `meta` is merged into `_meta`."""
        raise NotImplementedError

    def call(
        self,
        name: str,
        arguments: dict[str, Any] | None = None,
        *,
        requested: Any = None,
        meta: dict[str, Any] | None = None,
        timeout: float = REQUEST_TIMEOUT,
        **extra: Any,
    ) -> Reply:
        """tools/call; `requested` (when not None) becomes `requestedOutputs` verbatim."""
        params: dict[str, Any] = {"name": name, "arguments": arguments if arguments is not None else {}}
        if requested is not None:
            params["requestedOutputs"] = requested
        params.update(extra)
        return self.request("tools/call", params, meta=meta, timeout=timeout)

    def list_tools(self) -> Reply:
        return self.request("tools/list", {})

    def tools(self, *, fresh: bool = False) -> dict[str, dict[str, Any]]:
        """tools/list result as {name: tool}; cached per client unless `fresh` (the listing
        depends only on the version and extensions, which a client fixes)."""
        if fresh or self._tools is None:
            self._tools = {t["name"]: t for t in self.list_tools().result["tools"]}
        return self._tools

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.transport} {self.version} ext={sorted(self.extensions or {})}>"


class StdioClient(WireClient):
    transport = "stdio"

    def __init__(self, server: StdioServer, version: str, extensions: dict[str, Any] | None) -> None:
        super().__init__(version, extensions)
        self.server = server

    def request(self, method, params=None, *, meta=None, timeout=REQUEST_TIMEOUT, bare=False):  # type: ignore[override]
        params = self._params(params, meta, None, bare)
        message = {"jsonrpc": "2.0", "id": self.server.next_id(), "method": method, "params": params}
        return self.server.exchange(message, timeout)


class HttpClient(WireClient):
    transport = "http"

    def __init__(self, server: HttpServer, version: str, extensions: dict[str, Any] | None) -> None:
        super().__init__(version, extensions)
        self.server = server
        self.session_id: str | None = None

    def headers(self, method: str, params: dict[str, Any]) -> dict[str, str]:
        if self.stateless:
            headers = {"MCP-Protocol-Version": self.version, "Mcp-Method": method}
            if method == "tools/call" and isinstance(params.get("name"), str):
                headers["Mcp-Name"] = params["name"]
            return headers
        headers = {"MCP-Protocol-Version": self.version}
        if self.session_id:
            headers["Mcp-Session-Id"] = self.session_id
        return headers

    def request(self, method, params=None, *, meta=None, timeout=REQUEST_TIMEOUT, headers=None, envelope_version=None,  # type: ignore[override]
                bare=False):
        full = self._params(params, meta, envelope_version, bare)
        message = {"jsonrpc": "2.0", "id": self.server.next_id(), "method": method, "params": full}
        all_headers = self.headers(method, full)
        all_headers.update(headers or {})
        return self.server.exchange(message, all_headers, timeout)


def initialize_message(msg_id: int, version: str, extensions: dict[str, Any] | None) -> dict[str, Any]:
    capabilities: dict[str, Any] = {"extensions": extensions} if extensions else {}
    return {
        "jsonrpc": "2.0",
        "id": msg_id,
        "method": "initialize",
        "params": {"protocolVersion": version, "capabilities": capabilities, "clientInfo": {"name": "wire-tests", "version": "0"}},
    }


INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def handshake_stdio(server: StdioServer, version: str, extensions: dict[str, Any] | None) -> StdioClient:
    reply = server.exchange(initialize_message(server.next_id(), version, extensions))
    assert reply.result["protocolVersion"] == version, reply.message
    server.notify(INITIALIZED)
    return StdioClient(server, version, extensions)


def handshake_http(server: HttpServer, version: str, extensions: dict[str, Any] | None) -> HttpClient:
    client = HttpClient(server, version, extensions)
    response = server.post(initialize_message(server.next_id(), version, extensions))
    assert response.status_code == 200, response.text
    messages = parse_http_body(response)
    assert messages and messages[-1]["result"]["protocolVersion"] == version, response.text
    client.session_id = response.headers.get("mcp-session-id")
    assert client.session_id, f"initialize at {version} returned no Mcp-Session-Id"
    ack = server.post(INITIALIZED, {"Mcp-Session-Id": client.session_id, "MCP-Protocol-Version": version})
    assert ack.status_code in (200, 202), ack.text
    return client


def _ext_key(extensions: dict[str, Any] | None) -> str:
    return json.dumps(extensions or {}, sort_keys=True)


class ServerPool:
    """Servers and clients shared by the whole session, started on first use."""

    def __init__(self, root: Path, log_dir: Path) -> None:
        self.root = root
        self.log_dir = log_dir
        self._stdio: dict[Any, StdioServer] = {}
        self._http: HttpServer | None = None
        self._http_failure: str | None = None
        self._clients: dict[tuple[str, str, str], WireClient] = {}
        self._lock = threading.Lock()

    def stdio_server(self, key: Any) -> StdioServer:
        if key not in self._stdio:
            if isinstance(key, tuple) and key[0] == "handshake":
                # A handshake process serves one version: start its siblings now, so that the
                # ~1 s start-ups overlap instead of adding up across a parametrized test.
                for version in HANDSHAKE_VERSIONS:
                    sibling = ("handshake", version, key[2])
                    if sibling not in self._stdio:
                        self._stdio[sibling] = StdioServer(self.root)
            else:
                self._stdio[key] = StdioServer(self.root)
        return self._stdio[key]

    def http_server(self) -> HttpServer:
        if self._http_failure is not None:  # fail fast: one failed start-up is enough
            raise RuntimeError(f"the shared HTTP server did not start: {self._http_failure}")
        if self._http is None:
            try:
                self._http = HttpServer(self.root, log_dir=self.log_dir)
            except Exception as exc:
                self._http_failure = str(exc)
                raise
        return self._http

    def connect(self, transport: str, version: str, extensions: dict[str, Any] | None = None) -> WireClient:
        key = (transport, version, _ext_key(extensions))
        with self._lock:
            if key not in self._clients:
                self._clients[key] = self._new_client(transport, version, extensions)
            return self._clients[key]

    def _new_client(self, transport: str, version: str, extensions: dict[str, Any] | None) -> WireClient:
        handshake = version in HANDSHAKE_VERSIONS
        if transport == "stdio":
            if handshake:
                return handshake_stdio(self.stdio_server(("handshake", version, _ext_key(extensions))), version, extensions)
            return StdioClient(self.stdio_server("stateless"), version, extensions)
        if transport == "http":
            if handshake:
                return handshake_http(self.http_server(), version, extensions)
            return HttpClient(self.http_server(), version, extensions)
        raise ValueError(transport)

    def close(self) -> None:
        servers: list[Any] = list(self._stdio.values()) + ([self._http] if self._http else [])
        threads = [threading.Thread(target=s.close) for s in servers]  # stop in parallel
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=60)


# ---- assertions shared by the tests -----------------------------------------------------------


def validate(schema: dict[str, Any], instance: Any, what: str = "") -> None:
    """`instance` conforms to `schema` (JSON Schema 2020-12, checked by the test's own validator)."""
    Draft202012Validator.check_schema(schema)
    errors = sorted(Draft202012Validator(schema).iter_errors(instance), key=lambda e: list(e.path))
    assert not errors, f"{what} breaks its schema: " + "; ".join(
        f"{'/'.join(map(str, e.path)) or '<root>'}: {e.message[:300]}" for e in errors[:5]
    )


def outputs_of(reply: Reply) -> list[dict[str, Any]]:
    """The `outputs` of a 2026-12-01 CallToolResult, checked to be a non-empty list."""
    result = reply.result
    outputs = result.get("outputs")
    assert isinstance(outputs, list) and outputs, f"no outputs array: {json.dumps(result)[:1500]}"
    return outputs


def selectors_of(outputs: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return sorted((o["audience"], o["format"]) for o in outputs)


def only_output(reply: Reply, audience: str, fmt: str) -> dict[str, Any]:
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
