"""A server on the public API (mcp_variants.sdk) with one tool for each thing the layer does; run by test_api.py.

`python sample_server.py` serves stdio; `--http --port N` streamable HTTP; `--no-middleware` leaves
Variants.middleware out, `--no-extension` leaves `variants` out of MCPServer(extensions=...) (misconfigured servers);
`--sdk-run` serves it with the SDK's own `mcp.run()`;
`--stacked` adds a tool with the SDK's `@apps.tool` stacked on `@variants.tool` (a misconfigured server).
AUTHOR_LOG_FORMAT in the environment: the server sets up its own log, in that format."""

import logging
import os
import sys
from typing import Any

from mcp.server.apps import Apps
from mcp.server.mcpserver import Context, Image, MCPServer
from mcp.server.mcpserver.exceptions import ToolError as SdkToolError
from mcp_types import TextContent
from pydantic import BaseModel, Field

from mcp_variants.sdk import ErrorKind, Results, ToolError, Variants, View, cli, variant


class Sum(BaseModel):
    total: int


apps = Apps()
variants = Variants(apps=apps)
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
    """Its programmatic output breaks its own schema: an invalid-output error, never sent."""
    return "fine text"


class Person(BaseModel):
    name: str
    team: str | None


class Ticket(BaseModel):
    """An ordinary model: a required nullable field, an alias, a nested model that may be None."""

    id: int
    assignee: str | None
    closed_by: Person | None = Field(alias="closedBy")
    note: str | None = None


@variants.tool(variant("assistant/content", project=lambda t: f"ticket {t.id} closed"), variant("programmatic/structured", Ticket),
               variant("assistant/structured", Ticket))
def close_ticket(id: int, by: str | None = None) -> Ticket:
    """Close a ticket nobody was assigned to."""
    return Ticket(id=id, assignee=None, closedBy=Person(name=by, team=None) if by else None)


@variants.tool("assistant/content", variant("programmatic/structured", Sum))
def fails(how: str) -> Results:
    """Fails the way `how` says: ours (a kind and a message, or the message alone, as the SDK's is raised), the SDK's
    ToolError, or an exception no tool meant."""
    if how == "ours":
        raise ToolError(ErrorKind.NOT_FOUND, "no such thing")
    if how == "ours-message":
        raise ToolError("no such ticket")
    if how == "malformed-kind":
        raise ToolError("Not Found!", "no ticket 7")  # a kind that breaks the rule: the message is kept
    if how == "sdk":
        raise SdkToolError("the SDK's words")
    raise RuntimeError("a secret the client must not see")


@variants.legacy_tool(variant("programmatic/structured", Sum, project=lambda n: {"total": n}))
def legacy_fails(how: str) -> int:
    """A migrated tool (`legacy_tool`) that fails with this package's ToolError (of a kind, or the message alone) or the
    SDK's, or returns a `Results` (variants.tool's, by mistake), or succeeds."""
    if how == "results":
        return Results({"assistant/content": "text"})  # type: ignore[return-value]
    if how == "ours":
        raise ToolError(ErrorKind.NOT_FOUND, "no such thing")
    if how == "ours-message":
        raise ToolError("no such ticket")
    if how == "malformed-kind":
        raise ToolError("Not Found!", "no ticket 7")
    if how == "sdk":
        raise SdkToolError("the SDK's words")
    return 3


@variants.tool("assistant/content", variant("programmatic/structured", Sum))
def mismatched(how: str) -> Results:
    """Returns a Results that does not match its declaration: a misspelt key, or one missing."""
    if how == "misspelt":
        return Results({"assistant/content": "text", "programatic/structured": {"total": 1}})  # type: ignore[dict-item]
    return Results({"assistant/content": "text"})


PNG = b"\x89PNG\r\n\x1a\n" + bytes(16)


@variants.tool("assistant/content")
def contents(kind: str) -> Any:
    """One content value of each kind the SDK's MCPServer turns into content."""
    return {"image": Image(data=PNG, format="png"), "model": Sum(total=3), "dict": {"total": 3},
            "block": TextContent(type="text", text="a block"), "list": ["one", Sum(total=2), {"type": "text", "text": "two"}],
            "number": 42}[kind]


BOARD = {"type": "object", "required": ["cells"], "properties": {"cells": {"type": "array", "items": {"type": "integer"}}}}


@variants.tool("assistant/content", variant("io.modelcontextprotocol/ui/structured", BOARD),
               view=View("ui://sample/board.html", "<!doctype html><html><body>board</body></html>", visibility=["model", "app"]))
def board() -> Results:
    """A tool with an MCP Apps view: its data is the ui variant."""
    return Results({"assistant/content": "a board of 3 cells", "io.modelcontextprotocol/ui/structured": {"cells": [1, 2, 3]}})


extensions: list[Any] = [variants]  # Variants applies the Apps it was given
if "--stacked" in sys.argv:  # another server: one Apps, and a Variants that was not told of it
    other_apps, variants = Apps(), Variants()
    other_apps.add_html_resource("ui://sample/stacked.html", "<!doctype html><html></html>")

    @other_apps.tool(resource_uri="ui://sample/stacked.html")
    @variants.tool("assistant/content")
    def stacked() -> str:
        """Registered twice: MCPServer runs the first registration, the Apps one."""
        return "never read"

    extensions = [other_apps, variants]
if "--no-extension" in sys.argv:
    extensions = []
if "AUTHOR_LOG_FORMAT" in os.environ:  # a server that sets up its own log, before MCPServer sets up the SDK's
    logging.basicConfig(format=os.environ["AUTHOR_LOG_FORMAT"], level="INFO")
mcp = MCPServer("sample", extensions=extensions, middleware=[] if "--no-middleware" in sys.argv else [variants.middleware])

if __name__ == "__main__":
    if "--sdk-run" in sys.argv:
        mcp.run()
    else:
        cli(mcp, [a for a in sys.argv[1:] if a not in ("--no-middleware", "--no-extension", "--stacked")])
