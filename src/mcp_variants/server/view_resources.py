"""The MCP Apps views (apps/resources.py) as a source of resources (server/resources.py serves every source)."""

from __future__ import annotations

from typing import Any

from ..apps.resources import READ_CACHE_HINT, VIEWS, not_found, read_result, resource_entry
from ..jupyter.registry import ClientState
from .resources import Source


class ViewResources(Source):
    """Served at every protocol version: hosts that speak an older version render them from the legacy
    CallToolResult (docs/apps.md). They never change, so nothing is watched."""

    SCHEME = "ui://"

    def owns(self, uri: str) -> bool:
        return uri.startswith(self.SCHEME)

    async def entries(self, client: ClientState) -> list[dict[str, Any]]:
        return [resource_entry(view) for view in VIEWS]

    async def read(self, client: ClientState, uri: str, *, stateless: bool) -> dict[str, Any]:
        result = read_result(uri)
        if result is None:
            raise not_found(uri)
        if stateless:
            # Required cache hints at 2026-07-28 and later (SEP-2549): a view is the same for
            # every client of this server version.
            result.update(READ_CACHE_HINT)
        return result
