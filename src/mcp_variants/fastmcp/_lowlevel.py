"""The private names of FastMCP this package reads: a FastMCP server's low-level `Server`, and where a mounted tool
comes from.

FastMCP (4.1.4 to 4.2.x: the `[fastmcp]` extra, `SUPPORTED`) keeps its low-level server (the SDK's `Server`, FastMCP's
`LowLevelServer`) in `FastMCP._mcp_server` and has no public way to reach it; its own in-memory client transport reads
the same attribute. Two things need it:

- stdio behind the 2026-12-01 bridge: `FastMCP.run_stdio_async` opens the SDK's `stdio_server()` itself and takes no
  streams, so our stdio connection (sdk/_stdio.py) serves the low-level server directly;
- the SDK-level middleware that adds `outputVariants` (or the legacy `outputSchema`) to tools/list and 2026-12-01 to
  server/discover: FastMCP's `on_list_tools` hook returns FastMCP `Tool` objects, not the listed entries.

The extra allows FastMCP's patch releases (`<4.3`), so the read is checked where it is made: `Variants(mcp)` reads it
first, and a FastMCP that no longer has it stops there with what to do, not with an AttributeError in a request.

And `mounted_origin`: a server that mounts another (`FastMCP.mount`) lists and calls the other's tools as
`FastMCPProviderTool`s, which keep the server they delegate to and the tool's name there in private attributes
(`_server`, `_original_name`; FastMCP's telemetry reads them too). A parent with Variants reads them to serve a
mounted Variants server's tools with their variants (`Variants._owner`). Delete that read when FastMCP exposes them.

Delete this module when FastMCP exposes its low-level server (or `run_stdio_async` takes streams, and a
`ServerExtension` may edit tools/list's entries): docs/fastmcp-change.md. The read is guarded by
tests/unit/test_dependency_internals.py; docs/support.md says how a new FastMCP release is followed.
"""

from __future__ import annotations

from importlib.metadata import version
from typing import Any

from fastmcp import FastMCP
from fastmcp.server.providers.fastmcp_provider import FastMCPProviderTool
from fastmcp.tools import Tool
from mcp.server.lowlevel import Server

SUPPORTED = ">=4.1.4,<4.3"
"""The FastMCP releases these private reads were checked against: the `[fastmcp]` extra (a test holds them equal)."""


def lowlevel_server(server: FastMCP[Any]) -> Server[Any]:
    """The SDK `Server` that runs a FastMCP server's connections (FastMCP's transports run the same one)."""
    inner = getattr(server, "_mcp_server", None)
    if not isinstance(inner, Server):
        raise RuntimeError(
            f"fastmcp {version('fastmcp')} is not supported by this mcp-variants: mcp_variants.fastmcp reads FastMCP's "
            f"low-level server from `FastMCP._mcp_server` (a private attribute; found {type(inner).__name__} there, "
            f"not mcp's Server), which it needs to list tools' variants and to serve stdio. Install a supported FastMCP "
            f"(pip install 'fastmcp{SUPPORTED}'), or upgrade mcp-variants to a release that supports this one "
            "(docs/support.md)")
    return inner


def mounted_origin(tool: Tool) -> tuple[FastMCP[Any], str] | None:
    """The server a tool was mounted from (`FastMCP.mount`) and its name there; None for a tool of the server's own."""
    if not isinstance(tool, FastMCPProviderTool):
        return None
    server, name = getattr(tool, "_server", None), getattr(tool, "_original_name", None)
    if not isinstance(server, FastMCP) or not isinstance(name, str):
        raise RuntimeError(
            f"fastmcp {version('fastmcp')} is not supported by this mcp-variants: mcp_variants.fastmcp reads where a "
            "mounted tool comes from in `FastMCPProviderTool._server` and `._original_name` (private attributes, not "
            f"found), which it needs to serve a mounted server's variants. Install a supported FastMCP "
            f"(pip install 'fastmcp{SUPPORTED}'), or upgrade mcp-variants to a release that supports this one "
            "(docs/support.md)")
    return server, name
