"""Fixtures of the MCP Apps tests: a root with files and a long notebook, one real server
(streamable HTTP on loopback) with a reference-client session per protocol version and
extension set, and an AppsHost on each.

Every session records the exact bytes the client wrote (an httpx request hook), so a test
can show what a view's call asked for. The server is stopped by its PID at the end.
"""

from __future__ import annotations

import base64
import io
import itertools
import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import nbformat
import pytest

from mcp_variants.client import ClientSession, Routing, envelope
from mcp_variants.client.apps_host import AppsHost
from mcp_variants.client.http import HttpTransport
from support.apps import UI_CAPS
from support.jupyter import jupyterlab  # noqa: F401 - the fixture, for the live-notebook browser tests
from support.servers import HttpServer

NOTEBOOK = "long.ipynb"
NOTEBOOK_CELLS = 30
IMAGE_CELLS = (2, 12)  # cells that displayed a matplotlib figure (one on each of the first two pages)
_RAW_IDS = itertools.count(2_000_000)


def matplotlib_png(title: str) -> str:
    """A real matplotlib figure as base64 PNG (Agg, in this process)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(4, 2.5), dpi=80)
    ax.plot([0, 1, 2, 3, 4], [0, 1, 0, 1, 0])
    ax.set_title(title)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png")
    plt.close(fig)
    return base64.b64encode(buffer.getvalue()).decode()


def long_notebook(path: Path) -> None:
    cells: list[Any] = [nbformat.v4.new_markdown_cell("# A long notebook\nThirty cells, two figures.")]
    for i in range(1, NOTEBOOK_CELLS):
        outputs: list[Any] = [nbformat.v4.new_output("stream", name="stdout", text=f"row {i}\n")]
        if i in IMAGE_CELLS:
            outputs.append(
                nbformat.v4.new_output(
                    "display_data", data={"image/png": matplotlib_png(f"figure of cell {i}"),
                                          "text/plain": "<Figure size 320x200 with 1 Axes>"}
                )
            )
        if i % 7 == 0:
            outputs.append(nbformat.v4.new_output("execute_result", data={"text/plain": str(i * i)}, execution_count=i))
        cells.append(nbformat.v4.new_code_cell(f"print('row {i}')", outputs=outputs, execution_count=i))
    notebook = nbformat.v4.new_notebook(cells=cells)
    path.write_text(nbformat.writes(notebook))


@pytest.fixture(scope="session")
def apps_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("apps-root")
    (root / "data.csv").write_text("a,b\n1,2\n")
    (root / "notes.md").write_text("# notes\n")
    (root / "sub").mkdir()
    (root / "sub" / "inner.txt").write_text("inside\n")
    long_notebook(root / NOTEBOOK)
    return root


@dataclass
class Live:
    session: ClientSession
    written: list[bytes] = field(default_factory=list)

    def raw(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        """A JSON-RPC request of our own through the session's transport (its version and
        envelope, ids apart from the session's): the whole response, error or result."""
        session = self.session
        request_id = next(_RAW_IDS)
        params = dict(params or {})
        if session.stateless:
            params["_meta"] = envelope(session.version, session.extensions or None)
        body = json.dumps({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}).encode()
        name = params.get("name") if method == "tools/call" else params.get("uri") if method == "resources/read" else None
        routing = Routing(method, request_id, session.version, session.stateless, name)  # Mcp-Name on HTTP
        return session.transport.request(body, routing, session.timeout)

    def requests(self, method: str, since: int = 0) -> list[dict[str, Any]]:
        """The JSON-RPC requests of `method` this client wrote, from index `since` on."""
        out = []
        for raw in self.written[since:]:
            message = json.loads(raw)
            if message.get("method") == method:
                out.append(message)
        return out


class Pool:
    """One `mcp-variants serve --http` on loopback for the whole test session, and a client
    session per (version, ui) on it, with an AppsHost each, made on first use."""

    def __init__(self, root: Path, log: Path) -> None:
        self.root = root
        self.log = log
        self.server: HttpServer | None = None
        self.lives: dict[tuple[str, bool], Live] = {}
        self.hosts: dict[tuple[str, bool], AppsHost] = {}
        self.clients: list[httpx.Client] = []
        self._lock = threading.Lock()

    def live(self, version: str, ui: bool = True) -> Live:
        with self._lock:
            if self.server is None:
                self.server = HttpServer(self.root, log=self.log)
            key = (version, ui)
            if key not in self.lives:
                written: list[bytes] = []
                client = httpx.Client(event_hooks={"request": [lambda request: written.append(request.content)]})
                self.clients.append(client)
                transport = HttpTransport(self.server.url, client=client)
                session = ClientSession(transport, version, extensions=UI_CAPS if ui else None, timeout=90)
                session.open()
                self.lives[key] = Live(session, written)
            return self.lives[key]

    def host(self, version: str, ui: bool = True) -> AppsHost:
        live = self.live(version, ui)
        with self._lock:
            if (version, ui) not in self.hosts:
                self.hosts[(version, ui)] = AppsHost(live.session)
            return self.hosts[(version, ui)]

    def close(self) -> None:
        for live in self.lives.values():
            live.session.close()  # ends handshake sessions (DELETE)
        for client in self.clients:
            client.close()
        if self.server is not None:
            self.server.close()


@pytest.fixture(scope="session")
def pool(apps_root: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Pool]:
    pool = Pool(apps_root, tmp_path_factory.mktemp("apps-logs") / "server.log")
    yield pool
    pool.close()
