"""An existing `MCPServer` server migrated a tool at a time: `mcp` is made first (as a server whose modules import
it does), some tools stay plain `@mcp.tool`, and the Variants tools are declared after the server was made.
`python partial_server.py` serves stdio through `mcp_variants.sdk.cli`."""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel

from mcp_variants.sdk import Results, Variants, cli, variant

mcp = MCPServer("partial")
variants = Variants(mcp)


@mcp.tool()
def plain_sum(a: int, b: int) -> int:
    """A tool of MCPServer's own, not migrated: its legacy outputSchema wraps the int."""
    return a + b


@mcp.tool()
def plain_note(text: str) -> dict:  # type: ignore[type-arg]
    """Not migrated, and no outputSchema (a bare dict)."""
    return {"note": text}


@mcp.tool()
def plain_fails(why: str) -> str:
    """Not migrated; fails."""
    raise ValueError(why)


class Echo(BaseModel):
    text: str


@variants.tool("assistant/content", variant("programmatic/structured", Echo))
def late_echo(text: str) -> Results:
    """Declared after the server was made."""
    return Results({"assistant/content": text, "programmatic/structured": Echo(text=text)})


if __name__ == "__main__":
    cli(mcp)
