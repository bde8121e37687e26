"""Raw JSON-RPC to the server under test: stdio or streamable HTTP, no SDK in between.

A target answers `exchange(version, extensions, method, params)` with a `RoundTrip`:

* stateless versions (2026-07-28 and later): the request carries the `_meta` envelope
  (`io.modelcontextprotocol/protocolVersion`, `.../clientCapabilities`); on HTTP also the
  headers `MCP-Protocol-Version`, `Mcp-Method` and, for tools/call, `Mcp-Name`.
* handshake versions (2024-11-05 … 2025-11-25): a connection is opened with `initialize`
  and `notifications/initialized` first, one per (version, extensions): over stdio a
  process each, over HTTP an `Mcp-Session-Id` each. A server that answers `initialize`
  with another version does not support the one asked for: the round trip says so in
  `unsupported`, and the scenario is skipped rather than failed.

Tests of the wire itself reach one layer down: `StdioTarget.process_for(version, extensions)`
is the process serving that pair, whose `request`, `request_many` and `notify` send messages
exactly as given, and `send_raw` any bytes at all; `HttpTarget.post` sends any body with any headers (a header may repeat);
every RoundTrip keeps the response's raw bytes and, on HTTP, its status and headers.
Besides the standard library only mcp_variants.client.stdio (the project's one raw stdio client and its
envelope helpers), mcp_variants.processes (the child processes) and mcp_variants.sse (event streams, the
project's one reader) are used, so `mcp-variants check` works from a plain install.
"""

from __future__ import annotations

import contextlib
import http.client
import itertools
import json
import shlex
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from email.message import Message
from typing import Any, Self
from urllib.parse import urlsplit

from ..client.stdio import StdioConnection, envelope, handshake_params
from ..processes import LOOPBACK, ProcessStartError, ServerProcess
from ..sse import read_sse
from .constants import HANDSHAKE_VERSIONS, OUTPUTS_VERSION
from .wire_schema import SchemaReport, SchemaViolation

CLIENT_INFO = {"name": "mcp-variants-conformance", "version": "1"}
Headers = Mapping[str, str] | Sequence[tuple[str, str]]


class TargetError(RuntimeError):
    """The server could not be reached, started, or did not answer."""


@dataclass
class RoundTrip:
    """One message sent and what came back."""

    request: dict[str, Any]
    response: dict[str, Any] | None = None
    notifications: list[dict[str, Any]] = field(default_factory=list)  # messages without an id that came before the response
    messages: list[Any] = field(default_factory=list)  # all read for it, in order: the HTTP body's; stdio: from the write on
    raw: bytes = b""  # the response as it came: its stdio line, or the HTTP body
    status: int | None = None  # HTTP
    headers: Message | None = None  # HTTP response headers (`get` ignores case)
    http: dict[str, Any] | None = None  # evidence: status, content type, session id, request headers (credentials masked)
    problem: str | None = None  # transport failure (timeout, server exited, unparsable)
    unsupported: str | None = None  # the server does not serve this version
    elapsed_ms: float = 0.0
    schema_violations: list[SchemaViolation] = field(default_factory=list)  # 2026-12-01 only; see Target.exchange

    @property
    def message(self) -> dict[str, Any]:
        """The response; TargetError saying why when none came."""
        if self.response is None:
            raise TargetError(self.problem or self.unsupported or f"no response to {json.dumps(self.request)[:300]}")
        return self.response

    @property
    def result(self) -> dict[str, Any]:
        """The response's `result`; TargetError showing what came instead."""
        return self._member("result", "a result")

    @property
    def error(self) -> dict[str, Any]:
        """The response's JSON-RPC `error`; TargetError showing what came instead."""
        return self._member("error", "a JSON-RPC error")

    def _member(self, key: str, what: str) -> dict[str, Any]:
        value = self.message.get(key)
        if not isinstance(value, dict):
            raise TargetError(f"expected {what}, got {json.dumps(self.message)[:2000]}")
        return value

    def progress(self, token: Any) -> list[dict[str, Any]]:
        """The notifications/progress for `token` that came before the response."""
        return [n for n in self.notifications
                if n.get("method") == "notifications/progress" and (n.get("params") or {}).get("progressToken") == token]


def ext_key(extensions: Mapping[str, Any] | None) -> str:
    return json.dumps(extensions or {}, sort_keys=True)


def enveloped(params: Mapping[str, Any] | None, version: str, extensions: Mapping[str, Any] | None) -> dict[str, Any]:
    """`params` with the stateless `_meta` envelope (any `_meta` already there is kept)."""
    out = dict(params or {})
    out["_meta"] = {**(out.get("_meta") or {}), **envelope(version, extensions)}
    return out


def initialize_params(version: str, extensions: Mapping[str, Any] | None) -> dict[str, Any]:
    """`initialize` as the suite sends it (the suite's CLIENT_INFO)."""
    return handshake_params(version, extensions, CLIENT_INFO)


def _is_response(message: Any, request_id: Any) -> bool:
    return isinstance(message, dict) and "method" not in message and "id" in message and message["id"] == request_id


def _notifications(messages: Iterable[Any]) -> list[dict[str, Any]]:
    return [m for m in messages if isinstance(m, dict) and "method" in m and "id" not in m]


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
        timeout: float | None = None, *, envelope: bool = True, headers: Headers | None = None,
    ) -> RoundTrip:
        """One request as a client of `version` (and `extensions`) sends it. `envelope=False` leaves a stateless
        request's params as given; `headers` (HTTP) replace the routing headers of the same name."""
        timeout = timeout or self.timeout
        if version in HANDSHAKE_VERSIONS:
            return self._handshake_exchange(version, extensions, method, dict(params or {}), timeout, headers)
        body = enveloped(params, version, extensions) if envelope else dict(params or {})
        message = {"jsonrpc": "2.0", "id": self.next_id(), "method": method, "params": body}
        trip = self._send_stateless(message, version, timeout, headers)
        if version == OUTPUTS_VERSION:
            # The validation hook: every 2026-12-01 message sent and received, against the wire schema.
            trip.schema_violations = self.schema.check_exchange(trip.request, trip.response, trip.notifications)
        return trip

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
    def _send_stateless(self, message: dict[str, Any], version: str, timeout: float, headers: Headers | None) -> RoundTrip:
        raise NotImplementedError

    def _handshake_exchange(
        self, version: str, extensions: Mapping[str, Any] | None, method: str, params: dict[str, Any], timeout: float,
        headers: Headers | None,
    ) -> RoundTrip:
        raise NotImplementedError


# ---- stdio ----------------------------------------------------------------------------------------------


class StdioProcess:
    """One server process on pipes, as the suite speaks to it: the project's raw stdio client (a
    `client.stdio.StdioConnection`, which reads every line and routes responses by id, and answers the server's
    own requests) with each exchange as a RoundTrip."""

    def __init__(self, command: Sequence[str], cwd: str | None, env: Mapping[str, str] | None) -> None:
        try:
            self.connection = StdioConnection(command, cwd, env=env, answer_requests=True)
        except OSError as exc:
            raise TargetError(f"cannot start {shlex.join(command)}: {exc}") from exc
        self.child, self.proc = self.connection.child, self.connection.process  # for writes and reads below the messages

    @property
    def garbage(self) -> list[bytes]:
        """Lines the server wrote that are not JSON."""
        return self.connection.garbage

    def write(self, message: dict[str, Any]) -> None:
        self.connection.write(message)

    def _collect(self, trip: RoundTrip, mark: int, deadline: float, timeout: float) -> None:
        """Wait for the response to `trip.request` and fill `trip` from what was read, or say what went wrong."""
        try:
            trip.response, trip.raw, trip.messages = self.connection.response_after(trip.request["id"], mark, deadline)
        except TimeoutError:
            trip.problem = f"no response within {timeout:g} s; {self.tail()}"
            return
        except EOFError:
            trip.problem = f"the server exited with code {self.proc.poll()}; {self.tail()}"
            return
        trip.notifications = _notifications(trip.messages[:-1])

    def request(self, message: dict[str, Any], timeout: float) -> RoundTrip:
        """Write `message` exactly as given and wait for the response with its id."""
        trip = RoundTrip(request=message)
        started = time.monotonic()
        mark = self.connection.mark()
        try:
            self.write(message)
        except (OSError, ValueError) as exc:
            trip.problem = f"cannot write to the server: {exc}; {self.tail()}"
            return trip
        self._collect(trip, mark, started + timeout, timeout)
        trip.elapsed_ms = (time.monotonic() - started) * 1000
        return trip

    def request_many(self, messages: Sequence[dict[str, Any]], timeout: float) -> list[RoundTrip]:
        """Write every message back to back (all in flight at once), then collect each response."""
        trips = [RoundTrip(request=message) for message in messages]
        started = time.monotonic()
        mark = self.connection.mark()
        for trip in trips:
            try:
                self.write(trip.request)
            except (OSError, ValueError) as exc:
                trip.problem = f"cannot write to the server: {exc}; {self.tail()}"
        for trip in trips:
            if trip.problem is None:
                self._collect(trip, mark, started + timeout, timeout)
            trip.elapsed_ms = (time.monotonic() - started) * 1000
        return trips

    def notify(self, message: dict[str, Any]) -> None:
        self.write(message)

    def send_raw(self, data: bytes, until: Callable[[list[Any]], bool], timeout: float) -> tuple[list[Any], str | None]:
        """Write `data` exactly as given (bytes that need not be JSON, nor one line) and collect the messages the server
        writes after it until `until(messages)` holds: (messages, None), or (what came, the problem) when `timeout`
        passes or the server exits first. Lines that are not JSON are in `garbage`."""
        mark = self.connection.mark()
        deadline = time.monotonic() + timeout
        try:
            self.connection.send_bytes(data)
        except (OSError, ValueError) as exc:
            return [], f"cannot write to the server: {exc}; {self.tail()}"
        messages = self.connection.wait_for(mark, until, deadline)
        if until(messages):
            return messages, None
        if self.connection.ended:
            return messages, f"the server exited with code {self.proc.poll()}; {self.tail()}"
        return messages, f"not answered as expected within {timeout:g} s; {self.tail()}"

    def tail(self) -> str:
        return self.connection.tail()

    def close(self, grace: float = 10.0) -> None:
        """EOF first (a server shuts down on it), then SIGTERM, then SIGKILL, by PID; its children reaped."""
        self.connection.close(grace)


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
        self._procs: dict[Any, StdioProcess] = {}
        self._procs_lock = threading.Lock()
        self.initialize_results: dict[tuple[str, str], RoundTrip] = {}

    def describe(self) -> dict[str, Any]:
        return {"transport": "stdio", "command": shlex.join(self.command)}

    def _process(self, key: Any) -> StdioProcess:
        with self._procs_lock:
            if key not in self._procs:
                self._procs[key] = StdioProcess(self.command, self.cwd, self.env)
            return self._procs[key]

    def process_for(self, version: str, extensions: Mapping[str, Any] | None = None) -> StdioProcess:
        """The process that serves `version` (and `extensions`): the stateless one, or that pair's handshake
        process, initialized (see `handshake`)."""
        if version not in HANDSHAKE_VERSIONS:
            return self._process("stateless")
        self.handshake(version, extensions, self.timeout)
        return self._process(("handshake", version, ext_key(extensions)))

    def _send_stateless(self, message: dict[str, Any], version: str, timeout: float, headers: Headers | None) -> RoundTrip:
        return self._process("stateless").request(message, timeout)

    def prepare(self, keys: Iterable[tuple[str, str]]) -> None:
        """Start the stateless process and every handshake process at once (start-ups overlap)."""
        self._process("stateless")  # raises TargetError when the command cannot start at all

        def open_quietly(version: str, extensions: str) -> None:
            with contextlib.suppress(TargetError):  # reported again by the first exchange that needs it
                self.handshake(version, json.loads(extensions), self.timeout)

        wanted = [k for k in keys if ("handshake", *k) not in self._procs]
        threads = [threading.Thread(target=open_quietly, args=key) for key in wanted]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()

    def handshake(self, version: str, extensions: Mapping[str, Any] | None, timeout: float | None = None) -> RoundTrip:
        """The initialize round trip of the (version, extensions) process, made once; `unsupported` or
        `problem` say when the connection could not be opened at that version."""
        key = (version, ext_key(extensions))
        with self._procs_lock:
            done = self.initialize_results.get(key)
        if done is not None:
            return done
        process = self._process(("handshake", *key))
        message = {"jsonrpc": "2.0", "id": self.next_id(), "method": "initialize", "params": initialize_params(version, extensions)}
        trip = process.request(message, timeout or self.timeout)
        if trip.response is not None and "result" in trip.response:
            answered = trip.response["result"].get("protocolVersion")
            if answered != version:
                trip.unsupported = f"initialize at {version} was answered with protocolVersion {answered!r}"
            else:
                try:
                    process.notify({"jsonrpc": "2.0", "method": "notifications/initialized"})
                except (OSError, ValueError) as exc:
                    trip.problem = f"cannot send notifications/initialized: {exc}"
        elif trip.response is not None:
            trip.unsupported = f"initialize at {version} was refused: {json.dumps(trip.response.get('error'))[:300]}"
        with self._procs_lock:
            self.initialize_results[key] = trip
        return trip

    def _handshake_exchange(self, version, extensions, method, params, timeout, headers):  # type: ignore[no-untyped-def]
        init = self.handshake(version, extensions, timeout)
        message = {"jsonrpc": "2.0", "id": self.next_id(), "method": method, "params": params}
        if init.problem or init.unsupported:
            return RoundTrip(request=message, problem=init.problem, unsupported=init.unsupported)
        return self._process(("handshake", version, ext_key(extensions))).request(message, timeout)

    def close(self) -> None:
        threads = [threading.Thread(target=p.close) for p in self._procs.values()]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        self._procs.clear()


# ---- streamable HTTP ------------------------------------------------------------------------------------


def _merged_headers(*layers: Headers) -> list[tuple[str, str]]:
    """Header pairs: each layer replaces the earlier layers' headers of the same name (any case); a layer
    given as pairs may repeat a header."""
    merged: list[tuple[str, str]] = []
    for layer in layers:
        pairs = list(layer.items()) if isinstance(layer, Mapping) else list(layer)
        names = {name.lower() for name, _ in pairs}
        merged = [(k, v) for k, v in merged if k.lower() not in names] + pairs
    return merged


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
        self._sessions: dict[tuple[str, str], tuple[str | None, RoundTrip]] = {}
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

    def post(self, body: Mapping[str, Any] | bytes, headers: Headers = (), timeout: float | None = None) -> RoundTrip:
        """POST one body: a message (sent as compact JSON) or bytes exactly as given. `headers` replace the
        defaults (Content-Type, Accept, the target's own) of the same name; as (name, value) pairs one may
        repeat, and a Host header replaces the one http.client would send."""
        timeout = timeout or self.timeout
        if isinstance(body, bytes):
            content = body
            try:
                decoded = json.loads(body)
            except (ValueError, RecursionError):  # any bytes may be sent, a JSON text too deep to decode included
                decoded = None
            message: dict[str, Any] = decoded if isinstance(decoded, dict) else {}
        else:
            message = dict(body)
            content = json.dumps(message, separators=(",", ":")).encode()
        pairs = _merged_headers({"Content-Type": "application/json", "Accept": "application/json, text/event-stream"},
                                self.extra_headers, headers)
        trip = RoundTrip(request=message, http={"requestHeaders": _public_headers(pairs)})
        names = {name.lower() for name, _ in pairs}
        started = time.monotonic()
        connection = self._connection(timeout)
        try:
            connection.putrequest("POST", self._path(), skip_host="host" in names, skip_accept_encoding="accept-encoding" in names)
            for name, value in pairs:
                connection.putheader(name, value)
            if "content-length" not in names:
                connection.putheader("Content-Length", str(len(content)))
            connection.endheaders(content)
            response = connection.getresponse()
            content_type = response.getheader("Content-Type", "") or ""
            trip.status, trip.headers = response.status, response.headers
            assert trip.http is not None
            trip.http.update({"status": response.status, "contentType": content_type.split(";")[0],
                              "sessionId": response.getheader("Mcp-Session-Id")})
            if content_type.startswith("text/event-stream"):
                until = (lambda m: _is_response(m, message["id"])) if "id" in message else None
                trip.messages, problem, trip.raw = read_sse(iter(response.readline, b""), until)
            else:
                trip.raw = response.read()
                problem = None
                if trip.raw.strip():
                    try:
                        decoded = json.loads(trip.raw)
                        trip.messages = decoded if isinstance(decoded, list) else [decoded]
                    except ValueError:
                        problem = f"HTTP {response.status} body is not JSON: {trip.raw[:300]!r}"
        except (OSError, http.client.HTTPException) as exc:
            trip.problem = f"HTTP request failed: {type(exc).__name__}: {exc}"
            return trip
        finally:
            connection.close()
        trip.elapsed_ms = (time.monotonic() - started) * 1000
        trip.notifications = _notifications(trip.messages)
        if "id" not in message:
            return trip
        responses = [m for m in trip.messages if _is_response(m, message["id"])]
        if responses:
            trip.response = responses[0]
        else:
            trip.problem = problem or f"HTTP {trip.status}: no JSON-RPC response with id {message['id']}"
            if trip.status == 401 and "authorization" not in names:
                trip.problem += ("; the server asks for credentials and none were sent (the check takes them as "
                                 "--header 'Authorization: Bearer TOKEN')")
        return trip

    def routing_headers(self, message: Mapping[str, Any], version: str) -> dict[str, str]:
        """A stateless request's headers: MCP-Protocol-Version, Mcp-Method and Mcp-Name (the tool's name for
        tools/call, the uri for resources/read)."""
        headers = {"MCP-Protocol-Version": version, "Mcp-Method": message["method"]}
        key = {"tools/call": "name", "resources/read": "uri"}.get(message["method"])
        name = (message.get("params") or {}).get(key) if key else None
        if isinstance(name, str):
            headers["Mcp-Name"] = name
        return headers

    def _send_stateless(self, message: dict[str, Any], version: str, timeout: float, headers: Headers | None) -> RoundTrip:
        return self.post(message, _merged_headers(self.routing_headers(message, version), headers or ()), timeout)

    def session(self, version: str, extensions: Mapping[str, Any] | None, timeout: float | None = None) -> tuple[str | None, RoundTrip]:
        """The session of (version, extensions), opened once: its Mcp-Session-Id (None when the server gave
        none) and the initialize round trip (`unsupported` or `problem` when it could not be opened)."""
        key = (version, ext_key(extensions))
        with self._sessions_lock:
            if key in self._sessions:
                return self._sessions[key]
        opened = self.open_session(version, extensions, timeout)
        with self._sessions_lock:
            self._sessions[key] = opened
        return opened

    def open_session(self, version: str, extensions: Mapping[str, Any] | None,
                     timeout: float | None = None) -> tuple[str | None, RoundTrip]:
        """A new session (initialize, then notifications/initialized), not kept: `session` without the cache, for
        tests of many sessions. The caller ends it (DELETE) or leaves it to expire."""
        timeout = timeout or self.timeout
        message = {"jsonrpc": "2.0", "id": self.next_id(), "method": "initialize", "params": initialize_params(version, extensions)}
        trip = self.post(message, {}, timeout)
        session = trip.http.get("sessionId") if trip.http else None
        if trip.response is not None and "result" in trip.response:
            answered = trip.response["result"].get("protocolVersion")
            if answered != version:
                trip.unsupported = f"initialize at {version} was answered with protocolVersion {answered!r}"
            else:
                headers = {"MCP-Protocol-Version": version, **({"Mcp-Session-Id": session} if session else {})}
                ack = self.post({"jsonrpc": "2.0", "method": "notifications/initialized"}, headers, timeout)
                if ack.problem:
                    trip.problem = f"notifications/initialized: {ack.problem}"
        elif trip.response is not None:
            trip.unsupported = f"initialize at {version} was refused: {json.dumps(trip.response.get('error'))[:300]}"
        return session, trip

    def prepare(self, keys: Iterable[tuple[str, str]]) -> None:
        for version, extensions in keys:
            self.session(version, json.loads(extensions), self.timeout)

    def _handshake_exchange(self, version, extensions, method, params, timeout, headers):  # type: ignore[no-untyped-def]
        session, init = self.session(version, extensions, timeout)
        message = {"jsonrpc": "2.0", "id": self.next_id(), "method": method, "params": params}
        if init.problem or init.unsupported:
            return RoundTrip(request=message, problem=init.problem, unsupported=init.unsupported)
        routing = {"MCP-Protocol-Version": version, **({"Mcp-Session-Id": session} if session else {})}
        return self.post(message, _merged_headers(routing, headers or ()), timeout)

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


def _public_headers(headers: Sequence[tuple[str, str]]) -> dict[str, str]:
    """Request headers for the evidence, with credentials masked."""
    return {k: ("<redacted>" if k.lower() in ("authorization", "cookie", "x-api-key") else v) for k, v in headers}


# ---- launching an HTTP server -------------------------------------------------------------------------------


class LaunchedServer:
    """`--server-cmd` together with `--server-url`: start the command, wait until the URL's port accepts."""

    def __init__(self, command: str | Sequence[str], url: str, *, cwd: str | None = None,
                 env: Mapping[str, str] | None = None, start_timeout: float = 30.0) -> None:
        argv = shlex.split(command) if isinstance(command, str) else list(command)
        parts = urlsplit(url)
        port = parts.port or (443 if parts.scheme == "https" else 80)
        self.server = ServerProcess(argv, port, host=parts.hostname or LOOPBACK, cwd=cwd, env=env)
        try:
            self.server.start(start_timeout)
        except OSError as exc:
            raise TargetError(f"cannot start {shlex.join(argv)}: {exc}") from exc
        except ProcessStartError as exc:
            raise TargetError(f"the server at {url} did not start: {exc}") from exc

    def close(self, grace: float = 10.0) -> None:
        self.server.stop(grace)
