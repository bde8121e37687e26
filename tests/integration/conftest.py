"""Real `mcp-variants serve` processes for the notebook tools, spoken to by `support.checked.CheckedClient`.

One stdio server per test module for stateless 2026-12-01 requests (with the MCP Apps
extension negotiated, so every declared variant may be requested), one initialized at
2025-11-25 for the legacy shape and a per-connection default, and one streamable HTTP
server where several clients (sessions, stateless requests) share one process.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import nbformat
import pytest

from support import servers
from support.checked import CheckedClient
from support.jupyter import jupyter, jupyterlab  # noqa: F401 - the fixtures, for the remote runtime and live notebooks
from support.processes import Reaper

CELL_META = "io.jupyter-mcp/cell_id"
CACHE_META = "io.modelcontextprotocol/cache"

# A 1x1 PNG, for a cell that displayed an image.
PNG = base64.b64encode(bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000001e221bc330000000049454e44ae426082"
)).decode()


# ---- notebooks on disk ---------------------------------------------------------------------------


def write_notebook(path: Path, cells: list[dict[str, Any]], *, minor: int = 5) -> Path:
    """A notebook written as JupyterLab would; `minor` < 5 writes one without cell ids."""
    notebook = nbformat.v4.new_notebook()
    notebook.nbformat_minor = minor
    notebook.cells = [nbformat.from_dict(c) for c in cells]
    if minor < 5:
        for cell in notebook.cells:
            cell.pop("id", None)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(notebook, indent=1) + "\n")
    return path


def code(source: str, outputs: list[dict[str, Any]] | None = None, count: int | None = None) -> dict[str, Any]:
    cell = nbformat.v4.new_code_cell(source, outputs=outputs or [], execution_count=count)
    return dict(cell)


def markdown(source: str) -> dict[str, Any]:
    return dict(nbformat.v4.new_markdown_cell(source))


def sample_cells() -> list[dict[str, Any]]:
    """A markdown cell, a code cell with text, an image and a result, and a code cell never run."""
    return [
        markdown("# Sample\nSome prose."),
        code("print('hello')\nplot()", count=3, outputs=[
            {"output_type": "stream", "name": "stdout", "text": ["hello\n", "world\n"]},
            {"output_type": "display_data", "data": {"image/png": PNG, "text/plain": ["<Figure>"]}, "metadata": {}},
            {"output_type": "execute_result", "data": {"text/plain": "42"}, "metadata": {}, "execution_count": 3},
        ]),
        code("x = 1\nx = 1"),
    ]


def read_valid(path: Path) -> nbformat.NotebookNode:
    """The notebook at `path`, which must be valid nbformat 4.5 with an id on every cell."""
    notebook = nbformat.read(path, as_version=4)
    nbformat.validate(notebook)
    assert notebook.nbformat == 4 and notebook.nbformat_minor >= 5, path
    assert all(cell.get("id") for cell in notebook.cells), path
    return notebook


# ---- processes ----------------------------------------------------------------------------------


@pytest.fixture
def reaper() -> Iterator[Reaper]:
    """Every process a test watches is stopped by PID at its end, also when it fails."""
    reaper = Reaper()
    try:
        yield reaper
    finally:
        reaper.kill_all()


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("root")


def serve_args(request: pytest.FixtureRequest) -> tuple[str, ...]:
    """The options a test module serves with (its SERVE_ARGS, e.g. --compat), besides --root."""
    return tuple(getattr(request.module, "SERVE_ARGS", ()))


@pytest.fixture(scope="module")
def stateless(root: Path, request: pytest.FixtureRequest) -> Iterator[CheckedClient]:
    with CheckedClient(servers.serve_stdio(root, *serve_args(request)), stateless=True) as client:
        yield client


@pytest.fixture(scope="module")
def legacy(root: Path, request: pytest.FixtureRequest) -> Iterator[CheckedClient]:
    """One stdio connection initialized at 2025-11-25: a client with state (its default notebook)."""
    with CheckedClient(servers.serve_stdio(root, *serve_args(request)), stateless=False) as client:
        yield client


@pytest.fixture(scope="module")
def http_server(root: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[servers.HttpServer]:
    """`serve --http` on a free loopback port: sessions at 2025-11-25 and stateless requests share it
    (`CheckedClient.http(http_server.url, stateless=...)`)."""
    server = servers.HttpServer(root, log=tmp_path_factory.mktemp("http-logs") / "server.log")
    try:
        yield server
    finally:
        server.close()
