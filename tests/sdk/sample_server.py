"""A server on the public API (mcp_variants.sdk) with one tool for each thing the layer does; run by test_api.py.

`python sample_server.py` serves stdio; `--http --port N` streamable HTTP; `--no-middleware` leaves
Variants.middleware out (a misconfigured server)."""

import sys

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError as SdkToolError
from pydantic import BaseModel

from mcp_variants.sdk import ErrorKind, Results, ToolError, Variants, cli, variant


class Sum(BaseModel):
    total: int


variants = Variants()
STRICT = {"type": "object", "required": ["n"], "properties": {"n": {"type": "integer"}}, "additionalProperties": False}


@variants.tool("assistant/content", variant("programmatic/structured", Sum), variant("user/structured", STRICT))
def lazy(a: int, b: int) -> Results:
    """Each entry but the requested ones is never computed: asking for another raises."""

    def never() -> dict[str, int]:
        raise RuntimeError("an unrequested variant was computed")

    return Results({"assistant/content": f"{a} + {b} = {a + b}", "programmatic/structured": lambda: Sum(total=a + b),
                    "user/structured": never})


@variants.tool(variant("assistant/content", project=lambda s: f"total {s.total}"), variant("programmatic/structured", Sum))
async def projected(a: int, b: int, ctx: Context) -> Sum:
    """One value, a projection per variant; an async tool that reports progress through the SDK's Context."""
    await ctx.report_progress(1, 1, "added")
    return Sum(total=a + b)


@variants.tool("assistant/content", variant("programmatic/structured", STRICT, project=lambda _: {"n": "not a number"}))
def breaks_schema() -> str:
    """Its programmatic output breaks its own schema: an internal error, never sent."""
    return "fine text"


@variants.tool("assistant/content", variant("programmatic/structured", Sum))
def fails(how: str) -> Results:
    """Fails the way `how` says: ours (a kind and a message), the SDK's ToolError, or an exception no tool meant."""
    if how == "ours":
        raise ToolError(ErrorKind.NOT_FOUND, "no such thing")
    if how == "sdk":
        raise SdkToolError("the SDK's words")
    raise RuntimeError("a secret the client must not see")


mcp = MCPServer("sample", extensions=[variants], middleware=[] if "--no-middleware" in sys.argv else [variants.middleware])

if __name__ == "__main__":
    cli(mcp, [a for a in sys.argv[1:] if a != "--no-middleware"])
