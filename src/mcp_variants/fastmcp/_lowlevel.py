"""The one private name of FastMCP this package reads: a FastMCP server's low-level `Server`.

FastMCP (4.1.4 to 4.2.3) keeps its low-level server (the SDK's `Server`, FastMCP's `LowLevelServer`) in `FastMCP._mcp_server` and
has no public way to reach it; its own in-memory client transport reads the same attribute. Two things need it:

- stdio behind the 2026-12-01 bridge: `FastMCP.run_stdio_async` opens the SDK's `stdio_server()` itself and takes no
  streams, so our stdio connection (sdk/_stdio.py) serves the low-level server directly;
- the SDK-level middleware that adds `outputVariants` (or the legacy `outputSchema`) to tools/list and 2026-12-01 to
  server/discover: FastMCP's `on_list_tools` hook returns FastMCP `Tool` objects, not the listed entries.

Delete this module when FastMCP exposes its low-level server (or `run_stdio_async` takes streams, and a
`ServerExtension` may edit tools/list's entries): docs/fastmcp-change.md. The read is guarded by
tests/unit/test_dependency_internals.py.
"""

from __future__ import annotations

from typing import Any

from fastmcp import FastMCP
from mcp.server.lowlevel import Server


def lowlevel_server(server: FastMCP[Any]) -> Server[Any]:
    """The SDK `Server` that runs a FastMCP server's connections (FastMCP's transports run the same one)."""
    inner: Server[Any] = server._mcp_server
    return inner
