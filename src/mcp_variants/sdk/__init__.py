"""SEP-3279 for any Python MCP server on the official SDK's `MCPServer`: declare, return, fail, run.

Declare a tool's output variants, return a result union, and this layer does the rest: the era from the
request's protocol version, `requestedOutputs` checked (-32602 with the offered list, before the tool
runs), exactly the requested outputs, each structured one validated against its own schema, and for
2024-11-05 … 2026-07-28 the legacy `content` / `structuredContent` the SEP's rules give.

    from mcp.server.mcpserver import MCPServer
    from mcp_variants.sdk import Results, Variants, cli, variant

    mcp = MCPServer("weather")
    variants = Variants(mcp)

    @variants.tool("assistant/content", variant("programmatic/structured", Forecast))
    async def forecast(city: str) -> Results:
        data = await fetch(city)
        return Results({"assistant/content": f"{city}: {data.temp} °C", "programmatic/structured": data})

    cli(mcp)                      # stdio; --http for streamable HTTP; every era, 2026-12-01 included

Everything a server author writes with is here. `mcp_variants.sdk.lowlevel` is the same machinery for those
who build their own toolsets on the SDK's low-level `Server`; `mcp_variants.sdk.tasks` runs long calls as tasks;
`mcp_variants.sdk.framework` holds the seams a layer for another framework is built on (`mcp_variants.fastmcp`'s).
`InProcessTransport` puts the reference client (`mcp_variants.client`) on the server in a test's own process, at
2026-12-01 too. Every other module of this package is private. docs/guides/python-servers.md has the guide.
"""

from typing import TYPE_CHECKING

from ..protocol.errors import DeclarationError, ErrorKind, ToolError, ToolErrorKind
from ._declare import Results, SelectorName, VariantSpec, variant
from ._extension import Variants, View
from ._http import HttpLimits
from ._lazy import imported_when_named
from ._mountable import StreamableHttpApp
from ._serve import add_serving_arguments, cli, run, serve_http, serve_stdio, streamable_http_app
from ._toolset import ResultsMismatch

__all__ = [
    "DeclarationError",
    "ErrorKind",
    "HttpLimits",
    "InProcessTransport",
    "Results",
    "ResultsMismatch",
    "SelectorName",
    "StreamableHttpApp",
    "ToolError",
    "ToolErrorKind",
    "VariantSpec",
    "Variants",
    "View",
    "add_serving_arguments",
    "cli",
    "run",
    "serve_http",
    "serve_stdio",
    "streamable_http_app",
    "variant",
]


if TYPE_CHECKING:
    from ._in_process import InProcessTransport

__getattr__ = imported_when_named(__name__, InProcessTransport="._in_process")  # a server starting up stays light
