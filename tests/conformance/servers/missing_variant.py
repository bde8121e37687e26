"""A server whose only tool's Results lack a declared variant on every call, for the suite to fail.

The tool declares assistant/content and programmatic/structured but returns programmatic/structured only:
every call that asks for assistant/content (or nothing: the fallback) cannot be answered.

    python tests/conformance/servers/missing_variant.py            # stdio
"""

from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel

from mcp_variants.sdk import Results, Variants, cli, variant


class Stock(BaseModel):
    items: int


variants = Variants()


@variants.tool("assistant/content", variant("programmatic/structured", Stock), annotations={"readOnlyHint": True})
def stock() -> Results:
    """How many items are in stock."""
    return Results({"programmatic/structured": Stock(items=3)})


mcp = MCPServer("missing-variant", version="1.0.0", extensions=[variants], middleware=[variants.middleware])

if __name__ == "__main__":
    cli(mcp)
