"""What a user would write instead of this project: the official MCP SDK's MCPServer with a handful of Jupyter
tools over jupyter_client and plain file and nbformat reads, nothing of this project. The floor of bench.floors
(stdio) and bench.throughput (streamable HTTP).

    python -m bench.naive_server --root DIR [--port PORT]     (stdio; with --port, streamable HTTP on 127.0.0.1)
"""

from __future__ import annotations

import argparse
import asyncio
import os
from pathlib import Path
from typing import Any

import nbformat
from jupyter_client.manager import AsyncKernelManager
from mcp.server.mcpserver import MCPServer

mcp = MCPServer("naive-jupyter")
ROOT = Path.cwd()
kernel = AsyncKernelManager(kernel_name="python3")
client: Any = None


async def _client() -> Any:
    global client
    if client is None:
        await kernel.start_kernel(cwd=str(ROOT))
        client = kernel.client()
        client.start_channels()
        await client.wait_for_ready(timeout=60)
    return client


@mcp.tool()
async def execute_code(code: str) -> str:
    """Run code in the kernel; answers what it printed and its result."""
    kc = await _client()
    msg_id = kc.execute(code)
    parts: list[str] = []
    while True:
        msg = await kc.get_iopub_msg(timeout=60)
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        kind, content = msg["msg_type"], msg["content"]
        if kind == "stream":
            parts.append(content["text"])
        elif kind in ("execute_result", "display_data"):
            parts.append(content["data"].get("text/plain", "") + "\n")
        elif kind == "error":
            parts.append("\n".join(content["traceback"]))
        elif kind == "status" and content["execution_state"] == "idle":
            return "".join(parts)


@mcp.tool()
async def list_kernels() -> list[dict[str, Any]]:
    """The running kernels."""
    if client is None:
        return []
    return [{"id": kernel.kernel_id, "name": kernel.kernel_name, "alive": await kernel.is_alive()}]


@mcp.tool()
def list_files(path: str = "") -> list[dict[str, Any]]:
    """The files and folders in a folder of the root."""
    with os.scandir(ROOT / path) as entries:
        return [{"name": e.name, "dir": e.is_dir(), "size": e.stat().st_size} for e in sorted(entries, key=lambda e: e.name)]


@mcp.tool()
def list_notebooks() -> list[str]:
    """The notebooks under the root."""
    return sorted(str(p.relative_to(ROOT)) for p in ROOT.rglob("*.ipynb"))


@mcp.tool()
def read_notebook(notebook: str, start: int = 0, limit: int = 20) -> list[dict[str, Any]]:
    """A page of a notebook's cells: index, type and source."""
    nb = nbformat.read(ROOT / notebook, as_version=4)
    return [{"index": i, "type": c.cell_type, "source": c.source} for i, c in enumerate(nb.cells[start:start + limit], start)]


@mcp.tool()
def read_cell(notebook: str, cell_index: int) -> dict[str, Any]:
    """One cell, with its outputs."""
    return dict(nbformat.read(ROOT / notebook, as_version=4).cells[cell_index])


@mcp.tool()
def insert_cell(notebook: str, cell_index: int, source: str) -> str:
    """Insert a code cell at cell_index."""
    nb = nbformat.read(ROOT / notebook, as_version=4)
    nb.cells.insert(cell_index, nbformat.v4.new_code_cell(source))
    nbformat.write(nb, ROOT / notebook)
    return f"Inserted cell {cell_index}; the notebook has {len(nb.cells)} cells."


@mcp.tool()
def edit_cell(notebook: str, cell_index: int, source: str) -> str:
    """Replace a cell's source."""
    nb = nbformat.read(ROOT / notebook, as_version=4)
    nb.cells[cell_index].source = source
    nbformat.write(nb, ROOT / notebook)
    return f"Cell {cell_index} replaced."


def main() -> None:
    global ROOT
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, default=Path.cwd())
    parser.add_argument("--port", type=int, help="serve streamable HTTP on this port instead of stdio")
    args = parser.parse_args()
    ROOT = args.root.resolve()
    try:
        if args.port:
            mcp.run("streamable-http", host="127.0.0.1", port=args.port)
        else:
            mcp.run("stdio")
    finally:
        if client is not None:
            client.stop_channels()
            asyncio.run(kernel.shutdown_kernel(now=True))


if __name__ == "__main__":
    main()
