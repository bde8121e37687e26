"""An MCPServer made first, as a server whose modules import `mcp` is, with `Variants(mcp)` beside it: every tool is
declared after the server exists. `python server_first.py` serves through `mcp_variants.sdk.cli`; with `sdk-run`,
through the SDK's own `mcp.run()` (stdio), which cannot serve 2026-12-01 and says so at start."""

from __future__ import annotations

import sys

from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel

from mcp_variants.sdk import Results, Variants, cli, variant

mcp = MCPServer("server-first")
variants = Variants(mcp)


class Echo(BaseModel):
    text: str


@variants.tool("assistant/content", variant("programmatic/structured", Echo))
def echo(text: str) -> Results:
    """Says the text back."""
    return Results({"assistant/content": f"echo: {text}", "programmatic/structured": Echo(text=text)})


@variants.legacy_tool(structured="assistant")
def shout(text: str) -> Echo:
    """An MCPServer tool as it was, migrated in one line."""
    return Echo(text=text.upper())


if __name__ == "__main__":
    if sys.argv[1:] == ["sdk-run"]:
        mcp.run()
    else:
        cli(mcp)
