"""Result `_meta` the tools attach."""

from __future__ import annotations

from typing import Any

NOTEBOOK_META = "io.jupyter-mcp/cell_id"


def cell_meta(cell_id: str) -> dict[str, Any]:
    """Result `_meta` for a call that acted on one cell."""
    return {NOTEBOOK_META: cell_id}
