"""A raw JSON-RPC connection to a server process over stdio: bytes in, dicts out.

No SDK in between, so what it shows is exactly what the server put on the wire.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Self

from ..processes import TAIL_BYTES, PipedProcess
from ..protocol.versions import HANDSHAKE_VERSIONS, VERSION_KEY
from .errors import TransportError
from .transport import Routing

CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities"
STDERR_TAIL = TAIL_BYTES
EXIT_GRACE_S = 2.0  # after the server exited, how long its last lines may take to be read
RAW_CLIENT_INFO = {"name": "mcp-variants-raw", "version": "0"}


def envelope(version: str, extensions: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The stateless per-request `_meta` envelope (2026-07-28 and later)."""
    capabilities: dict[str, Any] = {"extensions": dict(extensions)} if extensions else {}
    return {VERSION_KEY: version, CAPABILITIES_KEY: capabilities}


def handshake_params(version: str, extensions: Mapping[str, Any] | None, client_info: Mapping[str, Any]) -> dict[str, Any]:
    """The params of `initialize`, the handshake of the 2024-11-05 … 2025-11-25 eras."""
    capabilities: dict[str, Any] = {"extensions": dict(extensions)} if extensions else {}
    return {"protocolVersion": version, "capabilities": capabilities, "clientInfo": dict(client_info)}


def _is_server_request(message: Any) -> bool:
    return isinstance(message, dict) and "method" in message and "id" in message


class StdioConnection:
    """One server process on pipes, the one raw stdio client of the project (the reference client's transport,
    the conformance suite's `StdioTarget`, the tests and benchmarks). A reader thread keeps every message the
    server writes, in order, and routes responses by id, so requests may be in flight at once; messages with a
    method (notifications, and the server's own requests) are also kept in `notifications`, lines that are
    not JSON in `garbage`.

    `on_write`, when given, sees every byte string written to the server's stdin:
    tests use it to prove what a client did (not) send. The server's stderr is kept in
    `stderr_tail` (its last `stderr_keep` bytes; all of it when None). With `answer_requests`, a request of the
    server's (ping, roots/list...) is answered at once: ping with {}, the rest with -32601.
    """

    def __init__(
        self, command: Sequence[str], cwd: str | os.PathLike[str] | None = None, *,
        on_write: Callable[[bytes], None] | None = None, stderr_keep: int | None = STDERR_TAIL,
        env: Mapping[str, str] | None = None, answer_requests: bool = False,
    ) -> None:
        self.on_write = on_write
        self.answer_requests = answer_requests
        self.child = PipedProcess(command, cwd=cwd, env=env, stderr_keep=stderr_keep)
        self.process = self.child.process
        self._ids = itertools.count(1)
        self._cond = threading.Condition()
        self._log: list[tuple[Any, bytes]] = []  # every decoded message and its line, in arrival order
        self._responses: dict[Any, int] = {}  # id -> index in _log, until taken
        self._eof = False
        self._garbage_reported = 0
        self.garbage: list[bytes] = []
        self.notifications: list[dict[str, Any]] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    @property
    def stderr_tail(self) -> bytes:
        """What the server wrote to stderr so far (its end)."""
        return self.child.stderr.bytes()

    @property
    def ended(self) -> bool:
        """The server closed its stdout: nothing more will be read."""
        return self._eof

    def _read(self) -> None:
        for line in self.child.stdout:
            if not line.strip():
                continue
            try:
                message = json.loads(line)
            except ValueError:
                with self._cond:
                    self.garbage.append(line[:500])
                    self._cond.notify_all()
                continue
            if self.answer_requests and _is_server_request(message):
                self._answer_server_request(message)
            with self._cond:
                self._log.append((message, line))
                if isinstance(message, dict) and "method" in message:
                    self.notifications.append(message)
                elif isinstance(message, dict) and isinstance(message.get("id"), int | str):
                    self._responses[message["id"]] = len(self._log) - 1
                self._cond.notify_all()
        with self._cond:
            self._eof = True
            self._cond.notify_all()

    def _answer_server_request(self, message: dict[str, Any]) -> None:
        if message.get("method") == "ping":
            reply: dict[str, Any] = {"jsonrpc": "2.0", "id": message["id"], "result": {}}
        else:
            reply = {"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32601, "message": "not supported by this client"}}
        with contextlib.suppress(OSError, ValueError):
            self.write(reply)

    def send(self, message: dict[str, Any]) -> bytes:
        raw = json.dumps(message).encode() + b"\n"
        self.send_bytes(raw)
        return raw

    def write(self, message: dict[str, Any]) -> None:
        """Send `message` as compact JSON on one line."""
        self.send_bytes(json.dumps(message, separators=(",", ":")).encode() + b"\n")

    def send_bytes(self, raw: bytes) -> None:
        """Write bytes exactly as given (a message and its newline, or anything at all)."""
        if self.on_write is not None:
            self.on_write(raw)
        self.child.write(raw)

    def mark(self) -> int:
        """Where the log stands now: `messages_since` and `response_after` read from such a mark."""
        with self._cond:
            return len(self._log)

    def messages_since(self, mark: int) -> list[Any]:
        with self._cond:
            return [m for m, _ in self._log[mark:]]

    def response_after(self, request_id: Any, mark: int, deadline: float) -> tuple[dict[str, Any], bytes, list[Any]]:
        """The response with `request_id`, its line, and every message read from `mark` up to it. TimeoutError at
        `deadline` (time.monotonic()); EOFError once the server closed its stdout, or exited more than
        EXIT_GRACE_S ago, first."""
        exited_at: float | None = None
        with self._cond:
            while request_id not in self._responses:
                now = time.monotonic()
                if now >= deadline:
                    raise TimeoutError(f"no response to {request_id!r}")
                if exited_at is None and self.process.poll() is not None:
                    exited_at = now
                if self._eof or (exited_at is not None and now - exited_at > EXIT_GRACE_S):
                    raise EOFError(f"the server exited with code {self.process.poll()}")
                self._cond.wait(min(deadline - now, 0.25))
            index = self._responses.pop(request_id)
            response, line = self._log[index]
            return response, line, [m for m, _ in self._log[mark:index + 1]]

    def wait_for(self, mark: int, until: Callable[[list[Any]], bool], deadline: float) -> list[Any]:
        """The messages read from `mark` on, once `until(messages)` holds, or as they are at `deadline` or when the
        server closes its stdout."""
        with self._cond:
            while not until(messages := [m for m, _ in self._log[mark:]]):
                now = time.monotonic()
                if now >= deadline or self._eof:
                    break
                self._cond.wait(min(deadline - now, 0.25))
        return messages

    def wait_response(self, request_id: Any, timeout: float = 120, what: str = "the request") -> dict[str, Any]:
        """The response with `request_id`. TimeoutError, EOFError as it says; ValueError when the server wrote a line
        that is not JSON meanwhile."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while request_id not in self._responses:
                now = time.monotonic()
                if len(self.garbage) > self._garbage_reported:
                    self._garbage_reported = len(self.garbage)
                    raise ValueError(f"the server wrote a line that is not JSON before answering {what}: {self.garbage[-1]!r}")
                if self._eof:
                    raise EOFError(f"the server closed its stdout before answering {what}")
                if now >= deadline:
                    raise TimeoutError(f"no answer to {what} within {timeout} s")
                self._cond.wait(deadline - now)
            response: dict[str, Any] = self._log[self._responses.pop(request_id)][0]
            return response

    def notification(self, method: str, timeout: float) -> dict[str, Any] | None:
        """The first `method` notification not yet taken (those read before come first), waiting up to `timeout` s for
        one; None when none comes, or the server closed its stdout."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                for index, kept in enumerate(self.notifications):
                    if kept.get("method") == method:
                        return self.notifications.pop(index)
                left = deadline - time.monotonic()
                if left <= 0 or self._eof:
                    return None
                self._cond.wait(left)

    def request(self, method: str, params: dict[str, Any] | None = None, timeout: float = 120) -> dict[str, Any]:
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": next(self._ids), "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        return self.wait_response(message["id"], timeout, method)

    def initialize(self, version: str, extensions: dict[str, Any] | None = None, *,
                   client_info: dict[str, Any] | None = None) -> dict[str, Any]:
        """The handshake of the 2024-11-05 … 2025-11-25 eras; `client_info`: who this client says it is."""
        if version not in HANDSHAKE_VERSIONS:
            raise ValueError(f"{version} has no initialize handshake")
        response = self.request("initialize", handshake_params(version, extensions, client_info or RAW_CLIENT_INFO))
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return response

    def tail(self, limit: int = 1500) -> str:
        """The end of the server's stderr, to quote in a problem."""
        text = self.child.stderr.text()[-limit:].strip()
        return f"stderr: …{text}" if text else "stderr empty"

    def close(self, grace: float = 15) -> None:
        """EOF (the server stops its kernels and exits), then SIGTERM and SIGKILL by PID if it lingers."""
        self.child.stop(grace=grace)
        self._reader.join(timeout=2)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class StdioTransport:
    """The reference client's Transport over a StdioConnection.

    The session numbers its own requests, so do not mix it with `connection.request`
    on the same connection.
    """

    def __init__(self, connection: StdioConnection) -> None:
        self.connection = connection

    def request(self, body: bytes, routing: Routing, timeout: float) -> dict[str, Any]:
        self._write(body)
        try:
            return self.connection.wait_response(routing.id, timeout, routing.method)
        except (TimeoutError, EOFError, ValueError) as exc:
            raise TransportError(f"{routing.method}: {exc}") from exc

    def notify(self, body: bytes, routing: Routing) -> None:
        self._write(body)

    def _write(self, body: bytes) -> None:
        if self.connection.process.poll() is not None:
            raise TransportError(f"the server process exited with {self.connection.process.returncode}")
        try:
            self.connection.send_bytes(body.rstrip(b"\n") + b"\n")
        except (BrokenPipeError, OSError) as exc:
            raise TransportError(f"cannot write to the server: {exc}") from exc

    def close(self) -> None:
        self.connection.close()
