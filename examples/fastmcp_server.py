"""A FastMCP 4 server with SEP-3279 output variants: text for the model, a record for code, a table for the user,
data for an MCP App view, and a tool migrated from plain `@mcp.tool` in one line.

    python examples/fastmcp_server.py                     # stdio
    python examples/fastmcp_server.py --http --port 8000  # streamable HTTP at http://127.0.0.1:8000/mcp
"""

import base64

from fastmcp import Context, FastMCP
from fastmcp.apps import AppConfig
from fastmcp.utilities.types import Image
from pydantic import BaseModel

from mcp_variants.fastmcp import ErrorKind, Results, ToolError, Variants, cli, variant

SALES = {"north": [("Alice", 120), ("Bob", 95)], "south": [("Chen", 140), ("Dana", 60), ("Eve", 75)]}
VIEW = "ui://sales/chart.html"
PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==")


class Stats(BaseModel):
    words: int
    lines: int
    characters: int


class Totals(BaseModel):
    region: str
    total: int
    sellers: int


TABLE = {"type": "object", "required": ["columns", "rows"],
         "properties": {"columns": {"type": "array", "items": {"type": "string"}},
                        "rows": {"type": "array", "items": {"type": "array"}}}}
BARS = {"type": "object", "required": ["bars"], "properties": {"bars": {"type": "array", "items": {
    "type": "object", "required": ["label", "value"], "properties": {"label": {"type": "string"}, "value": {"type": "number"}}}}}}

mcp = FastMCP("sales", version="1.0.0")
variants = Variants(mcp)


def sellers(region: str) -> list[tuple[str, int]]:
    if region not in SALES:
        raise ToolError(ErrorKind.INVALID_ARGUMENTS, f"No region {region!r}; the regions are {', '.join(SALES)}.")
    return SALES[region]


@variants.tool("assistant/content", variant("programmatic/structured", Totals), variant("user/structured", TABLE),
               annotations={"readOnlyHint": True})
async def region_sales(region: str, ctx: Context) -> Results:
    """This quarter's sales of a region (north or south): a sentence, a record, a table."""
    rows = sellers(region)
    await ctx.info(f"reading {len(rows)} sellers of {region}")
    await ctx.report_progress(1, 1)
    total = sum(amount for _, amount in rows)
    return Results({
        "assistant/content": f"{region}: {total} sold by {len(rows)} sellers.",
        "programmatic/structured": lambda: Totals(region=region, total=total, sellers=len(rows)),
        "user/structured": lambda: {"columns": ["seller", "sold"], "rows": [list(row) for row in rows]},
    })


@variants.tool("assistant/content", "user/content", variant("programmatic/structured", Totals),
               variant("io.modelcontextprotocol/ui/structured", BARS), app=AppConfig(resource_uri=VIEW),
               annotations={"readOnlyHint": True})
def sales_chart(region: str = "north") -> Results:
    """A bar chart of a region's sellers, in an MCP App view."""
    rows = sellers(region)
    return Results({"assistant/content": f"A chart of {len(rows)} sellers in {region} is shown to the user.",
                    "user/content": lambda: Image(data=PNG, format="png"),  # any content a FastMCP tool may return
                    "programmatic/structured": lambda: Totals(region=region, total=sum(v for _, v in rows), sellers=len(rows)),
                    "io.modelcontextprotocol/ui/structured": lambda: {"bars": [{"label": n, "value": v} for n, v in rows]}})


@mcp.resource(VIEW, mime_type="text/html;profile=mcp-app")
def chart_view() -> str:
    return "<!doctype html><html><body><div id=chart></div><script type=module>/* draws bars */</script></body></html>"


@variants.legacy_tool(structured="assistant")  # was: @mcp.tool
def text_stats(text: str) -> Stats:
    """Count the words, lines and characters of a text."""
    return Stats(words=len(text.split()), lines=len(text.splitlines()), characters=len(text))


if __name__ == "__main__":
    cli(mcp)
