"""SEP-3279 on the SDK's low-level `Server`: tools/list and tools/call for every era, from a `ToolSet`.

For a server that registers its own handlers (resources, subscriptions, a discover of its own): the
Jupyter server is one. `serve_tools` adds the two tool handlers; each tool runs with the context that
`context(ctx)` makes for the request, so a server hands its tools what they need (its state, the
client's, a progress callback) without this layer knowing what that is.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from mcp.server.caching import CacheHint
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError
from mcp_types import PaginatedRequestParams, RequestParams

from ..protocol.errors import ProtocolError
from ._requests import finish, naming_every_version, negotiated_extensions, request_era
from ._task_store import TaskStore
from ._task_wire import LEGACY_CAPABILITY, TASKS_EXTENSION, created, requested_ttl, serve_tasks, task_owner, wants_task
from ._toolset import ToolSet


class CallToolParams(RequestParams):
    """tools/call params; `requestedOutputs` is read from the raw params (the SDK's own model drops it)."""

    name: str
    arguments: dict[str, Any] | None = None


def serve_tools(server: Server[Any], tools: ToolSet, context: Callable[[ServerRequestContext[Any, Any]], Any],
                extensions: Mapping[str, dict[str, Any]] | None = None, tasks: TaskStore | None = None) -> None:
    """Serve `tools` on `server`. `extensions` (SEP-2133 identifier → settings) are advertised in the server's
    capabilities, and a tool's variants of an extension's audience are offered to a request that negotiated it.
    With `tasks`, a call of a tool that has `task_support` may run as a task (docs/reference/tasks.md), kept in that store.
    server/discover (the SDK's, or the server's own) names every version served, 2026-12-01 included."""
    server.extensions.update(extensions or {})
    server.middleware.append(_every_version_discovered)
    # From 2026-07-28 a tools/list result carries its cache fields, which the SDK fills from the server's hint: a
    # server that gave none gets the SDK's own default (stale at once, private), or its listing is an invalid result.
    server.cache_hints.setdefault("tools/list", CacheHint())
    if tasks is not None:
        server.extensions[TASKS_EXTENSION] = {}
        serve_tasks(server, tasks)
        server.middleware.append(_legacy_tasks_capability)
    served = frozenset(server.extensions)

    async def list_tools(ctx: ServerRequestContext[Any, Any], params: PaginatedRequestParams) -> dict[str, Any]:
        era = request_era(ctx)
        entries = tools.entries(era, negotiated_extensions(ctx, served))
        if tasks is not None and ctx.protocol_version == "2025-11-25":
            for entry in entries:
                support = tools.tool(entry["name"]).task_support
                if support is not None:
                    entry["execution"] = {"taskSupport": support}
        return finish(ctx, "tools/list", era, {"tools": entries})

    async def call_tool(ctx: ServerRequestContext[Any, Any], params: CallToolParams) -> dict[str, Any]:
        era = request_era(ctx)
        given = dict(ctx.params or {})
        negotiated = negotiated_extensions(ctx, served)
        try:
            if tasks is not None and params.name in tools and wants_task(ctx, tools.tool(params.name).task_support):
                tools.select(params.name, given, era, negotiated)  # a refused requestedOutputs is refused now
                tool_context = context(ctx)  # made while the request is live; the run outlives it
                task = await tasks.start(task_owner(ctx), lambda: tools.call(given, era, negotiated, lambda: tool_context),
                                   requested_ttl(ctx))
                return finish(ctx, "tools/call", era, created(ctx, task, tasks))
            result = await tools.call(given, era, negotiated, lambda: context(ctx))
        except ProtocolError as exc:
            raise MCPError(exc.code, exc.message, exc.data) from None
        return finish(ctx, "tools/call", era, result)

    server.add_request_handler("tools/list", PaginatedRequestParams, list_tools)
    server.add_request_handler("tools/call", CallToolParams, call_tool)


async def _legacy_tasks_capability(ctx: ServerRequestContext[Any, Any], call_next: Any) -> Any:
    """2025-11-25's `capabilities.tasks` in the initialize result: the SDK's capabilities have no slot for it."""
    result = await call_next(ctx)
    if (ctx.method == "initialize" and isinstance(result, dict) and result.get("protocolVersion") == "2025-11-25"
            and isinstance(result.get("capabilities"), dict)):
        result["capabilities"]["tasks"] = LEGACY_CAPABILITY
    return result


async def _every_version_discovered(ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
    return naming_every_version(ctx, await call_next(ctx))
