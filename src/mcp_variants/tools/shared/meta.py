"""Result `_meta` the tools attach."""

from __future__ import annotations

from typing import Any

NOTEBOOK_META = "io.jupyter-mcp/cell_id"
CACHE_META = "io.modelcontextprotocol/cache"


def cell_meta(cell_id: str) -> dict[str, Any]:
    """Result `_meta` for a call that acted on one cell."""
    return {NOTEBOOK_META: cell_id}


def cache_meta(ttl_ms: int) -> dict[str, Any]:
    """Result `_meta` of a listing a client may reuse for `ttl_ms`, for itself only."""
    return {CACHE_META: {"ttlMs": ttl_ms, "cacheScope": "private"}}
