"""An MCPServer with a plain tool (no declared variants) beside one of Variants', on mcp_variants.sdk's `cli`.

On the patched SDK the plain tool is served by the SDK's legacy adapter (assistant/content from its content),
the other by the Variants extension, which declares its variants to MCPServer."""

from mcp.server.mcpserver import MCPServer

from mcp_variants.sdk import Results, Variants, cli, variant

variants = Variants()
COUNT = {"type": "object", "required": ["letters"], "properties": {"letters": {"type": "integer"}}}


@variants.tool("assistant/content", variant("programmatic/structured", COUNT))
def count(text: str) -> Results:
    """Count the letters of a text."""
    letters = sum(c.isalpha() for c in text)
    return Results({"assistant/content": f"{letters} letters", "programmatic/structured": {"letters": letters}})


mcp = MCPServer("plain", extensions=[variants], middleware=[variants.middleware])


@mcp.tool()
def shout(text: str) -> str:
    """The text in capitals."""
    return text.upper()


if __name__ == "__main__":
    cli(mcp)
