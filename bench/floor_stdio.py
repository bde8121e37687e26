"""The floor of the start-up benchmark: the MCP SDK's own MCPServer with one trivial tool on stdio, and
nothing of this project.

    python -m bench.floor_stdio
"""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer

mcp = MCPServer("floor")


@mcp.tool()
def echo(text: str = "ok") -> str:
    """Answers what it is given."""
    return text


if __name__ == "__main__":
    mcp.run("stdio")
