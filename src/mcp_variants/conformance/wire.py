"""Raw JSON-RPC to the server under test: stdio or streamable HTTP, no SDK in between.

A target answers `exchange(version, extensions, method, params)`:

* stateless versions (2026-07-28 and later): the request carries the `_meta` envelope
  (`io.modelcontextprotocol/protocolVersion`, `.../clientCapabilities`); on HTTP also the
  headers `MCP-Protocol-Version`, `Mcp-Method` and, for tools/call, `Mcp-Name`.
* handshake versions (2024-11-05 … 2025-11-25): a connection is opened with `initialize`
  and `notifications/initialized` first, one per (version, extensions): over stdio a
  process each, over HTTP an `Mcp-Session-Id` each. A server that answers `initialize`
  with another version does not support the one asked for: the exchange says so in
  `unsupported`, and the scenario is skipped rather than failed.

Only the standard library is used, so `mcp-variants check` works from a plain install.
"""

from __future__ import annotations

import http.client
import itertools
import json
import os
import shlex
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Self
from urllib.parse import urlsplit

from .constants import CAPABILITIES_KEY, HANDSHAKE_VERSIONS, OUTPUTS_VERSION, VERSION_KEY
from .wire_schema import SchemaReport, SchemaViolation

CLIENT_INFO = {"name": "mcp-variants-conformance", "version": "1"}
_STDERR_KEEP = 64 * 1024


class TargetError(RuntimeError):
    """The server could not be reached, started, or did not answer."""


@dataclass
class Exchange:
    """One request and what came back."""

    request: dict[str, Any]
    response: dict[str, Any] | None = None
    notifications: list[dict[str, Any]] = field(default_factory=list)
    http: dict[str, Any] | None = None  # status, content type, request headers
    problem: str | None = None  # transport failure (timeout, server exited, unparsable)
    unsupported: str | None = None  # the server does not serve this version
    elapsed_ms: float = 0.0
    schema_violations: list[SchemaViolation] = field(default_factory=list)  # 2026-12-01 only; see Target.exchange


def ext_key(extensions: Mapping[str, Any] | None) -> str:
    return json.dumps(extensions or {}, sort_keys=True)


def enveloped(params: Mapping[str, Any] | None, version: str, extensions: Mapping[str, Any] | None) -> dict[str, Any]:
    """`params` with the stateless `_meta` envelope (any `_meta` already there is kept)."""
    out = dict(params or {})
    capabilities: dict[str, Any] = {"extensions": dict(extensions)} if extensions else {}
    out["_meta"] = {**(out.get("_meta") or {}), VERSION_KEY: version, CAPABILITIES_KEY: capabilities}
    return out


def initialize_params(version: str, extensions: Mapping[str, Any] | None) -> dict[str, Any]:
    capabilities: dict[str, Any] = {"extensions": dict(extensions)} if extensions else {}
    return {"protocolVersion": version, "capabilities": capabilities, "clientInfo": CLIENT_INFO}


class Target:
    """A server under test. Subclasses carry bytes; this class holds the era logic."""

    kind = "abstract"

    def __init__(self, timeout: float = 60.0) -> None:
        self.timeout = timeout
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self.schema = SchemaReport()  # every 2026-12-01 message of this target, validated

    def next_id(self) -> int:
        with self._lock:
            return next(self._ids)

    def exchange(
        self, version: str, extensions: Mapping[str, Any] | None, method: str, params: Mapping[str, Any] | None,
        timeout: float | None = None,
    ) -> Exchange:
        timeout = timeout or self.timeout
        if version in HANDSHAKE_VERSIONS:
            return self._handshake_exchange(version, extensions, method, dict(params or {}), timeout)
        message = {"jsonrpc": "2.0", "id": self.next_id(), "method": method, "params": enveloped(params, version, extensions)}
        exchange = self._send_stateless(message, version, timeout)
        if version == OUTPUTS_VERSION:
            # The validation hook: every 2026-12-01 message sent and received, against the wire schema.
            exchange.schema_violations = self.schema.check_exchange(exchange.request, exchange.response, exchange.notifications)
        return exchange

    def prepare(self, keys: Iterable[tuple[str, str]]) -> None:
        """Open the handshake connections for these (version, extensions key) pairs early."""

    def describe(self) -> dict[str, Any]:
        return {"transport": self.kind}

    def close(self) -> None:
        """Stop what this target started."""

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # subclass hooks
    def _send_stateless(self, message: dict[str, Any], version: str, timeout: float) -> Exchange:
        raise NotImplementedError

    def _handshake_exchange(
        self, version: str, extensions: Mapping[str, Any] | None, method: str, params: dict[str, Any], timeout: float
    ) -> Exchange:
        raise NotImplementedError


# ---- stdio ----------------------------------------------------------------------------------------------


class _StdioProcess:
    """One server process; a reader thread routes responses by id."""

    def __init__(self, command: Sequence[str], cwd: str | None, env: Mapping[str, str] | None) -> None:
        try:
            self.proc = subprocess.Popen(
                list(command), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                cwd=cwd, env=dict(env) if env is not None else None,
            )
        except OSError as exc:
            raise TargetError(f"cannot start {shlex.join(command)}: {exc}") from exc
        self._cond = threading.Condition()
        self._responses: dict[Any, dict[str, Any]] = {}
        self._notifications: list[tuple[int, dict[str, Any]]] = []
        self._seq = itertools.count()
        self.stderr = bytearray()
        self.garbage: list[bytes] = []
        self._write_lock = threading.Lock()
        self.initialized: dict[str, Any] | None = None
        self._threads = [threading.Thread(target=self._read, daemon=True), threading.Thread(target=self._errors, daemon=True)]
        for thread in self._threads:
            thread.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            if not line.strip():
                continue
            try:
                message = json.loads(line)
            except ValueError:
                self.garbage.append(line[:500])
                continue
            if isinstance(message, dict) and "method" in message and "id" in message:
                self._answer_server_request(message)
                continue
            with self._cond:
                if isinstance(message, dict) and "method" not in message and "id" in message:
                    self._responses[message["id"]] = message
                elif isinstance(message, dict):
                    self._notifications.append((next(self._seq), message))
                self._cond.notify_all()
        with self._cond:
            self._cond.notify_all()

    def _errors(self) -> None:
        assert self.proc.stderr is not None
        for chunk in iter(lambda: self.proc.stderr.read1(65536), b""):  # type: ignore[union-attr,attr-defined]
            self.stderr += chunk
            if len(self.stderr) > _STDERR_KEEP:
                del self.stderr[: len(self.stderr) - _STDERR_KEEP]

    def _answer_server_request(self, message: dict[str, Any]) -> None:
        """A server-to-client request (ping, roots/list...): ping gets {}, the rest -32601."""
        if message.get("method") == "ping":
            reply: dict[str, Any] = {"jsonrpc": "2.0", "id": message["id"], "result": {}}
        else:
            reply = {"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32601, "message": "not supported by the conformance client"}}
        try:
            self.write(reply)
        except (OSError, ValueError):
            pass

    def write(self, message: dict[str, Any]) -> None:
        raw = json.dumps(message, separators=(",", ":")).encode() + b"\n"
        assert self.proc.stdin is not None
        with self._write_lock:
            self.proc.stdin.write(raw)
            self.proc.stdin.flush()

    def request(self, message: dict[str, Any], timeout: float) -> Exchange:
        exchange = Exchange(request=message)
        started = time.monotonic()
        with self._cond:
            mark = len(self._notifications)
        try:
            self.write(message)
        except (OSError, ValueError) as exc:
            exchange.problem = f"cannot write to the server: {exc}; {self.tail()}"
            return exchange
        deadline = started + timeout
        with self._cond:
            while message["id"] not in self._responses:
                left = deadline - time.monotonic()
                if left <= 0:
                    exchange.problem = f"no response within {timeout:g} s; {self.tail()}"
                    break
                if self.proc.poll() is not None and message["id"] not in self._responses:
                    exchange.problem = f"the server exited with code {self.proc.returncode}; {self.tail()}"
                    break
                self._cond.wait(min(left, 0.25))
            exchange.response = self._responses.pop(message["id"], None)
            exchange.notifications = [n for _, n in self._notifications[mark:]]
        exchange.elapsed_ms = (time.monotonic() - started) * 1000
        return exchange

    def notify(self, message: dict[str, Any]) -> None:
        self.write(message)

    def tail(self) -> str:
        text = bytes(self.stderr[-1500:]).decode(errors="replace").strip()
        return f"stderr: …{text}" if text else "stderr empty"

    def close(self, grace: float = 10.0) -> None:
        """EOF first (a server shuts down on it), then SIGTERM, then SIGKILL, by PID."""
        if self.proc.poll() is None:
            try:
                assert self.proc.stdin is not None
                self.proc.stdin.close()
            except OSError:
                pass
            try:
                self.proc.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                self.proc.send_signal(signal.SIGTERM)
                try:
                    self.proc.wait(timeout=grace)
                except subprocess.TimeoutExpired:
                    self.proc.kill()
                    self.proc.wait(timeout=5)
        for thread in self._threads:
            thread.join(timeout=2)


class StdioTarget(Target):
    """`--server-cmd`: one process for every stateless request, one per handshake (version, extensions)."""

    kind = "stdio"

    def __init__(self, command: str | Sequence[str], *, cwd: str | None = None, env: Mapping[str, str] | None = None,
                 timeout: float = 60.0) -> None:
        super().__init__(timeout)
        self.command = shlex.split(command) if isinstance(command, str) else list(command)
        if not self.command:
            raise TargetError("--server-cmd is empty")
        self.cwd = cwd
        self.env = env
        self._procs: dict[Any, _StdioProcess] = {}
        self._procs_lock = threading.Lock()
        self.initialize_results: dict[tuple[str, str], Exchange] = {}

    def describe(self) -> dict[str, Any]:
        return {"transport": "stdio", "command": shlex.join(self.command)}

    def _process(self, key: Any) -> _StdioProcess:
        with self._procs_lock:
            if key not in self._procs:
                self._procs[key] = _StdioProcess(self.command, self.cwd, self.env)
            return self._procs[key]

    def _send_stateless(self, message: dict[str, Any], version: str, timeout: float) -> Exchange:
        return self._process("stateless").request(message, timeout)

    def prepare(self, keys: Iterable[tuple[str, str]]) -> None:
        """Start the stateless process and every handshake process at once (start-ups overlap)."""
        self._process("stateless")  # raises TargetError when the command cannot start at all

        def open_quietly(version: str, extensions: str) -> None:
            try:
                self._open_handshake(version, json.loads(extensions), self.timeout)
            except TargetError:
                pass  # reported again by the first exchange that needs it

        wanted = [k for k in keys if ("handshake", *k) not in self._procs]
        threads = [threading.Thread(target=open_quietly, args=key) for key in wanted]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()

    def _open_handshake(self, version: str, extensions: Mapping[str, Any] | None, timeout: float) -> Exchange:
        key = (version, ext_key(extensions))
        with self._procs_lock:
            done = self.initialize_results.get(key)
        if done is not None:
            return done
        process = self._process(("handshake", *key))
        message = {"jsonrpc": "2.0", "id": self.next_id(), "method": "initialize", "params": initialize_params(version, extensions)}
        exchange = process.request(message, timeout)
        if exchange.response is not None and "result" in exchange.response:
            answered = exchange.response["result"].get("protocolVersion")
            if answered != version:
                exchange.unsupported = f"initialize at {version} was answered with protocolVersion {answered!r}"
            else:
                try:
                    process.notify({"jsonrpc": "2.0", "method": "notifications/initialized"})
                except (OSError, ValueError) as exc:
                    exchange.problem = f"cannot send notifications/initialized: {exc}"
        elif exchange.response is not None:
            exchange.unsupported = f"initialize at {version} was refused: {json.dumps(exchange.response.get('error'))[:300]}"
        with self._procs_lock:
            self.initialize_results[key] = exchange
        return exchange

    def _handshake_exchange(self, version, extensions, method, params, timeout):  # type: ignore[no-untyped-def]
        init = self._open_handshake(version, extensions, timeout)
        message = {"jsonrpc": "2.0", "id": self.next_id(), "method": method, "params": params}
        if init.problem or init.unsupported:
            return Exchange(request=message, problem=init.problem, unsupported=init.unsupported)
        return self._process(("handshake", version, ext_key(extensions))).request(message, timeout)

    def close(self) -> None:
        threads = [threading.Thread(target=p.close) for p in self._procs.values()]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        self._procs.clear()


# ---- streamable HTTP ------------------------------------------------------------------------------------


def read_sse(response: http.client.HTTPResponse, want_id: Any) -> tuple[list[dict[str, Any]], str | None]:
    """Events of an SSE body, until the response with `want_id` (or the end of the stream)."""
    messages: list[dict[str, Any]] = []
    data: list[str] = []
    while True:
        raw = response.readline()
        if not raw:
            break
        line = raw.decode("utf-8", errors="replace").rstrip("\r\n")
        if line.startswith("data:"):
            data.append(line[5:].removeprefix(" "))
            continue
        if line == "" and data:
            payload = "\n".join(data)
            data = []
            if not payload.strip():
                continue
            try:
                message = json.loads(payload)
            except ValueError:
                return messages, f"an SSE event is not JSON: {payload[:200]!r}"
            messages.append(message)
            if isinstance(message, dict) and "method" not in message and message.get("id") == want_id:
                break
    if data:
        try:
            messages.append(json.loads("\n".join(data)))
        except ValueError:
            return messages, "the last SSE event is not JSON"
    return messages, None


class HttpTarget(Target):
    """`--server-url`: each request one POST; handshake versions get one session each."""

    kind = "http"

    def __init__(self, url: str, *, headers: Mapping[str, str] | None = None, timeout: float = 60.0) -> None:
        super().__init__(timeout)
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise TargetError(f"--server-url must be an http(s) URL, got {url!r}")
        self.url = url
        self._parts = parts
        self.extra_headers = dict(headers or {})
        self._sessions: dict[tuple[str, str], tuple[str | None, Exchange]] = {}
        self._sessions_lock = threading.Lock()

    def describe(self) -> dict[str, Any]:
        return {"transport": "http", "url": self.url}

    def _connection(self, timeout: float) -> http.client.HTTPConnection:
        port = self._parts.port
        if self._parts.scheme == "https":
            return http.client.HTTPSConnection(self._parts.hostname or "", port, timeout=timeout)
        return http.client.HTTPConnection(self._parts.hostname or "", port, timeout=timeout)

    def _path(self) -> str:
        path = self._parts.path or "/"
        return path + (f"?{self._parts.query}" if self._parts.query else "")

    def post(self, message: dict[str, Any], headers: Mapping[str, str], timeout: float) -> Exchange:
        all_headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
                       **self.extra_headers, **headers}
        exchange = Exchange(request=message, http={"requestHeaders": _public_headers(all_headers)})
        body = json.dumps(message, separators=(",", ":")).encode()
        started = time.monotonic()
        connection = self._connection(timeout)
        try:
            connection.request("POST", self._path(), body=body, headers=all_headers)
            response = connection.getresponse()
            content_type = response.getheader("Content-Type", "") or ""
            assert exchange.http is not None
            exchange.http.update({"status": response.status, "contentType": content_type.split(";")[0],
                                  "sessionId": response.getheader("Mcp-Session-Id")})
            want = message.get("id")
            if content_type.startswith("text/event-stream"):
                messages, problem = read_sse(response, want)
            else:
                raw = response.read()
                messages, problem = [], None
                if raw.strip():
                    try:
                        decoded = json.loads(raw)
                        messages = decoded if isinstance(decoded, list) else [decoded]
                    except ValueError:
                        problem = f"HTTP {response.status} body is not JSON: {raw[:300]!r}"
        except (OSError, http.client.HTTPException) as exc:
            exchange.problem = f"HTTP request failed: {type(exc).__name__}: {exc}"
            return exchange
        finally:
            connection.close()
        exchange.elapsed_ms = (time.monotonic() - started) * 1000
        if "id" not in message:
            return exchange
        responses = [m for m in messages if isinstance(m, dict) and "method" not in m and m.get("id") == message["id"]]
        exchange.notifications = [m for m in messages if isinstance(m, dict) and "method" in m]
        if responses:
            exchange.response = responses[0]
        else:
            exchange.problem = problem or f"HTTP {exchange.http.get('status') if exchange.http else '?'}: no JSON-RPC response with id {message['id']}"
        return exchange

    def _send_stateless(self, message: dict[str, Any], version: str, timeout: float) -> Exchange:
        headers = {"MCP-Protocol-Version": version, "Mcp-Method": message["method"]}
        name = message.get("params", {}).get("name")
        if message["method"] == "tools/call" and isinstance(name, str):
            headers["Mcp-Name"] = name
        return self.post(message, headers, timeout)

    def _open_session(self, version: str, extensions: Mapping[str, Any] | None, timeout: float) -> tuple[str | None, Exchange]:
        key = (version, ext_key(extensions))
        with self._sessions_lock:
            if key in self._sessions:
                return self._sessions[key]
        message = {"jsonrpc": "2.0", "id": self.next_id(), "method": "initialize", "params": initialize_params(version, extensions)}
        exchange = self.post(message, {}, timeout)
        session = exchange.http.get("sessionId") if exchange.http else None
        if exchange.response is not None and "result" in exchange.response:
            answered = exchange.response["result"].get("protocolVersion")
            if answered != version:
                exchange.unsupported = f"initialize at {version} was answered with protocolVersion {answered!r}"
            else:
                headers = {"MCP-Protocol-Version": version, **({"Mcp-Session-Id": session} if session else {})}
                ack = self.post({"jsonrpc": "2.0", "method": "notifications/initialized"}, headers, timeout)
                if ack.problem:
                    exchange.problem = f"notifications/initialized: {ack.problem}"
        elif exchange.response is not None:
            exchange.unsupported = f"initialize at {version} was refused: {json.dumps(exchange.response.get('error'))[:300]}"
        with self._sessions_lock:
            self._sessions[key] = (session, exchange)
        return session, exchange

    def prepare(self, keys: Iterable[tuple[str, str]]) -> None:
        for version, extensions in keys:
            self._open_session(version, json.loads(extensions), self.timeout)

    def _handshake_exchange(self, version, extensions, method, params, timeout):  # type: ignore[no-untyped-def]
        session, init = self._open_session(version, extensions, timeout)
        message = {"jsonrpc": "2.0", "id": self.next_id(), "method": method, "params": params}
        if init.problem or init.unsupported:
            return Exchange(request=message, problem=init.problem, unsupported=init.unsupported)
        headers = {"MCP-Protocol-Version": version, **({"Mcp-Session-Id": session} if session else {})}
        return self.post(message, headers, timeout)

    def close(self) -> None:
        for (version, _), (session, _) in list(self._sessions.items()):
            if not session:
                continue
            connection = self._connection(5)
            try:
                connection.request("DELETE", self._path(), headers={**self.extra_headers, "Mcp-Session-Id": session,
                                                                    "MCP-Protocol-Version": version})
                connection.getresponse().read()
            except (OSError, http.client.HTTPException):
                pass
            finally:
                connection.close()
        self._sessions.clear()


def _public_headers(headers: Mapping[str, str]) -> dict[str, str]:
    """Request headers for the evidence, with credentials masked."""
    return {k: ("<redacted>" if k.lower() in ("authorization", "cookie", "x-api-key") else v) for k, v in headers.items()}


# ---- launching an HTTP server -------------------------------------------------------------------------------


class LaunchedServer:
    """`--server-cmd` together with `--server-url`: start the command, wait for the port."""

    def __init__(self, command: str | Sequence[str], url: str, *, cwd: str | None = None,
                 env: Mapping[str, str] | None = None, start_timeout: float = 30.0) -> None:
        argv = shlex.split(command) if isinstance(command, str) else list(command)
        self.log = bytearray()
        try:
            self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                         cwd=cwd, env=dict(env) if env is not None else None)
        except OSError as exc:
            raise TargetError(f"cannot start {shlex.join(argv)}: {exc}") from exc
        self._reader = threading.Thread(target=self._drain, daemon=True)
        self._reader.start()
        parts = urlsplit(url)
        port = parts.port or (443 if parts.scheme == "https" else 80)
        deadline = time.monotonic() + start_timeout
        while True:
            if self.proc.poll() is not None:
                raise TargetError(f"the server exited with code {self.proc.returncode}: {bytes(self.log[-2000:]).decode(errors='replace')}")
            try:
                socket.create_connection((parts.hostname or "127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    self.close()
                    raise TargetError(f"nothing listened on {url} within {start_timeout:g} s") from None
                time.sleep(0.05)

    def _drain(self) -> None:
        assert self.proc.stderr is not None
        for chunk in iter(lambda: self.proc.stderr.read1(65536), b""):  # type: ignore[union-attr,attr-defined]
            self.log += chunk
            if len(self.log) > _STDERR_KEEP:
                del self.log[: len(self.log) - _STDERR_KEEP]

    def close(self, grace: float = 10.0) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=5)
        self._reader.join(timeout=2)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def default_env() -> dict[str, str]:
    return dict(os.environ)
