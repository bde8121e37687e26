"""Two tools that fit the same scenarios, the second of which breaks its own schema: `total`'s
programmatic/structured output says `"n": "not a number"` where its schema asks for an integer.

Both need arguments and change nothing the suite can see, so the suite calls only what `--call` names. Named
both (`--call 'count={"x": 1}' --call 'total={"x": 1}'`), the check must fail on `total`, naming it and the
server's message: it once said OK, because every scenario ran with `count`, listed first, and the summary said
`total` was "not called".

    python tests/conformance/servers/hidden_bug.py            # stdio
"""

from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel

from mcp_variants.sdk import Results, Variants, cli, variant


class Count(BaseModel):
    n: int


variants = Variants()


@variants.tool("assistant/content", variant("programmatic/structured", Count))
def count(x: int) -> Results:
    """Count to x."""
    return Results({"assistant/content": f"counted to {x}", "programmatic/structured": Count(n=x)})


@variants.tool("assistant/content", variant("programmatic/structured", Count))
def total(x: int) -> Results:
    """The total of x: its programmatic output breaks its schema."""
    return Results({"assistant/content": f"the total is {x}", "programmatic/structured": {"n": "not a number"}})


mcp = MCPServer("hidden-bug", version="1.0.0", extensions=[variants], middleware=[variants.middleware])

if __name__ == "__main__":
    cli(mcp)
