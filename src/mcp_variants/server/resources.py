"""The one resources registry: resources/list, resources/templates/list and resources/read over every
provider of resources (the MCP Apps views, images in link mode, ...). A provider is one module's job;
the handlers are here, once.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError
from mcp_types import PaginatedRequestParams, ReadResourceRequestParams

from ..protocol.errors import INVALID_PARAMS
from ..protocol.versions import STATELESS_VERSIONS


class ResourceProvider(Protocol):
    """Resources of one kind."""

    # The cache hint of a read (SEP-2549, required at 2026-07-28 and later): `ttlMs` and `cacheScope`.
    read_cache: dict[str, Any]

    def list_resources(self) -> list[dict[str, Any]]:
        """Its resources/list entries (a provider whose resources are found in results may list none)."""
        ...

    def read(self, uri: str) -> dict[str, Any] | None:
        """The resources/read result for `uri`; None when the URI is not this provider's, LookupError(message)
        when it is but names nothing (any more)."""
        ...


def register_resources(server: Server[Any], providers: Sequence[ResourceProvider]) -> None:
    """resources/list, resources/templates/list (none) and resources/read, at every protocol version."""

    def stamped(ctx: ServerRequestContext[Any, Any], result: dict[str, Any]) -> dict[str, Any]:
        if ctx.protocol_version in STATELESS_VERSIONS:
            result["resultType"] = "complete"
        return result

    def listed() -> list[dict[str, Any]]:
        return [entry for provider in providers for entry in provider.list_resources()]

    async def list_resources(ctx: ServerRequestContext[Any, Any], params: PaginatedRequestParams) -> dict[str, Any]:
        return stamped(ctx, {"resources": listed()})

    async def list_templates(ctx: ServerRequestContext[Any, Any], params: PaginatedRequestParams) -> dict[str, Any]:
        return stamped(ctx, {"resourceTemplates": []})

    async def read_resource(ctx: ServerRequestContext[Any, Any], params: ReadResourceRequestParams) -> dict[str, Any]:
        uri = str(params.uri)
        for provider in providers:
            try:
                result = provider.read(uri)
            except LookupError as gone:
                raise MCPError(INVALID_PARAMS, f"Resource not found: {gone}", {"uri": uri}) from None
            if result is not None:
                if ctx.protocol_version in STATELESS_VERSIONS:
                    result.update(provider.read_cache)
                return stamped(ctx, result)
        raise MCPError(INVALID_PARAMS, "Resource not found", {"uri": uri, "available": sorted(e["uri"] for e in listed())})

    server.add_request_handler("resources/list", PaginatedRequestParams, list_resources)
    server.add_request_handler("resources/templates/list", PaginatedRequestParams, list_templates)
    server.add_request_handler("resources/read", ReadResourceRequestParams, read_resource)
