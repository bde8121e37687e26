"""A raw JSON-RPC connection to a server process over stdio: bytes in, dicts out.

No SDK in between, so what it shows is exactly what the server put on the wire.
"""

from __future__ import annotations

import itertools
import json
import queue
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Self

from ..protocol.versions import HANDSHAKE_VERSIONS
from .errors import TransportError
from .transport import Exchange

VERSION_KEY = "io.modelcontextprotocol/protocolVersion"
CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities"
STDERR_TAIL = 65536


def envelope(version: str, extensions: dict[str, Any] | None = None) -> dict[str, Any]:
    """The stateless per-request `_meta` envelope (2026-07-28 and later)."""
    capabilities: dict[str, Any] = {"extensions": extensions} if extensions else {}
    return {VERSION_KEY: version, CAPABILITIES_KEY: capabilities}


class StdioConnection:
    """One server process; requests are matched to responses by id.

    `on_write`, when given, sees every byte string written to the server's stdin:
    tests use it to prove what a client did (not) send.
    """

    def __init__(
        self, command: Sequence[str], cwd: Path | None = None, *, on_write: Callable[[bytes], None] | None = None
    ) -> None:
        self.on_write = on_write
        self.process = subprocess.Popen(
            list(command), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=cwd
        )
        self._ids = itertools.count(1)
        self._lines: queue.Queue[bytes | None] = queue.Queue()  # None: the server closed stdout
        self.notifications: list[dict[str, Any]] = []
        self.stderr_tail = bytearray()  # the last STDERR_TAIL bytes the server logged
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._drain_stderr, daemon=True).start()

    @classmethod
    def serve(cls, root: Path, *extra: str, on_write: Callable[[bytes], None] | None = None) -> StdioConnection:
        return cls([sys.executable, "-m", "mcp_variants", "serve", "--root", str(root), *extra], on_write=on_write)

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self._lines.put(line)
        self._lines.put(None)

    def _drain_stderr(self) -> None:
        """Keep reading stderr so a chatty server never blocks on a full pipe."""
        stderr = self.process.stderr
        assert stderr is not None
        for chunk in iter(lambda: stderr.read1(65536), b""):  # type: ignore[attr-defined]
            self.stderr_tail += chunk
            del self.stderr_tail[:-STDERR_TAIL]

    def send(self, message: dict[str, Any]) -> bytes:
        raw = json.dumps(message).encode() + b"\n"
        self.send_bytes(raw)
        return raw

    def send_bytes(self, raw: bytes) -> None:
        """Write one newline-terminated JSON-RPC message exactly as given."""
        assert self.process.stdin is not None
        if self.on_write is not None:
            self.on_write(raw)
        self.process.stdin.write(raw)
        self.process.stdin.flush()

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

    def request(self, method: str, params: dict[str, Any] | None = None, timeout: float = 120) -> dict[str, Any]:
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": next(self._ids), "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        return self.wait_response(message["id"], timeout, method)

    def initialize(self, version: str, extensions: dict[str, Any] | None = None) -> dict[str, Any]:
        """The handshake of the 2024-11-05 … 2025-11-25 eras."""
        if version not in HANDSHAKE_VERSIONS:
            raise ValueError(f"{version} has no initialize handshake")
        capabilities: dict[str, Any] = {"extensions": extensions} if extensions else {}
        response = self.request("initialize", {
            "protocolVersion": version, "capabilities": capabilities,
            "clientInfo": {"name": "mcp-variants-raw", "version": "0"},
        })
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return response

    def close(self) -> None:
        if self.process.poll() is None:
            assert self.process.stdin is not None
            self.process.stdin.close()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

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

    def request(self, body: bytes, exchange: Exchange, timeout: float) -> dict[str, Any]:
        self._write(body)
        try:
            return self.connection.wait_response(exchange.id, timeout, exchange.method)
        except (TimeoutError, EOFError, ValueError) as exc:
            raise TransportError(f"{exchange.method}: {exc}") from exc

    def notify(self, body: bytes, exchange: Exchange) -> None:
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
