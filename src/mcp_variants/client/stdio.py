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
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..protocol.versions import HANDSHAKE_VERSIONS

VERSION_KEY = "io.modelcontextprotocol/protocolVersion"
CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities"


def envelope(version: str, extensions: dict[str, Any] | None = None) -> dict[str, Any]:
    """The stateless per-request `_meta` envelope (2026-07-28 and later)."""
    capabilities: dict[str, Any] = {"extensions": extensions} if extensions else {}
    return {VERSION_KEY: version, CAPABILITIES_KEY: capabilities}


class StdioConnection:
    """One server process; requests are matched to responses by id."""

    def __init__(self, command: Sequence[str], cwd: Path | None = None) -> None:
        self.process = subprocess.Popen(
            list(command), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=cwd
        )
        self._ids = itertools.count(1)
        self._lines: queue.Queue[bytes] = queue.Queue()
        self.notifications: list[dict[str, Any]] = []
        threading.Thread(target=self._read, daemon=True).start()

    @classmethod
    def serve(cls, root: Path, *extra: str) -> StdioConnection:
        return cls([sys.executable, "-m", "mcp_variants", "serve", "--root", str(root), *extra])

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self._lines.put(line)

    def send(self, message: dict[str, Any]) -> bytes:
        raw = json.dumps(message).encode() + b"\n"
        assert self.process.stdin is not None
        self.process.stdin.write(raw)
        self.process.stdin.flush()
        return raw

    def request(self, method: str, params: dict[str, Any] | None = None, timeout: float = 120) -> dict[str, Any]:
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": next(self._ids), "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        while True:
            try:
                response = json.loads(self._lines.get(timeout=timeout))
            except queue.Empty:
                raise TimeoutError(f"no answer to {method} within {timeout} s") from None
            if response.get("id") == message["id"] and "method" not in response:
                return response
            self.notifications.append(response)

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

    def __enter__(self) -> StdioConnection:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
