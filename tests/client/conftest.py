"""Live servers for the client tests: `mcp-variants serve` on stdio and on streamable HTTP.

Every session records the exact bytes the client wrote: on stdio through
StdioConnection's `on_write` tap (the bytes that go down the pipe), on HTTP through an
httpx request hook (the body and headers of each POST). Servers are started on first
use, shared by the test session, and stopped by their own PIDs at the end.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from mcp_variants.client import ClientSession, StdioConnection, StdioTransport
from mcp_variants.client.http import HttpTransport
from support.jupyter import jupyterlab  # noqa: F401 - the fixture: a JupyterLab with real-time collaboration (test_codemode.py)
from support.servers import HttpServer, serve_stdio

UI = "io.modelcontextprotocol/ui"
UI_CAPS = {UI: {"mimeTypes": ["text/html;profile=mcp-app"]}}
OUTPUTS_VERSION = "2026-12-01"
OLDER_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28")
TRANSPORTS = ("stdio", "http")


@dataclass
class Live:
    """A client session on a real server, with what the client wrote."""

    transport: str
    session: ClientSession
    written: list[bytes] = field(default_factory=list)  # raw request bodies, in order
    headers: list[dict[str, str]] = field(default_factory=list)  # HTTP only, one per POST

    def bodies_since(self, mark: int) -> list[bytes]:
        return self.written[mark:]


class LivePool:
    """Sessions per (transport, version, ui); one stdio process per session, one HTTP server."""

    def __init__(self, root: Path, logs: Path) -> None:
        self.root, self.logs = root, logs
        self._sessions: dict[tuple[str, str, bool], Live] = {}
        self._http: HttpServer | None = None
        self._stdio: list[StdioConnection] = []
        self._clients: list[httpx.Client] = []

    def http_server(self) -> HttpServer:
        if self._http is None:
            self._http = HttpServer(self.root, log=self.logs / "http.log")
        return self._http

    def new(
        self,
        transport: str,
        version: str,
        ui: bool = False,
        *,
        token: str | None = None,
        url: str | None = None,
    ) -> Live:
        """A fresh, opened session (not cached)."""
        written: list[bytes] = []
        headers: list[dict[str, str]] = []
        if transport == "stdio":
            connection = serve_stdio(self.root, on_write=written.append)
            self._stdio.append(connection)
            chosen: Any = StdioTransport(connection)
        else:

            def record(request: httpx.Request) -> None:
                written.append(request.content)
                headers.append(dict(request.headers))

            client = httpx.Client(event_hooks={"request": [record]})
            self._clients.append(client)
            chosen = HttpTransport(url or self.http_server().url, token=token, client=client)
        session = ClientSession(chosen, version, extensions=UI_CAPS if ui else None, timeout=90)
        live = Live(transport, session, written, headers)
        session.open()
        return live

    def get(self, transport: str, version: str, ui: bool = False) -> Live:
        key = (transport, version, ui)
        if key not in self._sessions:
            self._sessions[key] = self.new(transport, version, ui)
        return self._sessions[key]

    def close(self) -> None:
        """Stop everything in parallel: each stdio server needs a moment to stop its kernels."""
        for live in self._sessions.values():
            if live.transport == "http":
                live.session.close()  # ends handshake sessions (DELETE)
        for client in self._clients:
            client.close()
        # EOF: each server stops its kernels and exits (SIGTERM, then SIGKILL, if it lingers)
        threads = [threading.Thread(target=c.close) for c in self._stdio]
        if self._http is not None:
            threads.append(threading.Thread(target=self._http.close))
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)


@pytest.fixture(scope="session")
def pool(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LivePool]:
    root = tmp_path_factory.mktemp("client-root")
    (root / "data.csv").write_text("a,b\n1,2\n")
    (root / "notes.md").write_text("# notes\n")
    pool = LivePool(root, tmp_path_factory.mktemp("client-logs"))
    yield pool
    pool.close()


@pytest.fixture(scope="session")
def live(pool: LivePool) -> Any:
    """live(transport, version=2026-12-01, ui=False) -> Live (cached per triple)."""

    def get(transport: str, version: str = OUTPUTS_VERSION, ui: bool = False) -> Live:
        return pool.get(transport, version, ui)

    return get
