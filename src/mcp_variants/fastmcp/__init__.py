"""SEP-3279 for a FastMCP 4 server: the same declarations and `Results` as `mcp_variants.sdk`, through FastMCP's
public extension API (`ServerExtension`), and every protocol era, 2026-12-01 included.

    from fastmcp import Context, FastMCP
    from mcp_variants.fastmcp import Results, Variants, cli, variant

    mcp = FastMCP("weather")
    variants = Variants(mcp)

    @variants.tool("assistant/content", variant("programmatic/structured", Forecast))
    async def forecast(city: str, ctx: Context) -> Results:
        data = await fetch(city)
        return Results({"assistant/content": f"{city}: {data.temp} °C", "programmatic/structured": data})

    if __name__ == "__main__":
        cli(mcp)                   # stdio; --http [--port P] for streamable HTTP at /mcp

An existing `@mcp.tool` migrates in one line: `@variants.legacy_tool(structured="assistant")`.
docs/guides/fastmcp.md has the guide; docs/fastmcp-change.md what FastMCP would need to make this smaller.
"""

from typing import TYPE_CHECKING

from ..sdk import DeclarationError, ErrorKind, HttpLimits, Results, SelectorName, ToolError, ToolErrorKind, VariantSpec, variant
from ..sdk.framework import imported_when_named
from ._extension import IDENTIFIER, Variants
from ._migrate import legacy_variants
from ._serve import add_serving_arguments, cli, http_app, run, serve_http, serve_stdio

__all__ = [
    "IDENTIFIER",
    "DeclarationError",
    "ErrorKind",
    "HttpLimits",
    "InProcessTransport",
    "Results",
    "SelectorName",
    "ToolError",
    "ToolErrorKind",
    "VariantSpec",
    "Variants",
    "add_serving_arguments",
    "cli",
    "http_app",
    "legacy_variants",
    "run",
    "serve_http",
    "serve_stdio",
    "variant",
]


if TYPE_CHECKING:
    from ._in_process import InProcessTransport

__getattr__ = imported_when_named(__name__, InProcessTransport="._in_process")  # a server starting up stays light
