"""The floor of the start-up benchmark: the MCP SDK's own MCPServer with one trivial tool on stdio, and
nothing of this project. With --ours, the same server on this project's stdio transport (`mcp_variants.sdk.run`),
the other contestant of bench/tricks.py's `stdio` row.

    python -m bench.floor_stdio [--ours]
"""

from __future__ import annotations

import sys

from mcp.server.mcpserver import MCPServer

mcp = MCPServer("floor")


@mcp.tool()
def echo(text: str = "ok") -> str:
    """Answers what it is given."""
    return text


if __name__ == "__main__":
    if "--ours" in sys.argv[1:]:
        from mcp_variants.sdk import run  # imported only here: the floor itself imports nothing of this project

        run(mcp, "stdio")
    else:
        mcp.run("stdio")
