"""Images in link mode as a source of resources (server/resources.py serves every source): never
listed, since a link is found in a result, and read by that link (images.py keeps the bytes)."""

from __future__ import annotations

import base64
from typing import Any

from mcp.shared.exceptions import MCPError

from ..images import URI_PREFIX, ImageNotKept, ImageStore
from ..jupyter.registry import ClientState
from ..protocol.errors import INVALID_PARAMS, ProtocolError
from .resources import Source, link_owner

READ_CACHE_HINT = {"ttlMs": 3_600_000, "cacheScope": "private"}  # a link's bytes never change; they are this client's output


class ImageResources(Source):
    def __init__(self, store: ImageStore) -> None:
        self.store = store

    def owns(self, uri: str) -> bool:
        return uri.startswith(URI_PREFIX)

    async def read(self, client: ClientState, uri: str, *, stateless: bool) -> dict[str, Any]:
        try:
            mime, data = await self.store.get(uri, link_owner(client))
        except ProtocolError as exc:  # a shared store that cannot be reached
            raise MCPError(exc.code, exc.message, {"uri": uri}) from None
        except ImageNotKept:
            budget = self.store.max_bytes // (1024 * 1024)
            raise MCPError(INVALID_PARAMS, "Resource not found: This image is not kept for this client: the server keeps the images "
                                           f"it showed each client, the most recently used, up to {budget} MB. Run the cell "
                                           "again, or read_cell it, for a new link.", {"uri": uri}) from None
        result: dict[str, Any] = {"contents": [{"uri": uri, "mimeType": mime, "blob": base64.b64encode(data).decode()}]}
        if stateless:
            result.update(READ_CACHE_HINT)
        return result
