"""SEP-3279 for any Python MCP server, on the official SDK (mcp 2.3.0): the public server API.

Declare a tool's output variants, return a result union, and this layer does the rest: the era from the
request's protocol version, `requestedOutputs` checked (-32602 with the offered list, before the tool
runs), exactly the requested outputs, each structured one validated against its own schema, and for
2024-11-05 … 2026-07-28 the legacy `content` / `structuredContent` the SEP's rules give.

    from mcp.server.mcpserver import MCPServer
    from mcp_variants.sdk import Results, Variants, run, variant

    variants = Variants()

    @variants.tool("assistant/content", variant("programmatic/structured", Forecast))
    async def forecast(city: str) -> Results:
        data = await fetch(city)
        return Results({"assistant/content": f"{city}: {data.temp} °C", "programmatic/structured": data})

    mcp = MCPServer("weather", extensions=[variants], middleware=[variants.middleware])
    run(mcp)

`Variants` is an `MCPServer` extension; `ToolSet` with `serve_tools` is the same machinery for the
low-level `Server` (the Jupyter server's 26 tools run on it). `Tasks` (an `MCPServer` extension) and
`TaskStore` (`serve_tools(..., tasks=...)`) run long calls as tasks (docs/reference/tasks.md).
docs/guides/python-servers.md has the guide.
"""

from ..protocol.errors import ErrorKind, ToolError
from ..protocol.projection import Outcome, ToolProjectors
from ..protocol.types import Selector
from .declare import Results, VariantSpec, declaration, variant
from .extension import Variants
from .lowlevel import serve_tools
from .migrate import legacy_variants
from .serve import cli, lowlevel_server, run, serve_http, serve_stdio, streamable_http_app
from .task_extension import Tasks
from .tasks import TaskStore
from .toolset import ToolSet, VariantTool

__all__ = [
    "ErrorKind",
    "Outcome",
    "Results",
    "Selector",
    "ToolError",
    "ToolProjectors",
    "TaskStore",
    "Tasks",
    "ToolSet",
    "VariantSpec",
    "VariantTool",
    "Variants",
    "cli",
    "declaration",
    "legacy_variants",
    "lowlevel_server",
    "run",
    "serve_http",
    "serve_stdio",
    "serve_tools",
    "streamable_http_app",
    "variant",
]
