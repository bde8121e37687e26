"""A raw JSON-RPC connection to a server process over stdio: bytes in, dicts out.

No SDK in between, so what it shows is exactly what the server put on the wire.
"""

from __future__ import annotations

import itertools
import json
import queue
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Self

from ..processes import TAIL_BYTES, PipedProcess
from ..protocol.versions import HANDSHAKE_VERSIONS
from .errors import TransportError
from .transport import Routing

VERSION_KEY = "io.modelcontextprotocol/protocolVersion"
CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities"
STDERR_TAIL = TAIL_BYTES


def envelope(version: str, extensions: dict[str, Any] | None = None) -> dict[str, Any]:
    """The stateless per-request `_meta` envelope (2026-07-28 and later)."""
    capabilities: dict[str, Any] = {"extensions": extensions} if extensions else {}
    return {VERSION_KEY: version, CAPABILITIES_KEY: capabilities}


class StdioConnection:
    """One server process; requests are matched to responses by id.

    `on_write`, when given, sees every byte string written to the server's stdin:
    tests use it to prove what a client did (not) send. The server's stderr is kept in
    `stderr_tail` (its last `stderr_keep` bytes; all of it when None).
    """

    def __init__(
        self, command: Sequence[str], cwd: Path | None = None, *, on_write: Callable[[bytes], None] | None = None,
        stderr_keep: int | None = STDERR_TAIL, env: Mapping[str, str] | None = None,
    ) -> None:
        self.on_write = on_write
        self.child = PipedProcess(command, cwd=cwd, env=env, stderr_keep=stderr_keep)
        self.process = self.child.process
        self._ids = itertools.count(1)
        self._lines: queue.Queue[bytes | None] = queue.Queue()  # None: the server closed stdout
        self.notifications: list[dict[str, Any]] = []
        threading.Thread(target=self._read, daemon=True).start()

    @classmethod
    def serve(cls, root: Path, *extra: str, on_write: Callable[[bytes], None] | None = None,
              stderr_keep: int | None = STDERR_TAIL, env: Mapping[str, str] | None = None) -> StdioConnection:
        return cls([sys.executable, "-m", "mcp_variants", "serve", "--root", str(root), *extra], on_write=on_write,
                   stderr_keep=stderr_keep, env=env)

    @property
    def stderr_tail(self) -> bytes:
        """What the server wrote to stderr so far (its end)."""
        return self.child.stderr.bytes()

    def _read(self) -> None:
        for line in self.child.stdout:
            self._lines.put(line)
        self._lines.put(None)

    def send(self, message: dict[str, Any]) -> bytes:
        raw = json.dumps(message).encode() + b"\n"
        self.send_bytes(raw)
        return raw

    def send_bytes(self, raw: bytes) -> None:
        """Write one newline-terminated JSON-RPC message exactly as given."""
        if self.on_write is not None:
            self.on_write(raw)
        self.child.write(raw)

    def wait_response(self, request_id: Any, timeout: float = 120, what: str = "the request") -> dict[str, Any]:
        """The response with `request_id`; everything read before it is kept in `notifications`."""
        while True:
            try:
                line = self._lines.get(timeout=timeout)
            except queue.Empty:
                raise TimeoutError(f"no answer to {what} within {timeout} s") from None
            if line is None:
                self._lines.put(None)  # every later wait fails fast too
                raise EOFError(f"the server closed its stdout before answering {what}")
            response: dict[str, Any] = json.loads(line)
            if response.get("id") == request_id and "method" not in response:
                return response
            self.notifications.append(response)

    def notification(self, method: str, timeout: float) -> dict[str, Any] | None:
        """The next `method` notification the server sends while no request waits (those read before
        come first); None when none comes within `timeout` s. Other messages read meanwhile are kept
        in `notifications`."""
        for index, kept in enumerate(self.notifications):
            if kept.get("method") == method:
                return self.notifications.pop(index)
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            try:
                line = self._lines.get(timeout=left)
            except queue.Empty:
                return None
            if line is None:
                self._lines.put(None)
                return None
            message: dict[str, Any] = json.loads(line)
            if message.get("method") == method:
                return message
            self.notifications.append(message)
        return None

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
        capabilities: dict[str, Any] = {"extensions": extensions} if extensions else {}
        response = self.request("initialize", {
            "protocolVersion": version, "capabilities": capabilities,
            "clientInfo": client_info or {"name": "mcp-variants-raw", "version": "0"},
        })
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return response

    def close(self) -> None:
        """EOF (the server stops its kernels and exits), then SIGTERM and SIGKILL by PID if it lingers."""
        self.child.stop(grace=15)

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
