"""A FastMCP server on mcp_variants.fastmcp for the wire tests: FastMCP's Context (progress, logging), a FastMCP
middleware, failures of every kind, and a plain FastMCP tool beside the variants tools."""

from typing import Any

from fastmcp import Context, FastMCP
from fastmcp.apps import AppConfig
from fastmcp.exceptions import ToolError as FastMCPToolError
from fastmcp.server.middleware import Middleware, MiddlewareContext
from pydantic import BaseModel, Field

from mcp_variants.fastmcp import ErrorKind, Results, ToolError, Variants, cli, variant


class Sum(BaseModel):
    total: int


SEEN: list[str] = []  # the tools/call names FastMCP's middleware saw


class Recorder(Middleware):
    async def on_call_tool(self, context: MiddlewareContext[Any], call_next: Any) -> Any:
        SEEN.append(context.message.name)
        return await call_next(context)


mcp = FastMCP("fastmcp-sample", version="1.0.0", middleware=[Recorder()])
variants = Variants(mcp)
COMPUTED: list[str] = []


@variants.tool("assistant/content", variant("programmatic/structured", Sum), variant("user/structured", {"type": "object"}))
async def add(a: int, b: int, ctx: Context) -> Results:
    """Add two integers, reporting progress and logging through FastMCP's Context."""
    await ctx.report_progress(1, 2, "adding")
    await ctx.info(f"adding {a} and {b}")

    def record() -> Sum:
        COMPUTED.append("programmatic/structured")
        return Sum(total=a + b)

    return Results({"assistant/content": f"{a} + {b} = {a + b}", "programmatic/structured": record,
                    "user/structured": lambda: {"sum": a + b}})


@variants.tool("assistant/content", variant("programmatic/structured", {"type": "object"}))
def computed() -> Results:
    """What `add` computed so far, and the tools/call names FastMCP's middleware saw."""
    return Results({"assistant/content": ", ".join(COMPUTED) or "nothing",
                    "programmatic/structured": {"computed": COMPUTED, "seen": SEEN, "transport": mcp.name}})


@variants.tool("assistant/content", variant("programmatic/structured", Sum))
def fail(how: str) -> Sum | Results:
    """Fail as asked: ours (a ToolError of a kind, or of the message alone, as FastMCP's is raised), FastMCP's
    ToolError, a Results unlike the declaration (a misspelt key), or an exception no tool meant."""
    if how == "ours":
        raise ToolError(ErrorKind.NOT_FOUND, "no such thing")
    if how == "ours-message":
        raise ToolError("no such ticket")
    if how == "malformed-kind":
        raise ToolError("Not Found!", "no ticket 7")  # a kind that breaks the rule: the message is kept
    if how == "fastmcp":
        raise FastMCPToolError("FastMCP says no")
    if how == "mismatched":
        return Results({"assistant/content": "text", "programatic/structured": {"total": 1}})  # type: ignore[dict-item]
    raise ValueError("a secret the client must not read")


class Ticket(BaseModel):
    """An ordinary model: a required nullable field, an alias, a nested model that may be None."""

    id: int
    assignee: str | None
    closed_by: Sum | None = Field(alias="closedBy")


@variants.tool(variant("assistant/content", project=lambda t: f"ticket {t.id} closed"), variant("programmatic/structured", Ticket),
               variant("assistant/structured", Ticket))
def close_ticket(id: int) -> Ticket:
    """Close a ticket nobody was assigned to."""
    return Ticket(id=id, assignee=None, closedBy=None)


NUMBER = {"type": "object", "required": ["n"], "properties": {"n": {"type": "integer"}}}


@variants.tool("assistant/content", variant("programmatic/structured", NUMBER))
def breaks_schema() -> Results:
    """Its programmatic output breaks its own schema: an invalid-output error, never sent."""
    return Results({"assistant/content": "fine text", "programmatic/structured": {"n": "not a number"}})


@variants.tool("assistant/content", "user/content")
def picture(kind: str = "model") -> Any:
    """Content values as FastMCP has them: a model as JSON text, a FastMCP Image, a dict."""
    from fastmcp.utilities.types import Image
    png = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000"
                        "1f15c4890000000d49444154789c63f8cfc0f01f0005050200" "5fc8f1d20000000049454e44ae426082")
    return Results({"assistant/content": Sum(total=3) if kind == "model" else {"a": 1},
                    "user/content": lambda: Image(data=png, format="png")})


@variants.tool("assistant/content", variant("io.modelcontextprotocol/ui/structured", {"type": "object"}),
               app=AppConfig(resource_uri="ui://sample/view.html"))
def view() -> Results:
    """An MCP App view's data, with FastMCP's app= link."""
    return Results({"assistant/content": "shown", "io.modelcontextprotocol/ui/structured": {"bars": [1, 2]}})


@mcp.resource("ui://sample/view.html", mime_type="text/html;profile=mcp-app")
def view_html() -> str:
    return "<!doctype html><html><body>bars</body></html>"


@mcp.tool
def plain(x: int) -> int:
    """A FastMCP tool of its own, beside the variants tools."""
    return x * 2


@mcp.tool
def reopened(id: int) -> Ticket:
    """A FastMCP tool of its own returning a model that nests another (FastMCP inlines its schema's $refs)."""
    return Ticket(id=id, assignee="ana", closedBy=None)


if __name__ == "__main__":
    cli(mcp)
