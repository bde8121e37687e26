"""SEP-3279 on the SDK's low-level `Server`: tools/list and tools/call for every era, from a `ToolSet`.

For a server that registers its own handlers (resources, subscriptions, a discover of its own): the
Jupyter server is one. `serve_tools` adds the two tool handlers; each tool runs with the context that
`context(ctx)` makes for the request, so a server hands its tools what they need (its state, the
client's, a progress callback) without this layer knowing what that is.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError
from mcp_types import PaginatedRequestParams, RequestParams

from ..protocol.errors import ProtocolError
from .requests import finish, negotiated_extensions, request_era
from .toolset import ToolSet


class CallToolParams(RequestParams):
    """tools/call params; `requestedOutputs` is read from the raw params (the SDK's own model drops it)."""

    name: str
    arguments: dict[str, Any] | None = None


def serve_tools(server: Server[Any], tools: ToolSet, context: Callable[[ServerRequestContext[Any, Any]], Any],
                extensions: Mapping[str, dict[str, Any]] | None = None) -> None:
    """Serve `tools` on `server`. `extensions` (SEP-2133 identifier → settings) are advertised in the server's
    capabilities, and a tool's variants of an extension's audience are offered to a request that negotiated it."""
    server.extensions.update(extensions or {})
    served = frozenset(server.extensions)

    async def list_tools(ctx: ServerRequestContext[Any, Any], params: PaginatedRequestParams) -> dict[str, Any]:
        era = request_era(ctx)
        return finish(ctx, "tools/list", era, {"tools": tools.entries(era, negotiated_extensions(ctx, served))})

    async def call_tool(ctx: ServerRequestContext[Any, Any], params: CallToolParams) -> dict[str, Any]:
        era = request_era(ctx)
        try:
            result = await tools.call(dict(ctx.params or {}), era, negotiated_extensions(ctx, served), lambda: context(ctx))
        except ProtocolError as exc:
            raise MCPError(exc.code, exc.message, exc.data) from None
        return finish(ctx, "tools/call", era, result)

    server.add_request_handler("tools/list", PaginatedRequestParams, list_tools)
    server.add_request_handler("tools/call", CallToolParams, call_tool)
